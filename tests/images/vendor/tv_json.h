/* tv_json.h - the small JSON reader and writer of the TLS test vendor
 * (tls_vendor.c). The vendor is a static binary and Debian ships no static
 * cJSON, so it carries its own: a tree parser with a depth and size cap,
 * lookups by key, and a growable output buffer with JSON string escaping.
 * Test-only.
 */
#ifndef TV_JSON_H
#define TV_JSON_H

#include <stddef.h>

enum tvj_type { TVJ_NULL, TVJ_BOOL, TVJ_NUM, TVJ_STR, TVJ_ARR, TVJ_OBJ };

struct tvj {
    enum tvj_type type;
    char *key;          /* member name inside an object, else NULL */
    char *str;          /* TVJ_STR: the unescaped text (NUL-terminated) */
    int truth;          /* TVJ_BOOL */
    struct tvj *child;  /* TVJ_ARR, TVJ_OBJ: first element or member */
    struct tvj *next;   /* next sibling */
};

/* tvj_parse: the tree of text[0..n), or NULL when it is not one JSON value
 * (or nests deeper than 64). Free with tvj_free. */
struct tvj *tvj_parse(const char *text, size_t n);
void tvj_free(struct tvj *j);

/* tvj_get: member `key` of object j (NULL when j is not an object or has
 * no such member). tvj_str: the string member `key`, or NULL. */
const struct tvj *tvj_get(const struct tvj *j, const char *key);
const char *tvj_str(const struct tvj *j, const char *key);

/* A growable byte buffer; on allocation failure the program exits (a test
 * vendor has nothing better to do). */
struct tvb {
    char *p;
    size_t len, cap;
};

void tvb_add(struct tvb *b, const char *s, size_t n);
void tvb_puts(struct tvb *b, const char *s);
void tvb_printf(struct tvb *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* tvb_json_str: s as a quoted JSON string literal. */
void tvb_json_str(struct tvb *b, const char *s);
void tvb_free(struct tvb *b);

#endif
