/* spec_validate.c - check a spec_node tree against a compiled CRD schema,
 * as a Kubernetes API server would: types, enums, patterns, bounds,
 * required and unknown fields, oneOf, int-or-string quantities, defaults.
 * Every problem is reported with its field path and position. */
#include "spec_schema.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_quantity.h"

#define PATH_MAX_LEN 256

/* A field path built on the stack as the walk descends and printed only
 * when an error needs it ("spec.command[2]"): most documents have no
 * error, and formatting every path was a third of the validation time. */
struct vpath {
    const struct vpath *up; /* NULL at the document root */
    const char *key;        /* mapping key, or NULL for an array index */
    size_t index;
};

static size_t
vpath_format(const struct vpath *p, char *out, size_t size)
{
    size_t n = 0;
    int w;

    if (p == NULL || (p->up == NULL && p->key != NULL && p->key[0] == '\0')) {
        out[0] = '\0';
        return 0;
    }
    n = vpath_format(p->up, out, size);
    if (p->key != NULL)
        w = snprintf(out + n, size - n, "%s%s", n ? "." : "", p->key);
    else
        w = snprintf(out + n, size - n, "[%zu]", p->index);
    if (w < 0 || (size_t)w >= size - n)
        return size - 1;
    return n + (size_t)w;
}

struct vctx {
    const char *file;
    struct spec_errors *es;
    size_t errors;
};

static void validate(struct vctx *v, const struct spec_schema *s,
                     struct spec_node *n, const struct vpath *path);

static void verr(struct vctx *v, const struct spec_node *at,
                 const struct vpath *path, const char *fmt, ...)
    ERR_PRINTF(4, 5);

static void
verr(struct vctx *v, const struct spec_node *at, const struct vpath *path,
     const char *fmt, ...)
{
    char msg[sizeof(((struct err *)0)->msg)];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    char field[PATH_MAX_LEN];

    vpath_format(path, field, sizeof(field));
    v->errors++;
    spec_errors_add(v->es, v->file, at, field, "%s", msg);
}

