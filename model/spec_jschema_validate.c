/* spec_jschema_validate.c - a parsed result against spec.output.schema
 * (the subset of spec_jschema.h). The walk descends only where the schema
 * does (properties, items, additionalProperties), so its depth is the
 * schema's, which spec_jschema_check bounded; a result deeper than its
 * schema is never walked. Every problem counts; the first few are kept
 * with their JSON paths ($.files[2].path). */
#include "spec_jschema.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define PATH_MAX_LEN 256

struct jval {
    cJSON *errors; /* may be NULL */
    size_t max_kept;
    size_t count;
};

static void
jerr(struct jval *v, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
jerr(struct jval *v, const char *path, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    cJSON *o;

    if (v->errors != NULL && v->count < v->max_kept &&
        (o = cJSON_CreateObject()) != NULL) {
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        cJSON_AddStringToObject(o, "path", path);
        cJSON_AddStringToObject(o, "message", msg);
        cJSON_AddItemToArray(v->errors, o);
    }
    v->count++;
}

static const char *
value_type(const cJSON *x)
{
    if (cJSON_IsObject(x))
        return "object";
    if (cJSON_IsArray(x))
        return "array";
    if (cJSON_IsString(x))
        return "string";
    if (cJSON_IsBool(x))
        return "boolean";
    if (cJSON_IsNull(x))
        return "null";
    if (cJSON_IsNumber(x)) /* whole and exact in a double: 2^53 */
        return x->valuedouble > -9007199254740992.0 &&
                       x->valuedouble < 9007199254740992.0 &&
                       x->valuedouble == (double)(long long)x->valuedouble
                   ? "integer"
                   : "number";
    return "unknown";
}

static bool
type_ok(const char *want, const cJSON *x)
{
    const char *got = value_type(x);

    return strcmp(want, got) == 0 ||
           (strcmp(want, "number") == 0 && strcmp(got, "integer") == 0);
}

/* A key as a JSON path step: .name when it is a plain word, else
 * ["..."] (cut to fit). */
static void
path_key(char *out, size_t size, const char *path, const char *key)
{
    bool plain = (key[0] != '\0' && strchr("0123456789", key[0]) == NULL);

    for (const char *k = key; *k != '\0' && plain; k++)
        plain = (*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
                (*k >= '0' && *k <= '9') || *k == '_' || *k == '-';
    if (plain)
        snprintf(out, size, "%s.%s", path, key);
    else
        snprintf(out, size, "%s[\"%.64s\"]", path, key);
}

/* Code points in a strict UTF-8 string: its bytes that are not
 * continuation bytes. */
static size_t
code_points(const char *s)
{
    size_t n = 0;

    for (; *s != '\0'; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static double
num(const cJSON *schema, const char *k, bool *has)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(schema, k);

    *has = cJSON_IsNumber(b);
    return *has ? b->valuedouble : 0;
}

static void validate(struct jval *v, const cJSON *s, const cJSON *x,
                     const char *path);

static void
check_numbers(struct jval *v, const cJSON *s, const cJSON *x, const char *path)
{
    double d = x->valuedouble, b;
    bool has;

    if ((b = num(s, "minimum", &has)), has && d < b)
        jerr(v, path, "%.17g is less than the minimum %.17g", d, b);
    if ((b = num(s, "maximum", &has)), has && d > b)
        jerr(v, path, "%.17g is more than the maximum %.17g", d, b);
    if ((b = num(s, "exclusiveMinimum", &has)), has && d <= b)
        jerr(v, path, "%.17g is not more than %.17g", d, b);
    if ((b = num(s, "exclusiveMaximum", &has)), has && d >= b)
        jerr(v, path, "%.17g is not less than %.17g", d, b);
}

static void
check_string(struct jval *v, const cJSON *s, const cJSON *x, const char *path)
{
    size_t n = code_points(x->valuestring);
    double b;
    bool has;

    if ((b = num(s, "minLength", &has)), has && (double)n < b)
        jerr(v, path, "has %zu characters, at least %.0f are required", n, b);
    if ((b = num(s, "maxLength", &has)), has && (double)n > b)
        jerr(v, path, "has %zu characters, at most %.0f are allowed", n, b);
}

static void
check_array(struct jval *v, const cJSON *s, const cJSON *x, const char *path)
{
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items");
    size_t n = (size_t)cJSON_GetArraySize(x), i = 0;
    char sub[PATH_MAX_LEN];
    const cJSON *it;
    double b;
    bool has;

    if ((b = num(s, "minItems", &has)), has && (double)n < b)
        jerr(v, path, "has %zu items, at least %.0f are required", n, b);
    if ((b = num(s, "maxItems", &has)), has && (double)n > b)
        jerr(v, path, "has %zu items, at most %.0f are allowed", n, b);
    if (!cJSON_IsObject(items))
        return;
    cJSON_ArrayForEach(it, x)
    {
        snprintf(sub, sizeof(sub), "%s[%zu]", path, i++);
        validate(v, items, it, sub);
    }
}

static void
check_object(struct jval *v, const cJSON *s, const cJSON *x, const char *path)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
    const cJSON *extra =
        cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required");
    char sub[PATH_MAX_LEN];
    const cJSON *it;

    cJSON_ArrayForEach(it, req)
    {
        if (cJSON_IsString(it) &&
            cJSON_GetObjectItemCaseSensitive(x, it->valuestring) == NULL) {
            path_key(sub, sizeof(sub), path, it->valuestring);
            jerr(v, sub, "is required");
        }
    }
    cJSON_ArrayForEach(it, x)
    {
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(props, it->string);

        path_key(sub, sizeof(sub), path, it->string);
        if (ps != NULL)
            validate(v, ps, it, sub);
        else if (cJSON_IsFalse(extra))
            jerr(v, sub, "is not allowed (additionalProperties is false)");
        else if (cJSON_IsObject(extra))
            validate(v, extra, it, sub);
    }
}

static void
check_enum(struct jval *v, const cJSON *e, const cJSON *x, const char *path)
{
    const cJSON *it;

    cJSON_ArrayForEach(it, e)
    {
        if (cJSON_Compare(it, x, true))
            return;
    }
    jerr(v, path, "is not one of the values of enum");
}

static void
validate(struct jval *v, const cJSON *s, const cJSON *x, const char *path)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(s, "type");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(s, "enum");

    if (cJSON_IsString(type) && !type_ok(type->valuestring, x)) {
        jerr(v, path, "must be %s %s, not %s",
             strchr("aeiou", type->valuestring[0]) ? "an" : "a",
             type->valuestring, value_type(x));
        return;
    }
    if (cJSON_IsArray(e))
        check_enum(v, e, x, path);
    if (cJSON_IsNumber(x))
        check_numbers(v, s, x, path);
    else if (cJSON_IsString(x))
        check_string(v, s, x, path);
    else if (cJSON_IsArray(x))
        check_array(v, s, x, path);
    else if (cJSON_IsObject(x))
        check_object(v, s, x, path);
}

size_t
spec_jschema_validate(const cJSON *schema, const cJSON *value, cJSON *errors,
                      size_t max_kept)
{
    struct jval v = { .errors = errors, .max_kept = max_kept, .count = 0 };

    validate(&v, schema, value, "$");
    return v.count;
}
