/* spec_meta.c - Kubernetes ObjectMeta rules for labels and annotations.
 *
 * A CRD cannot describe metadata beyond `name` (the API server owns
 * ObjectMeta), so these are the API server's own rules, applied here
 * before the CRD schema sees the document: label keys are
 * [DNS-1123-subdomain/]name with name <= 63 characters of
 * [A-Za-z0-9._-] starting and ending alphanumeric; label values are empty
 * or the same shape; annotation keys follow label keys; annotations total
 * at most 256 KiB. Server-managed fields (uid, generation,
 * creationTimestamp, resourceVersion) are accepted and ignored, so the
 * output of `agentctl get NAME -o yaml` can be applied again.
 */
#include "spec_int.h"

#include <stdlib.h>
#include <string.h>

#define META_ANNOTATIONS_MAX (256 * 1024)

static const char *const server_fields[] = { "uid", "generation",
                                             "creationTimestamp",
                                             "resourceVersion", NULL };

static bool
is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

/* A label name or value: ([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?),
 * 1..63 characters. */
static bool
label_name_ok(const char *s, size_t len)
{
    if (len == 0 || len > 63 || !is_alnum(s[0]) || !is_alnum(s[len - 1]))
        return false;
    for (size_t i = 0; i < len; i++)
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

/* A DNS-1123 subdomain: lowercase labels of [a-z0-9-] joined by dots,
 * each starting and ending alphanumeric, at most 253 characters. */
static bool
subdomain_ok(const char *s, size_t len)
{
    size_t start = 0;

    if (len == 0 || len > 253)
        return false;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != '.') {
            if (!((s[i] >= 'a' && s[i] <= 'z') ||
                  (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
                return false;
            continue;
        }
        if (i == start || s[start] == '-' || s[i - 1] == '-')
            return false;
        start = i + 1;
    }
    return true;
}

static bool
label_key_ok(const char *key)
{
    const char *slash = strchr(key, '/');
    const char *name = slash ? slash + 1 : key;

    if (slash != NULL && !subdomain_ok(key, (size_t)(slash - key)))
        return false;
    return label_name_ok(name, strlen(name));
}

static bool
label_value_ok(const char *v)
{
    return v[0] == '\0' || label_name_ok(v, strlen(v));
}

static void
check_string_map(const char *file, const struct spec_node *m, const char *path,
                 bool labels, struct spec_errors *es)
{
    char field[300];
    size_t total = 0;

    if (m->kind != SPEC_NODE_MAP) {
        spec_errors_add(es, file, m, path, "expected a mapping of strings");
        return;
    }
    for (size_t i = 0; i < m->n; i++) {
        const struct spec_node *k = m->pairs[i].key, *v = m->pairs[i].value;

        snprintf(field, sizeof(field), "%s.%s", path, k->value);
        if (!label_key_ok(k->value))
            spec_errors_add(es, file, k, field,
                            "invalid key: expected [prefix/]name, name at "
                            "most 63 characters of letters, digits, '-', "
                            "'_' and '.', starting and ending with a letter "
                            "or digit");
        if (v->kind != SPEC_NODE_SCALAR || v->type != SPEC_SCALAR_STRING)
            spec_errors_add(es, file, v, field,
                            "expected a string, got %s (quote it)",
                            spec_node_type_name(v));
        else if (labels && !label_value_ok(v->value))
            spec_errors_add(es, file, v, field,
                            "invalid label value \"%s\": at most 63 "
                            "characters of letters, digits, '-', '_' and "
                            "'.', starting and ending with a letter or digit",
                            v->value);
        else
            total += k->len + v->len;
    }
    if (!labels && total > META_ANNOTATIONS_MAX)
        spec_errors_add(es, file, m, path,
                        "annotations total %zu bytes, over 256 KiB", total);
}

static bool
is_server_field(const char *k)
{
    for (size_t i = 0; server_fields[i] != NULL; i++)
        if (strcmp(k, server_fields[i]) == 0)
            return true;
    return false;
}

/* Remove pair i from a mapping, handing its value to the caller. */
static struct spec_node *
detach(struct spec_node *m, size_t i)
{
    struct spec_node *v = m->pairs[i].value;

    spec_node_free(m->pairs[i].key);
    memmove(&m->pairs[i], &m->pairs[i + 1],
            (m->n - i - 1) * sizeof(m->pairs[0]));
    m->n--;
    return v;
}

void
spec_meta_split(const char *file, struct spec_node *doc,
                struct spec_node **labels, struct spec_node **annotations,
                struct spec_errors *es)
{
    struct spec_node *meta = spec_node_get(doc, "metadata");
    size_t i = 0;

    *labels = *annotations = NULL;
    if (meta == NULL || meta->kind != SPEC_NODE_MAP)
        return; /* the schema reports it */
    while (i < meta->n) {
        const char *k = meta->pairs[i].key->value;

        if (strcmp(k, "labels") == 0 && *labels == NULL)
            *labels = detach(meta, i);
        else if (strcmp(k, "annotations") == 0 && *annotations == NULL)
            *annotations = detach(meta, i);
        else if (is_server_field(k))
            spec_node_free(detach(meta, i));
        else
            i++;
    }
    /* The CRD cannot say it (a structural schema may not restrict root
     * metadata beyond name's own value), but a name is what a spec is
     * stored, listed and deleted by. */
    if (spec_node_get(meta, "name") == NULL)
        spec_errors_add(es, file, meta, "metadata.name",
                        "required field is missing");
    if (*labels != NULL)
        check_string_map(file, *labels, "metadata.labels", true, es);
    if (*annotations != NULL)
        check_string_map(file, *annotations, "metadata.annotations", false, es);
}