static size_t
utf8_chars(const char *s)
{
    size_t n = 0;

    for (; *s != '\0'; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Quote a value for a message, cut to a readable length. */
static const char *
show(const struct spec_node *n, char *buf, size_t size)
{
    if (n->kind != SPEC_NODE_SCALAR)
        snprintf(buf, size, "%s", spec_node_type_name(n));
    else if (n->len > 40)
        snprintf(buf, size, "\"%.37s...\"", n->value);
    else
        snprintf(buf, size, "\"%s\"", n->value);
    return buf;
}

static bool
type_ok(enum spec_type t, const struct spec_node *n)
{
    switch (t) {
    case SPEC_T_ANY:
        return true;
    case SPEC_T_OBJECT:
        return n->kind == SPEC_NODE_MAP;
    case SPEC_T_ARRAY:
        return n->kind == SPEC_NODE_SEQ;
    case SPEC_T_STRING:
        return n->kind == SPEC_NODE_SCALAR && n->type == SPEC_SCALAR_STRING;
    case SPEC_T_INTEGER:
        return n->kind == SPEC_NODE_SCALAR && n->type == SPEC_SCALAR_INT;
    case SPEC_T_NUMBER:
        return n->kind == SPEC_NODE_SCALAR &&
               (n->type == SPEC_SCALAR_INT || n->type == SPEC_SCALAR_FLOAT);
    case SPEC_T_BOOLEAN:
        return n->kind == SPEC_NODE_SCALAR && n->type == SPEC_SCALAR_BOOL;
    }
    return false;
}

static const char *
type_phrase(enum spec_type t)
{
    static const char *const names[] = {
        [SPEC_T_ANY] = "a value",
        [SPEC_T_OBJECT] = "a mapping",
        [SPEC_T_ARRAY] = "a list",
        [SPEC_T_STRING] = "a string",
        [SPEC_T_INTEGER] = "an integer",
        [SPEC_T_NUMBER] = "a number",
        [SPEC_T_BOOLEAN] = "a boolean (true or false)",
    };
    return names[t];
}

static void
report_type(struct vctx *v, enum spec_type want, const struct spec_node *n,
            const struct vpath *path)
{
    char b[64];

    if (want == SPEC_T_STRING && n->kind == SPEC_NODE_SCALAR &&
        n->type != SPEC_SCALAR_NULL)
        verr(v, n, path, "expected a string, got %s %s (quote it)",
             spec_node_type_name(n), show(n, b, sizeof(b)));
    else
        verr(v, n, path, "expected %s, got %s", type_phrase(want),
             n->kind == SPEC_NODE_SCALAR
                 ? spec_node_type_name(n)
                 : type_phrase(n->kind == SPEC_NODE_MAP ? SPEC_T_OBJECT
                                                        : SPEC_T_ARRAY));
}

static void
check_enum(struct vctx *v, const struct spec_schema *s,
           const struct spec_node *n, const struct vpath *path)
{
    char list[200] = "", b[64];
    size_t len = 0;

    for (size_t i = 0; i < s->enum_values->n; i++)
        if (strcmp(s->enum_values->items[i]->value, n->value) == 0)
            return;
    for (size_t i = 0; i < s->enum_values->n && len < sizeof(list); i++)
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
                                i ? ", " : "", s->enum_values->items[i]->value);
    verr(v, n, path, "must be one of %s; got %s", list, show(n, b, sizeof(b)));
}

static void
check_pattern(struct vctx *v, const struct spec_schema *s,
              const struct spec_node *n, const struct vpath *path)
{
    char b[64];

    if (!s->has_re || regexec(&s->re, n->value, 0, NULL, 0) == 0)
        return;
    if (s->format != NULL && strcmp(s->format, "dns1123-label") == 0)
        verr(v, n, path,
             "expected a DNS-1123 label (lowercase letters, digits and '-', "
             "starting and ending with a letter or digit), got %s",
             show(n, b, sizeof(b)));
    else
        verr(v, n, path, "got %s, which does not match %s",
             show(n, b, sizeof(b)), s->pattern);
}

static void
check_string(struct vctx *v, const struct spec_schema *s,
             const struct spec_node *n, const struct vpath *path)
{
    size_t chars = utf8_chars(n->value);

    if (s->min_length >= 0 && chars < (size_t)s->min_length)
        verr(v, n, path, "must be at least %ld characters long", s->min_length);
    else if (s->max_length >= 0 && chars > (size_t)s->max_length)
        verr(v, n, path, "must be at most %ld characters long, got %zu",
             s->max_length, chars);
    else
        check_pattern(v, s, n, path);
}

static bool
number_in_range(const struct spec_schema *s, double x)
{
    if (s->has_min && (s->exclusive_min ? x <= s->minimum : x < s->minimum))
        return false;
    return !(s->has_max && x > s->maximum);
}

/* A bound as the CRD writes it: a whole number in full (1e15 is
 * "1000000000000000", not "1e+15"), anything else with %.15g. */
static const char *
show_bound(double x, char *buf, size_t size)
{
    if (x >= -9e18 && x <= 9e18 && x == (double)(long long)x)
        snprintf(buf, size, "%lld", (long long)x);
    else
        snprintf(buf, size, "%.15g", x);
    return buf;
}

static void
report_range(struct vctx *v, const struct spec_schema *s,
             const struct spec_node *n, const struct vpath *path)
{
    char b[64], lo[32], hi[32];

    show_bound(s->minimum, lo, sizeof(lo));
    show_bound(s->maximum, hi, sizeof(hi));
    if (s->has_min && s->has_max && s->exclusive_min)
        verr(v, n, path, "must be more than %s and at most %s, got %s", lo, hi,
             show(n, b, sizeof(b)));
    else if (s->has_min && s->has_max)
        verr(v, n, path, "must be between %s and %s, got %s", lo, hi,
             show(n, b, sizeof(b)));
    else if (s->has_min)
        verr(v, n, path, "must be %s %s, got %s",
             s->exclusive_min ? "more than" : "at least", lo,
             show(n, b, sizeof(b)));
    else
        verr(v, n, path, "must be at most %s, got %s", hi,
             show(n, b, sizeof(b)));
}

static void
check_integer(struct vctx *v, const struct spec_schema *s,
              const struct spec_node *n, const struct vpath *path)
{
    char *end, b[64];
    long long x;

    errno = 0;
    x = strtoll(n->value, &end, 10);
    if (errno == ERANGE || *end != '\0') {
        verr(v, n, path, "integer %s is out of range", show(n, b, sizeof(b)));
        return;
    }
    if (!number_in_range(s, (double)x))
        report_range(v, s, n, path);
}

/* The branch of an int-or-string `anyOf` that fits the node's type. */
static const struct spec_schema *
int_or_string_branch(const struct spec_schema *s, const struct spec_node *n)
{
    for (size_t i = 0; i < s->n_any_of; i++)
        if (s->any_of[i]->type != SPEC_T_ANY && type_ok(s->any_of[i]->type, n))
            return s->any_of[i];
    return NULL;
}

/* A quantity string: syntax from the pattern, then its value must fit and
 * respect the bounds the schema gives the integer form (in the same unit).
 * A structural CRD keeps both beside the bare int-or-string `anyOf`. */
static void
check_quantity(struct vctx *v, const struct spec_schema *s,
               const struct spec_node *n, const struct vpath *path)
{
    bool syntax_ok = !s->has_re || regexec(&s->re, n->value, 0, NULL, 0) == 0;
    struct err e;
    uint64_t milli;
    char b[64];

    if (!syntax_ok) {
        verr(v, n, path, "expected a quantity such as %s, got %s",
             (path->key != NULL && strcmp(path->key, "cpus") == 0)
                 ? "1.5 or 500m (at least 0.01 = 10m, Docker's minimum; at "
                   "most 3 decimals)"
                 : "512Mi",
             show(n, b, sizeof(b)));
        return;
    }
    if (spec_quantity_parse_milli(n->value, &milli, &e) == -1) {
        verr(v, n, path, "quantity %s: %s", show(n, b, sizeof(b)), e.msg);
        return;
    }
    if (!number_in_range(s, (double)milli / 1000.0))
        report_range(v, s, n, path);
}

static void
check_int_or_string(struct vctx *v, const struct spec_schema *s,
                    const struct spec_node *n, const struct vpath *path)
{
    const struct spec_schema *branch = int_or_string_branch(s, n);

    if (branch == NULL || n->kind != SPEC_NODE_SCALAR) {
        verr(v, n, path, "expected an integer or a string, got %s",
             spec_node_type_name(n));
        return;
    }
    if (branch->type == SPEC_T_INTEGER)
        check_integer(v, s, n, path);
    else /* every int-or-string of the CRD is a quantity (its header) */
        check_quantity(v, s, n, path);
}

static void
report_unknown(struct vctx *v, const struct spec_schema *s,
               const struct spec_node *key, const struct vpath *path)
{
    const char *best = NULL;
    size_t best_d = 3;

    /* The error list is full, so this one is only counted: skip the
     * suggestion, an edit distance per known field, which for thousands
     * of long unknown keys was most of a hostile file's cost. */
    if (v->es != NULL && v->es->n == SPEC_MAX_ERRORS) {
        verr(v, key, path, "unknown field");
        return;
    }
    for (size_t i = 0; i < s->nprops; i++) {
        size_t d = spec_edit_distance(key->value, s->props[i].name);

        if (d < best_d) {
            best_d = d;
            best = s->props[i].name;
        }
    }
    if (best != NULL)
        verr(v, key, path, "unknown field \"%s\" (did you mean \"%s\"?)",
             key->value, best);
    else
        verr(v, key, path, "unknown field \"%s\"", key->value);
}

static const struct spec_schema *
prop_schema(const struct spec_schema *s, const char *name)
{
    for (size_t i = 0; i < s->nprops; i++)
        if (strcmp(s->props[i].name, name) == 0)
            return s->props[i].schema;
    return NULL;
}

/* Add `default` values for absent properties, positioned at the mapping
 * so errors in a default (a CRD defect) still point somewhere. */
static void
apply_defaults(struct vctx *v, const struct spec_schema *s, struct spec_node *m,
               const struct vpath *path)
{
    for (size_t i = 0; i < s->nprops; i++) {
        const struct spec_schema *ps = s->props[i].schema;
        struct spec_node *key, *val;

        if (ps->dflt == NULL || spec_node_get(m, s->props[i].name) != NULL)
            continue;
        key = spec_node_new_scalar(s->props[i].name, true, m->line, m->col);
        val = spec_node_copy(ps->dflt);
        if (key == NULL || val == NULL ||
            spec_node_map_add(m, key, val) == -1) {
            spec_node_free(key);
            spec_node_free(val);
            verr(v, m, path, "out of memory");
            return;
        }
    }
}

static void
check_required(struct vctx *v, const struct spec_schema *s,
               const struct spec_node *m, const struct vpath *path)
{
    for (size_t i = 0; i < s->nrequired; i++) {
        struct vpath child = { path, s->required[i], 0 };

        if (spec_node_get(m, s->required[i]) != NULL)
            continue;
        verr(v, m, &child, "required field is missing");
    }
}

/* oneOf branches here only list required fields (structural schemas allow
 * nothing else there): exactly one branch must be satisfied. */
static void
check_one_of(struct vctx *v, const struct spec_schema *s,
             const struct spec_node *m, const struct vpath *path)
{
    char names[160] = "";
    size_t len = 0, matched = 0;

    if (s->n_one_of == 0)
        return;
    for (size_t i = 0; i < s->n_one_of; i++) {
        const struct spec_schema *b = s->one_of[i];
        bool ok = true;

        for (size_t k = 0; k < b->nrequired; k++) {
            ok = ok && spec_node_get(m, b->required[k]) != NULL;
            len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
                                    len ? ", " : "", b->required[k]);
            if (len >= sizeof(names))
                len = sizeof(names) - 1;
        }
        matched += ok;
    }
    if (matched == 0)
        verr(v, m, path, "one of %s is required", names);
    else if (matched > 1)
        verr(v, m, path, "only one of %s may be set", names);
}

