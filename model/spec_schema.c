/* spec_schema.c - compile the CRD's openAPIV3Schema into struct
 * spec_schema trees (refusing keywords we do not implement). The checks
 * themselves live in spec_validate.c. */
#include "spec_schema.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const known_keywords[] = {
    "type",
    "format",
    "pattern",
    "enum",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "oneOf",
    "anyOf",
    "default",
    "description",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-validations", /* CEL for an API server; see below */
    NULL,
};

struct compiler {
    const char *file;
    struct err *e;
};

static int
compile_fail(struct compiler *c, const struct spec_node *at, const char *msg,
             const char *what)
{
    return err_set_at(c->e, ERR_INVALID, c->file, at ? at->line : 0,
                      at ? at->col : 0, NULL, "%s%s", msg, what ? what : "");
}

static struct spec_schema *compile_schema(struct compiler *c,
                                          const struct spec_node *n);

static int
compile_number(struct compiler *c, const struct spec_node *v, double *out)
{
    char *end;

    if (v->kind != SPEC_NODE_SCALAR ||
        (v->type != SPEC_SCALAR_INT && v->type != SPEC_SCALAR_FLOAT))
        return compile_fail(c, v, "expected a number", NULL);
    errno = 0;
    *out = strtod(v->value, &end);
    if (errno != 0 || *end != '\0')
        return compile_fail(c, v, "bad number", NULL);
    return 0;
}

static int
compile_long(struct compiler *c, const struct spec_node *v, long *out)
{
    char *end;

    if (v->kind != SPEC_NODE_SCALAR || v->type != SPEC_SCALAR_INT)
        return compile_fail(c, v, "expected an integer", NULL);
    errno = 0;
    *out = strtol(v->value, &end, 10);
    if (errno != 0 || *end != '\0' || *out < 0)
        return compile_fail(c, v, "bad count", NULL);
    return 0;
}

static int
compile_bool(struct compiler *c, const struct spec_node *v, bool *out)
{
    if (spec_node_bool(v, out) == -1)
        return compile_fail(c, v, "expected true or false", NULL);
    return 0;
}

static int
compile_type(struct compiler *c, struct spec_schema *s,
             const struct spec_node *v)
{
    static const struct {
        const char *name;
        enum spec_type type;
    } types[] = {
        { "object", SPEC_T_OBJECT }, { "array", SPEC_T_ARRAY },
        { "string", SPEC_T_STRING }, { "integer", SPEC_T_INTEGER },
        { "number", SPEC_T_NUMBER }, { "boolean", SPEC_T_BOOLEAN },
    };

    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (v->kind == SPEC_NODE_SCALAR &&
            strcmp(v->value, types[i].name) == 0) {
            s->type = types[i].type;
            return 0;
        }
    }
    return compile_fail(c, v, "unknown type", NULL);
}

static int
compile_pattern(struct compiler *c, struct spec_schema *s,
                const struct spec_node *v)
{
    if (v->kind != SPEC_NODE_SCALAR)
        return compile_fail(c, v, "pattern must be a string", NULL);
    s->pattern = strdup(v->value);
    if (s->pattern == NULL ||
        regcomp(&s->re, v->value, REG_EXTENDED | REG_NOSUB) != 0)
        return compile_fail(c, v, "pattern is not a POSIX extended regex",
                            NULL);
    s->has_re = true;
    return 0;
}

static int
compile_props(struct compiler *c, struct spec_schema *s,
              const struct spec_node *v)
{
    if (v->kind != SPEC_NODE_MAP)
        return compile_fail(c, v, "properties must be a mapping", NULL);
    s->props = calloc(v->n ? v->n : 1, sizeof(*s->props));
    if (s->props == NULL)
        return compile_fail(c, v, "out of memory", NULL);
    for (size_t i = 0; i < v->n; i++) {
        struct spec_schema_prop *p = &s->props[s->nprops++];

        p->name = strdup(v->pairs[i].key->value);
        p->schema = compile_schema(c, v->pairs[i].value);
        if (p->name == NULL || p->schema == NULL)
            return -1;
    }
    return 0;
}

static int
compile_strings(struct compiler *c, const struct spec_node *v, char ***out,
                size_t *n)
{
    if (v->kind != SPEC_NODE_SEQ)
        return compile_fail(c, v, "expected a list of strings", NULL);
    *out = calloc(v->n ? v->n : 1, sizeof(**out));
    if (*out == NULL)
        return compile_fail(c, v, "out of memory", NULL);
    for (size_t i = 0; i < v->n; i++) {
        if (v->items[i]->kind != SPEC_NODE_SCALAR)
            return compile_fail(c, v->items[i], "expected a string", NULL);
        (*out)[(*n)++] = strdup(v->items[i]->value);
    }
    return 0;
}

