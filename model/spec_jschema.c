/* spec_jschema.c - check that spec.output.schema stays inside the subset
 * the validator implements (spec_jschema.h), with every error at its
 * file:line:col. A hostile schema is bounded: SPEC_JSCHEMA_MAX_DEPTH
 * schemas deep and SPEC_JSCHEMA_MAX_NODES nodes, checked before anything
 * recurses into it. */
#include "spec_jschema.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define FIELD_MAX 300

static const char *const subset_types[] = {
    "object", "array", "string", "integer", "number", "boolean", "null", NULL,
};

struct jcheck {
    const char *file;
    struct spec_errors *es;
    size_t errors;
};

/* field.key, cut to fit (a message names where, it need not be whole) */
static void
sub_field(char *out, size_t size, const char *field, const char *key)
{
    int n = snprintf(out, size, "%s.", field);

    if (n >= 0 && (size_t)n < size)
        snprintf(out + n, size - (size_t)n, "%.*s", (int)(size - (size_t)n - 1),
                 key);
}

static void
jfail(struct jcheck *c, const struct spec_node *at, const char *field,
      const char *msg)
{
    spec_errors_add(c->es, c->file, at, field, "%s", msg);
    c->errors++;
}

/* Nodes in n, stopping once over the budget (so a huge tree costs no
 * more than the budget to count); -1 when deeper than max_depth. */
static long
count_nodes(const struct spec_node *n, unsigned depth, long budget)
{
    long total = 1;

    if (depth > SPEC_JSCHEMA_MAX_DEPTH * 2 + 2)
        return -1;
    for (uint32_t i = 0; n->kind != SPEC_NODE_SCALAR && i < n->n; i++) {
        const struct spec_node *child =
            n->kind == SPEC_NODE_MAP ? n->pairs[i].value : n->items[i];
        long sub = count_nodes(child, depth + 1, budget - total);

        if (sub < 0)
            return -1;
        total += sub + (n->kind == SPEC_NODE_MAP);
        if (total > budget)
            return total;
    }
    return total;
}

static bool
in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i] != NULL; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

static bool
is_number(const struct spec_node *v)
{
    return v->kind == SPEC_NODE_SCALAR &&
           (v->type == SPEC_SCALAR_INT || v->type == SPEC_SCALAR_FLOAT);
}

static bool
is_count(const struct spec_node *v)
{
    return v->kind == SPEC_NODE_SCALAR && v->type == SPEC_SCALAR_INT &&
           v->value[0] != '-';
}

static void check_schema(struct jcheck *c, const struct spec_node *n,
                         const char *field, unsigned depth);

static void
check_properties(struct jcheck *c, const struct spec_node *v,
                 const char *field, unsigned depth)
{
    char sub[FIELD_MAX];

    if (v->kind != SPEC_NODE_MAP) {
        jfail(c, v, field, "must be a mapping of property names to schemas");
        return;
    }
    for (uint32_t i = 0; i < v->n; i++) {
        sub_field(sub, sizeof(sub), field, v->pairs[i].key->value);
        check_schema(c, v->pairs[i].value, sub, depth + 1);
    }
}

static void
check_strings(struct jcheck *c, const struct spec_node *v, const char *field)
{
    if (v->kind != SPEC_NODE_SEQ) {
        jfail(c, v, field, "must be a list of property names");
        return;
    }
    for (uint32_t i = 0; i < v->n; i++)
        if (v->items[i]->kind != SPEC_NODE_SCALAR ||
            v->items[i]->type != SPEC_SCALAR_STRING)
            jfail(c, v->items[i], field, "must be a property name (a string)");
}

static void
check_enum(struct jcheck *c, const struct spec_node *v, const char *field)
{
    if (v->kind != SPEC_NODE_SEQ || v->n == 0) {
        jfail(c, v, field, "must be a non-empty list of values");
        return;
    }
    for (uint32_t i = 0; i < v->n; i++)
        if (v->items[i]->kind != SPEC_NODE_SCALAR)
            jfail(c, v->items[i], field,
                  "values must be strings, numbers, booleans or null (the "
                  "subset compares scalars only)");
}