/* minProperties and maxProperties. An empty mapping where one entry is
 * needed (vendorBudget: {}) names the fields it could hold. */
static void
check_property_count(struct vctx *v, const struct spec_schema *s,
                     const struct spec_node *m, const struct vpath *path)
{
    char names[160] = "";
    size_t len = 0;

    if (s->max_properties >= 0 && m->n > (size_t)s->max_properties)
        verr(v, m, path, "has %u entries, at most %ld are allowed", m->n,
             s->max_properties);
    if (s->min_properties < 0 || m->n >= (size_t)s->min_properties)
        return;
    if (s->min_properties > 1 || s->nprops == 0) {
        verr(v, m, path, "has %u entries, at least %ld are required", m->n,
             s->min_properties);
        return;
    }
    for (size_t i = 0; i < s->nprops && len < sizeof(names); i++)
        len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
                                i ? ", " : "", s->props[i].name);
    verr(v, m, path, "must not be empty: set at least one of %s", names);
}

static void
check_object(struct vctx *v, const struct spec_schema *s, struct spec_node *m,
             const struct vpath *path)
{
    apply_defaults(v, s, m, path);
    check_required(v, s, m, path);
    check_one_of(v, s, m, path);
    check_property_count(v, s, m, path);
    for (size_t i = 0; i < m->n; i++) {
        const char *k = m->pairs[i].key->value;
        const struct spec_schema *ps = prop_schema(s, k);

        struct vpath child = { path, k, 0 };

        if (ps == NULL)
            ps = s->additional;
        if (ps == NULL) {
            if (!s->preserve_unknown)
                report_unknown(v, s, m->pairs[i].key, &child);
            continue;
        }
        validate(v, ps, m->pairs[i].value, &child);
    }
}

