/* store_etcd_json.c - the pure half of the etcd gateway client: base64
 * (the gateway carries keys and values as base64 bytes), int64 fields
 * (printed as decimal strings) and the JSON bodies of range and txn
 * requests. No I/O here, so the unit tests check it byte for byte. */
#include "store_etcd_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

char *
store__etcd_b64_enc(const void *p, size_t n)
{
    char *out = malloc(4 * ((n + 2) / 3) + 1);

    if (out != NULL)
        EVP_EncodeBlock((unsigned char *)out, p, (int)n);
    return out;
}

int
store__etcd_b64_dec(const char *text, char **out, size_t *n, struct err *e)
{
    size_t len = strlen(text), pad = 0;
    unsigned char *p;
    int got;

    if (len % 4 != 0 || len > (size_t)1 << 30)
        return err_set(e, ERR_SYNTAX, "etcd sent a value that is not base64");
    p = malloc(len / 4 * 3 + 1);
    if (p == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    got = len ? EVP_DecodeBlock(p, (const unsigned char *)text, (int)len) : 0;
    if (got < 0) {
        free(p);
        return err_set(e, ERR_SYNTAX, "etcd sent a value that is not base64");
    }
    /* EVP_DecodeBlock counts the bytes the padding stands for */
    if (len >= 1 && text[len - 1] == '=')
        pad++;
    if (len >= 2 && text[len - 2] == '=')
        pad++;
    *n = (size_t)got - pad;
    p[*n] = '\0';
    *out = (char *)p;
    return 0;
}

int64_t
store__etcd_int(const cJSON *obj, const char *name)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, name);

    if (cJSON_IsString(j))
        return strtoll(j->valuestring, NULL, 10);
    if (cJSON_IsNumber(j))
        return (int64_t)j->valuedouble;
    return 0;
}

int
store__etcd_key(const struct store_etcd *s, char *buf, size_t size,
                struct err *e, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(buf, size, "%s/", s->prefix), m;

    if (n < 0 || (size_t)n >= size)
        return err_set(e, ERR_LIMIT, "etcd key too long");
    va_start(ap, fmt);
    m = vsnprintf(buf + n, size - (size_t)n, fmt, ap);
    va_end(ap);
    if (m < 0 || (size_t)m >= size - (size_t)n)
        return err_set(e, ERR_LIMIT, "etcd key too long");
    return 0;
}

void
store__etcd_prefix_end(const char *prefix, char *out, size_t size)
{
    size_t n = strlen(prefix);

    snprintf(out, size, "%s", prefix);
    /* every prefix here ends in '/', so the increment never overflows */
    if (n > 0 && n < size)
        out[n - 1] = (char)(out[n - 1] + 1);
}

/* Add name: base64(data[0..len)) to obj. */
static bool
add_b64(cJSON *obj, const char *name, const char *data, size_t len)
{
    char *b = store__etcd_b64_enc(data, len);
    bool ok = b != NULL && cJSON_AddStringToObject(obj, name, b) != NULL;

    free(b);
    return ok;
}