static int
compile_list(struct compiler *c, const struct spec_node *v,
             struct spec_schema ***out, size_t *n)
{
    if (v->kind != SPEC_NODE_SEQ)
        return compile_fail(c, v, "expected a list of schemas", NULL);
    *out = calloc(v->n ? v->n : 1, sizeof(**out));
    if (*out == NULL)
        return compile_fail(c, v, "out of memory", NULL);
    for (size_t i = 0; i < v->n; i++)
        if (((*out)[(*n)++] = compile_schema(c, v->items[i])) == NULL)
            return -1;
    return 0;
}

static struct spec_schema *
compile_child(struct compiler *c, const struct spec_node *v)
{
    return compile_schema(c, v);
}

/* One keyword of a schema object. */
static int
compile_keyword(struct compiler *c, struct spec_schema *s, const char *k,
                const struct spec_node *v)
{
    if (strcmp(k, "type") == 0)
        return compile_type(c, s, v);
    if (strcmp(k, "format") == 0)
        return (s->format = strdup(v->value)) ? 0 : -1;
    if (strcmp(k, "pattern") == 0)
        return compile_pattern(c, s, v);
    if (strcmp(k, "enum") == 0) {
        s->enum_values = v;
        return v->kind == SPEC_NODE_SEQ ? 0
                                        : compile_fail(c, v, "bad enum", NULL);
    }
    if (strcmp(k, "minimum") == 0)
        return (s->has_min = true), compile_number(c, v, &s->minimum);
    if (strcmp(k, "maximum") == 0)
        return (s->has_max = true), compile_number(c, v, &s->maximum);
    if (strcmp(k, "exclusiveMinimum") == 0)
        return compile_bool(c, v, &s->exclusive_min);
    if (strcmp(k, "minLength") == 0)
        return compile_long(c, v, &s->min_length);
    if (strcmp(k, "maxLength") == 0)
        return compile_long(c, v, &s->max_length);
    if (strcmp(k, "minItems") == 0)
        return compile_long(c, v, &s->min_items);
    if (strcmp(k, "maxItems") == 0)
        return compile_long(c, v, &s->max_items);
    if (strcmp(k, "minProperties") == 0)
        return compile_long(c, v, &s->min_properties);
    if (strcmp(k, "maxProperties") == 0)
        return compile_long(c, v, &s->max_properties);
    if (strcmp(k, "properties") == 0)
        return compile_props(c, s, v);
    if (strcmp(k, "required") == 0)
        return compile_strings(c, v, &s->required, &s->nrequired);
    if (strcmp(k, "additionalProperties") == 0)
        return (s->additional = compile_child(c, v)) ? 0 : -1;
    if (strcmp(k, "items") == 0)
        return (s->items = compile_child(c, v)) ? 0 : -1;
    if (strcmp(k, "oneOf") == 0)
        return compile_list(c, v, &s->one_of, &s->n_one_of);
    if (strcmp(k, "anyOf") == 0)
        return compile_list(c, v, &s->any_of, &s->n_any_of);
    if (strcmp(k, "default") == 0)
        return (s->dflt = v), 0;
    if (strcmp(k, "x-kubernetes-int-or-string") == 0)
        return compile_bool(c, v, &s->int_or_string);
    if (strcmp(k, "x-kubernetes-preserve-unknown-fields") == 0)
        return compile_bool(c, v, &s->preserve_unknown);
    /* description; x-kubernetes-validations: agentctl does not evaluate
     * CEL, it enforces each rule of the CRD in C (the CRD's header). */
    return 0;
}

static bool
keyword_known(const char *k)
{
    for (size_t i = 0; known_keywords[i] != NULL; i++)
        if (strcmp(k, known_keywords[i]) == 0)
            return true;
    return false;
}

static void spec_schema_free(struct spec_schema *s);

static struct spec_schema *
compile_schema(struct compiler *c, const struct spec_node *n)
{
    struct spec_schema *s;

    if (n == NULL || n->kind != SPEC_NODE_MAP) {
        compile_fail(c, n, "a schema must be a mapping", NULL);
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        compile_fail(c, n, "out of memory", NULL);
        return NULL;
    }
    s->min_length = s->max_length = -1;
    s->min_items = s->max_items = -1;
    s->min_properties = s->max_properties = -1;
    for (size_t i = 0; i < n->n; i++) {
        const char *k = n->pairs[i].key->value;

        if (!keyword_known(k)) {
            compile_fail(
                c, n->pairs[i].key,
                "schema keyword not implemented by the validator: ", k);
            goto fail;
        }
        if (compile_keyword(c, s, k, n->pairs[i].value) == -1) {
            if (c->e != NULL && c->e->msg[0] == '\0')
                compile_fail(c, n->pairs[i].value, "out of memory", NULL);
            goto fail;
        }
    }
    return s;
fail:
    spec_schema_free(s);
    return NULL;
}

