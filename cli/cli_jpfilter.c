/* cli_jpfilter.c - the filter of a kubectl JSONPath step, [?(TEST)]: TEST
 * is @PATH (the node has it) or @PATH OP LITERAL, OP one of == != < <= >
 * >=, LITERAL a quoted string, a number, true, false or null; PATH a
 * chain of .key, ['key'] and [N] from the node (no wildcards: one value
 * or none). A node without the path never matches a comparison (kubectl:
 * `?(@.x=="y")` skips items without x). */
#include "cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum jp_op { JP_HAS, JP_EQ, JP_NE, JP_LT, JP_LE, JP_GT, JP_GE };

/* The value at path[0..len) under v, NULL when absent; *bad on a
 * malformed path (read whole even when v is NULL: a syntax check). */
static const cJSON *
walk(const cJSON *v, const char *p, const char *end, bool *bad)
{
    while (p < end) {
        if (*p == '.') {
            const char *k = ++p;

            while (p < end && *p != '.' && *p != '[')
                p++;
            char key[256];

            if (p == k || (size_t)(p - k) >= sizeof(key))
                return *bad = true, NULL;
            memcpy(key, k, (size_t)(p - k));
            key[p - k] = '\0';
            v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, key)
                                  : NULL;
        } else if (*p == '[') {
            const char *close = memchr(p, ']', (size_t)(end - p));
            char *num_end;

            if (close == NULL)
                return *bad = true, NULL;
            if ((p[1] == '\'' || p[1] == '"') && close - p >= 3 &&
                close[-1] == p[1]) {
                char key[256];
                size_t n = (size_t)(close - p - 3);

                if (n >= sizeof(key))
                    return *bad = true, NULL;
                memcpy(key, p + 2, n);
                key[n] = '\0';
                v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, key)
                                      : NULL;
            } else {
                long i = strtol(p + 1, &num_end, 10);

                if (num_end != close || num_end == p + 1)
                    return *bad = true, NULL;
                /* an index past int is past every array (not wrapped) */
                v = cJSON_IsArray(v) && i >= 0 && i <= INT_MAX
                        ? cJSON_GetArrayItem(v, (int)i)
                        : NULL;
            }
            p = close + 1;
        } else {
            return *bad = true, NULL;
        }
    }
    return v;
}

/* The operator at p (skipping blanks): its length in *n, or -1. */
static int
op_at(const char *p, const char *end, size_t *n)
{
    static const struct {
        const char *s;
        enum jp_op op;
    } ops[] = { { "==", JP_EQ }, { "!=", JP_NE }, { "<=", JP_LE },
                { ">=", JP_GE }, { "<", JP_LT },  { ">", JP_GT } };

    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        size_t k = strlen(ops[i].s);

        if ((size_t)(end - p) >= k && memcmp(p, ops[i].s, k) == 0) {
            *n = k;
            return (int)ops[i].op;
        }
    }
    return -1;
}

/* Compare v (NULL: absent) with the literal lit[0..len): <0, 0, >0, or 2 when they are
 * not of one kind (never equal, never ordered); -1 sets *bad. */
static int
compare(const cJSON *v, const char *lit, size_t len, bool *bad)
{
    if (len >= 2 && (lit[0] == '"' || lit[0] == '\'') && lit[len - 1] == lit[0]) {
        if (!cJSON_IsString(v))
            return 2;
        size_t n = strlen(v->valuestring);
        int c = memcmp(v->valuestring, lit + 1, n < len - 2 ? n : len - 2);

        /* -1, 0 or 1: memcmp's byte difference could be 2, "unordered" */
        return c != 0 ? (c > 0) - (c < 0) : (n > len - 2) - (n < len - 2);
    }
    if (len == 4 && memcmp(lit, "true", 4) == 0)
        return cJSON_IsTrue(v) ? 0 : 2;
    if (len == 5 && memcmp(lit, "false", 5) == 0)
        return cJSON_IsFalse(v) ? 0 : 2;
    if (len == 4 && memcmp(lit, "null", 4) == 0)
        return cJSON_IsNull(v) ? 0 : 2;
    char num[64], *num_end;

    if (len == 0 || len >= sizeof(num))
        return *bad = true, 2;
    memcpy(num, lit, len);
    num[len] = '\0';
    double d = strtod(num, &num_end);

    if (*num_end != '\0')
        return *bad = true, 2;
    if (!cJSON_IsNumber(v))
        return 2;
    return (v->valuedouble > d) - (v->valuedouble < d);
}

static bool
holds(enum jp_op op, int c)
{
    switch (op) {
    case JP_EQ: return c == 0;
    case JP_NE: return c != 0;
    case JP_LT: return c != 2 && c < 0;
    case JP_LE: return c != 2 && c <= 0;
    case JP_GT: return c != 2 && c > 0;
    case JP_GE: return c != 2 && c >= 0;
    default: return false;
    }
}

int
cli_jp_filter(const cJSON *node, const char *test, size_t len, bool *match)
{
    const char *p = test, *end = test + len, *path_end;
    bool bad = false;
    size_t oplen = 0;
    int op = JP_HAS;

    while (p < end && *p == ' ')
        p++;
    if (p == end || *p != '@')
        return -1;
    path_end = ++p;
    /* the path ends where an operator could begin ("@.a=1" is refused
     * below, not read as a key "a=1") */
    while (path_end < end && strchr(" =!<>", *path_end) == NULL)
        path_end++;
    const cJSON *v = walk(node, p, path_end, &bad);
    const char *q = path_end;

    while (q < end && *q == ' ')
        q++;
    if (q < end && (op = op_at(q, end, &oplen)) == -1)
        return -1;
    if (bad)
        return -1;
    if (q == end) {
        *match = v != NULL;
        return 0;
    }
    q += oplen;
    while (q < end && *q == ' ')
        q++;
    while (end > q && end[-1] == ' ')
        end--;
    int c = compare(v, q, (size_t)(end - q), &bad);

    if (bad)
        return -1;
    *match = v != NULL && holds((enum jp_op)op, c);
    return 0;
}