cJSON *
store__etcd_range(const char *key, const char *range_end, bool keys_only)
{
    cJSON *r = cJSON_CreateObject();

    if (r == NULL || !add_b64(r, "key", key, strlen(key)) ||
        (range_end != NULL &&
         !add_b64(r, "range_end", range_end, strlen(range_end))) ||
        (keys_only && cJSON_AddTrueToObject(r, "keys_only") == NULL)) {
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

static bool
rev_ok(const char *rev)
{
    if (rev[0] == '\0' || strlen(rev) > 19)
        return false;
    for (const char *p = rev; *p != '\0'; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

/* The compare list of a CAS on key: [] for NULL, create_revision == 0
 * for "", mod_revision == expect_rev otherwise. */
static cJSON *
compare_for(const char *key, const char *expect_rev, struct err *e)
{
    cJSON *list = cJSON_CreateArray(), *c;
    bool create;

    if (list == NULL || expect_rev == NULL)
        return list;
    create = expect_rev[0] == '\0';
    if (!create && !rev_ok(expect_rev)) {
        cJSON_Delete(list);
        err_set(e, ERR_CONFLICT, "revision \"%s\" is not an etcd revision",
                expect_rev);
        return NULL;
    }
    c = cJSON_CreateObject();
    if (c == NULL || !cJSON_AddItemToArray(list, c) ||
        !cJSON_AddStringToObject(c, "result", "EQUAL") ||
        !cJSON_AddStringToObject(c, "target", create ? "CREATE" : "MOD") ||
        !add_b64(c, "key", key, strlen(key)) ||
        !cJSON_AddStringToObject(c, create ? "create_revision" : "mod_revision",
                                 create ? "0" : expect_rev)) {
        cJSON_Delete(list);
        return NULL;
    }
    return list;
}

/* {compare, success: [op], failure: [range key]} */
static cJSON *
txn_of(const char *key, cJSON *compare, const char *op_name, cJSON *op)
{
    cJSON *t = cJSON_CreateObject(), *succ, *fail, *o, *rd;

    if (t == NULL || op == NULL || compare == NULL)
        goto fail;
    cJSON_AddItemToObject(t, "compare", compare);
    compare = NULL;
    succ = cJSON_AddArrayToObject(t, "success");
    fail = cJSON_AddArrayToObject(t, "failure");
    o = cJSON_CreateObject();
    if (succ == NULL || fail == NULL || o == NULL)
        goto fail_o;
    cJSON_AddItemToArray(succ, o);
    cJSON_AddItemToObject(o, op_name, op);
    op = NULL;
    o = cJSON_CreateObject();
    rd = store__etcd_range(key, NULL, false);
    if (o == NULL || rd == NULL) {
        cJSON_Delete(rd);
        goto fail_o;
    }
    cJSON_AddItemToArray(fail, o);
    cJSON_AddItemToObject(o, "request_range", rd);
    return t;
fail_o:
    cJSON_Delete(o);
fail:
    cJSON_Delete(compare);
    cJSON_Delete(op);
    cJSON_Delete(t);
    return NULL;
}

cJSON *
store__etcd_txn_put(const char *key, const char *data, size_t len,
                    const char *expect_rev, const char *lease, struct err *e)
{
    cJSON *cmp = compare_for(key, expect_rev, e), *put;

    if (cmp == NULL)
        return NULL;
    put = cJSON_CreateObject();
    if (put == NULL || !add_b64(put, "key", key, strlen(key)) ||
        !add_b64(put, "value", data, len) ||
        (lease != NULL && lease[0] != '\0' &&
         !cJSON_AddStringToObject(put, "lease", lease))) {
        cJSON_Delete(put);
        cJSON_Delete(cmp);
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    return txn_of(key, cmp, "request_put", put);
}

cJSON *
store__etcd_txn_new(struct err *e)
{
    cJSON *t = cJSON_CreateObject();

    if (t == NULL || cJSON_AddArrayToObject(t, "compare") == NULL ||
        cJSON_AddArrayToObject(t, "success") == NULL) {
        cJSON_Delete(t);
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    return t;
}

int
store__etcd_txn_add(cJSON *t, cJSON *one, struct err *e)
{
    static const char *const parts[] = { "compare", "success" };

    if (one == NULL) /* its builder said why */
        return -1;
    for (size_t i = 0; i < 2; i++) {
        cJSON *from = cJSON_GetObjectItemCaseSensitive(one, parts[i]);
        cJSON *to = cJSON_GetObjectItemCaseSensitive(t, parts[i]);

        while (cJSON_GetArraySize(from) > 0)
            if (!cJSON_AddItemToArray(to,
                                      cJSON_DetachItemFromArray(from, 0))) {
                cJSON_Delete(one);
                return err_set(e, ERR_NOMEM, "out of memory");
            }
    }
    cJSON_Delete(one);
    return 0;
}

cJSON *
store__etcd_txn_del(const char *key, const char *expect_rev, struct err *e)
{
    cJSON *cmp = compare_for(key, expect_rev, e), *del;

    if (cmp == NULL)
        return NULL;
    del = cJSON_CreateObject();
    if (del == NULL || !add_b64(del, "key", key, strlen(key))) {
        cJSON_Delete(del);
        cJSON_Delete(cmp);
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    return txn_of(key, cmp, "request_delete_range", del);
}