/* One keyword and its value; field is the keyword's own path. */
static void
check_keyword(struct jcheck *c, const char *k, const struct spec_node *v,
              const char *field, unsigned depth)
{
    if (strcmp(k, "type") == 0) {
        if (v->kind != SPEC_NODE_SCALAR || !in_list(v->value, subset_types))
            jfail(c, v, field,
                  "must be one of object, array, string, integer, number, "
                  "boolean, null (one type: a list of types is not in the "
                  "subset)");
    } else if (strcmp(k, "properties") == 0) {
        check_properties(c, v, field, depth);
    } else if (strcmp(k, "required") == 0) {
        check_strings(c, v, field);
    } else if (strcmp(k, "items") == 0) {
        check_schema(c, v, field, depth + 1);
    } else if (strcmp(k, "additionalProperties") == 0) {
        if (!(v->kind == SPEC_NODE_SCALAR && v->type == SPEC_SCALAR_BOOL))
            check_schema(c, v, field, depth + 1);
    } else if (strcmp(k, "enum") == 0) {
        check_enum(c, v, field);
    } else if (strcmp(k, "minimum") == 0 || strcmp(k, "maximum") == 0 ||
               strcmp(k, "exclusiveMinimum") == 0 ||
               strcmp(k, "exclusiveMaximum") == 0) {
        if (!is_number(v))
            jfail(c, v, field, "must be a number");
    } else if (strcmp(k, "description") == 0 || strcmp(k, "title") == 0) {
        if (v->kind != SPEC_NODE_SCALAR)
            jfail(c, v, field, "must be a string");
    } else if (!is_count(v)) { /* minLength, maxLength, minItems, maxItems */
        jfail(c, v, field, "must be a whole number, 0 or more");
    }
}

static const char *const subset_keywords[] = {
    "type",      "properties", "required",  "additionalProperties",
    "items",     "enum",       "minimum",   "maximum",
    "exclusiveMinimum",        "exclusiveMaximum",
    "minLength", "maxLength",  "minItems",  "maxItems",
    "description", "title",    NULL,
};

static void
check_schema(struct jcheck *c, const struct spec_node *n, const char *field,
             unsigned depth)
{
    char sub[FIELD_MAX];

    if (depth > SPEC_JSCHEMA_MAX_DEPTH) {
        jfail(c, n, field, "schemas are nested too deep (at most 16 levels)");
        return;
    }
    if (n->kind != SPEC_NODE_MAP) {
        jfail(c, n, field, "a schema must be a mapping");
        return;
    }
    for (uint32_t i = 0; i < n->n; i++) {
        const char *k = n->pairs[i].key->value;

        sub_field(sub, sizeof(sub), field, k);
        if (!in_list(k, subset_keywords)) {
            char msg[400];

            snprintf(msg, sizeof(msg),
                     "%s is not in the subset agentctl validates (type, "
                     "properties, required, additionalProperties, items, "
                     "enum, minimum, maximum, exclusiveMinimum, "
                     "exclusiveMaximum, minLength, maxLength, minItems, "
                     "maxItems, description, title)",
                     k);
            jfail(c, n->pairs[i].key, sub, msg);
            continue;
        }
        check_keyword(c, k, n->pairs[i].value, sub, depth);
    }
}

size_t
spec_jschema_check(const char *file, const struct spec_node *n,
                   const char *field, struct spec_errors *es)
{
    struct jcheck c = { .file = file, .es = es, .errors = 0 };
    long nodes = count_nodes(n, 0, SPEC_JSCHEMA_MAX_NODES);

    if (nodes < 0) {
        jfail(&c, n, field, "nested too deep (at most 16 schema levels)");
        return c.errors;
    }
    if (nodes > SPEC_JSCHEMA_MAX_NODES) {
        jfail(&c, n, field, "too large (at most 2000 YAML nodes)");
        return c.errors;
    }
    check_schema(&c, n, field, 0);
    return c.errors;
}
