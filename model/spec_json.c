/* spec_json.c - canonical JSON of a validated spec tree and its sha256.
 *
 * Canonical means: object keys sorted bytewise, no whitespace, integers
 * printed exactly as decimal digits (cJSON keeps numbers as doubles, so
 * they are added as raw text), strings as written. Two files that mean the
 * same spec - other key order, defaults spelled out or not, comments -
 * give the same text and so the same hash.
 */
#include "spec.h"
#include "spec_node.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

static int
pair_cmp(const void *a, const void *b)
{
    const struct spec_pair *pa = a, *pb = b;

    return strcmp(pa->key->value, pb->key->value);
}

/* "+007" -> "7", "-0" -> "0": one spelling per integer. */
static cJSON *
json_integer(const char *text)
{
    char buf[32];
    const char *p = text;
    bool neg = false;
    size_t n = 0;

    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    while (*p == '0' && p[1] != '\0')
        p++;
    if (strlen(p) >= sizeof(buf) - 2)
        return cJSON_CreateString(text);
    if (neg && strcmp(p, "0") != 0)
        buf[n++] = '-';
    memcpy(buf + n, p, strlen(p) + 1);
    return cJSON_CreateRaw(buf);
}

static cJSON *
json_scalar(const struct spec_node *n)
{
    switch (n->type) {
    case SPEC_SCALAR_INT:
        return json_integer(n->value);
    case SPEC_SCALAR_FLOAT:
        return cJSON_CreateNumber(strtod(n->value, NULL));
    case SPEC_SCALAR_BOOL:
        return cJSON_CreateBool(spec_node_is_true(n));
    case SPEC_SCALAR_NULL:
        return cJSON_CreateNull();
    case SPEC_SCALAR_STRING:
        break;
    }
    return cJSON_CreateString(n->value);
}

static cJSON *
json_map(const struct spec_node *n)
{
    struct spec_pair *sorted;
    cJSON *obj = cJSON_CreateObject();

    sorted = malloc((n->n ? n->n : 1) * sizeof(*sorted));
    if (obj == NULL || sorted == NULL)
        goto fail;
    memcpy(sorted, n->pairs, n->n * sizeof(*sorted));
    qsort(sorted, n->n, sizeof(*sorted), pair_cmp);
    for (size_t i = 0; i < n->n; i++) {
        cJSON *v = spec_json_from_node(sorted[i].value);

        if (v == NULL)
            goto fail;
        cJSON_AddItemToObject(obj, sorted[i].key->value, v);
    }
    free(sorted);
    return obj;
fail:
    free(sorted);
    cJSON_Delete(obj);
    return NULL;
}

cJSON *
spec_json_from_node(const struct spec_node *n)
{
    cJSON *arr;

    if (n->kind == SPEC_NODE_SCALAR)
        return json_scalar(n);
    if (n->kind == SPEC_NODE_MAP)
        return json_map(n);
    arr = cJSON_CreateArray();
    for (size_t i = 0; arr != NULL && i < n->n; i++) {
        cJSON *v = spec_json_from_node(n->items[i]);

        if (v == NULL) {
            cJSON_Delete(arr);
            return NULL;
        }
        cJSON_AddItemToArray(arr, v);
    }
    return arr;
}

void
spec_sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    static const char hex[] = "0123456789abcdef";

    /* The digest and a context are fetched once and reused: an implicit
     * fetch and a new context on every call cost as much as hashing a
     * spec. Immutable after the first call apart from the context, which
     * is reset on every use (callers are single-threaded). */
    static EVP_MD *sha256;
    static EVP_MD_CTX *ctx;

    if (sha256 == NULL)
        sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    if (ctx == NULL)
        ctx = EVP_MD_CTX_new();
    if (sha256 == NULL || ctx == NULL ||
        EVP_DigestInit_ex2(ctx, sha256, NULL) != 1 ||
        EVP_DigestUpdate(ctx, data, len) != 1 ||
        EVP_DigestFinal_ex(ctx, md, &mdlen) != 1)
        EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
    for (unsigned int i = 0; i < 32; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[64] = '\0';
}

/* 15 digits in a row: an integer cJSON_Parse may not keep exact (a
 * double holds 2^53; cJSON prints 10^15 and up with an exponent). Digits
 * in a string count too: only the faster path is lost then. */
static bool
has_long_number(const char *text)
{
    size_t run = 0;

    for (const char *p = text; *p != '\0'; p++) {
        run = (*p >= '0' && *p <= '9') ? run + 1 : 0;
        if (run >= 15)
            return true;
    }
    return false;
}

cJSON *
spec_resource(const struct spec_invocation *inv)
{
    struct spec_stream st = { 0 };
    struct spec_errors *es;
    cJSON *r = NULL;

    if (inv->resource_json == NULL)
        return NULL;
    /* every number short enough to be exact as a double prints back as
     * it was written: cJSON's parser, ten times faster than the spec's */
    if (!has_long_number(inv->resource_json))
        return cJSON_Parse(inv->resource_json);
    /* JSON is YAML: the spec parser keeps every integer's digits */
    es = calloc(1, sizeof(*es));
    if (es != NULL &&
        spec_yaml_parse("resource", inv->resource_json,
                        strlen(inv->resource_json), &st, es) == 0 &&
        st.n == 1 && st.docs[0] != NULL)
        r = spec_json_from_node(st.docs[0]);
    spec_stream_cleanup(&st);
    free(es);
    return r;
}

bool
spec_same_resource(const struct spec_invocation *a,
                   const struct spec_invocation *b)
{
    return a->resource_json != NULL && b->resource_json != NULL &&
           strcmp(a->resource_json, b->resource_json) == 0;
}

char *
spec_canonical_spec(const struct spec_invocation *inv)
{
    cJSON *r = spec_resource(inv);
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(r, "spec");
    char *text = spec ? cJSON_PrintUnformatted(spec) : NULL;

    cJSON_Delete(r);
    return text;
}