static void
spec_schema_free(struct spec_schema *s)
{
    size_t i;

    if (s == NULL)
        return;
    free(s->format);
    free(s->pattern);
    if (s->has_re)
        regfree(&s->re);
    for (i = 0; i < s->nprops; i++) {
        free(s->props[i].name);
        spec_schema_free(s->props[i].schema);
    }
    free(s->props);
    for (i = 0; i < s->nrequired; i++)
        free(s->required[i]);
    free(s->required);
    spec_schema_free(s->additional);
    spec_schema_free(s->items);
    for (i = 0; i < s->n_one_of; i++)
        spec_schema_free(s->one_of[i]);
    free(s->one_of);
    for (i = 0; i < s->n_any_of; i++)
        spec_schema_free(s->any_of[i]);
    free(s->any_of);
    free(s);
}

/* Walk spec.versions[0] of the CRD for the schema, group and kind. */
static int
crd_locate(struct compiler *c, struct spec_crd *crd,
           const struct spec_node *doc)
{
    const struct spec_node *spec = spec_node_get(doc, "spec");
    const struct spec_node *group = spec_node_get(spec, "group");
    const struct spec_node *names = spec_node_get(spec, "names");
    const struct spec_node *kind = spec_node_get(names, "kind");
    const struct spec_node *versions = spec_node_get(spec, "versions");
    const struct spec_node *v0, *schema;
    size_t n;

    if (group == NULL || kind == NULL || versions == NULL ||
        versions->kind != SPEC_NODE_SEQ || versions->n == 0)
        return compile_fail(c, doc, "not a CustomResourceDefinition", NULL);
    v0 = versions->items[0];
    schema = spec_node_get(spec_node_get(v0, "schema"), "openAPIV3Schema");
    if (schema == NULL || spec_node_get(v0, "name") == NULL)
        return compile_fail(c, v0, "version has no openAPIV3Schema", NULL);
    n = strlen(group->value) + strlen(spec_node_get(v0, "name")->value) + 2;
    crd->api_version = malloc(n);
    crd->kind = strdup(kind->value);
    if (crd->api_version == NULL || crd->kind == NULL)
        return compile_fail(c, doc, "out of memory", NULL);
    snprintf(crd->api_version, n, "%s/%s", group->value,
             spec_node_get(v0, "name")->value);
    crd->root = compile_schema(c, schema);
    return crd->root ? 0 : -1;
}

struct spec_crd *
spec_crd_load(const char *file, const char *yaml, size_t len, struct err *e)
{
    struct compiler c = { .file = file, .e = e };
    struct spec_errors es = { .n = 0 };
    struct spec_crd *crd;

    crd = calloc(1, sizeof(*crd));
    if (crd == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (spec_yaml_parse(file, yaml, len, &crd->stream, &es) == -1) {
        if (e != NULL)
            *e = es.items[0];
        goto fail;
    }
    if (crd->stream.n != 1 || crd->stream.docs[0] == NULL) {
        err_set_at(e, ERR_INVALID, file, 0, 0, NULL,
                   "expected exactly one CRD document");
        goto fail;
    }
    if (crd_locate(&c, crd, crd->stream.docs[0]) == -1)
        goto fail;
    return crd;
fail:
    spec_crd_free(crd);
    return NULL;
}

void
spec_crd_free(struct spec_crd *crd)
{
    if (crd == NULL)
        return;
    spec_schema_free(crd->root);
    free(crd->api_version);
    free(crd->kind);
    spec_stream_cleanup(&crd->stream);
    free(crd);
}

const struct spec_crd *
spec_crd_builtin(struct err *e)
{
    /* Compiled once and kept for the life of the process: it is read-only
     * after this point, and a CLI run or a controller uses it throughout. */
    static struct spec_crd *builtin;

    if (builtin == NULL)
        builtin = spec_crd_load("crds/agentinvocations.agentctl.dev.yaml",
                                spec_crd_yaml, spec_crd_yaml_len, e);
    return builtin;
}

const struct spec_schema *
spec_schema_find(const struct spec_schema *root, const char *path)
{
    const struct spec_schema *s = root;
    const char *p = path;

    while (s != NULL && *p != '\0') {
        size_t len = strcspn(p, ".");
        const struct spec_schema *next = NULL;

        for (size_t i = 0; i < s->nprops; i++)
            if (strlen(s->props[i].name) == len &&
                strncmp(s->props[i].name, p, len) == 0)
                next = s->props[i].schema;
        s = next;
        p += len;
        if (*p == '.')
            p++;
    }
    return s;
}