static void
check_array(struct vctx *v, const struct spec_schema *s, struct spec_node *a,
            const struct vpath *path)
{
    if (s->min_items >= 0 && a->n < (size_t)s->min_items)
        verr(v, a, path, "must have at least %ld item%s", s->min_items,
             s->min_items == 1 ? "" : "s");
    if (s->max_items >= 0 && a->n > (size_t)s->max_items)
        verr(v, a, path, "has %u items, at most %ld are allowed", a->n,
             s->max_items);
    if (s->items == NULL)
        return;
    for (size_t i = 0; i < a->n; i++) {
        struct vpath child = { path, NULL, i };

        validate(v, s->items, a->items[i], &child);
    }
}

static void
validate(struct vctx *v, const struct spec_schema *s, struct spec_node *n,
         const struct vpath *path)
{
    if (s->int_or_string) {
        check_int_or_string(v, s, n, path);
        return;
    }
    if (!type_ok(s->type, n)) {
        report_type(v, s->type, n, path);
        return;
    }
    if (s->enum_values != NULL && n->kind == SPEC_NODE_SCALAR) {
        check_enum(v, s, n, path);
        return;
    }
    switch (s->type) {
    case SPEC_T_OBJECT:
        check_object(v, s, n, path);
        break;
    case SPEC_T_ARRAY:
        check_array(v, s, n, path);
        break;
    case SPEC_T_STRING:
        check_string(v, s, n, path);
        break;
    case SPEC_T_INTEGER:
        check_integer(v, s, n, path);
        break;
    case SPEC_T_NUMBER:
        if (!number_in_range(s, strtod(n->value, NULL)))
            report_range(v, s, n, path);
        break;
    default:
        break;
    }
}

size_t
spec_schema_validate(const struct spec_schema *s, const char *file,
                     struct spec_node *doc, struct spec_errors *es)
{
    struct vctx v = { .file = file, .es = es, .errors = 0 };

    struct vpath root = { NULL, "", 0 };

    validate(&v, s, doc, &root);
    return v.errors;
}
