/* launch_json.h - the small strict JSON reader and writer of agent-launch's
 * MCP server (launch_mcp.c). The launcher is linked statically against the
 * C library alone (Debian ships no static cJSON), and one JSON-RPC message
 * of at most 1 MiB is small enough to hold as a tree.
 *
 * Pure code. Strict RFC 8259: one value, UTF-8 only (an invalid sequence,
 * an overlong form, a raw or escaped lone surrogate is an error), no
 * control characters in strings, no leading zeros, no trailing commas, at
 * most LAUNCH_JSON_DEPTH nested containers. A member name given twice is
 * kept twice; launch_json_get() returns the first.
 */
#ifndef LAUNCH_JSON_H
#define LAUNCH_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define LAUNCH_JSON_DEPTH 32

enum launch_json_type {
    LAUNCH_JSON_NULL,
    LAUNCH_JSON_FALSE,
    LAUNCH_JSON_TRUE,
    LAUNCH_JSON_NUMBER,
    LAUNCH_JSON_STRING,
    LAUNCH_JSON_ARRAY,
    LAUNCH_JSON_OBJECT,
};

/* One value. raw is the value's own text in the parsed input (borrowed:
 * valid while that input is), so a JSON-RPC id is echoed exactly as sent. */
struct launch_json {
    enum launch_json_type type;
    const char *raw;
    size_t raw_len;
    char *str;                 /* LAUNCH_JSON_STRING: unescaped, NUL-ended */
    size_t str_len;            /* may hold a NUL from \u0000 */
    char *key;                 /* member name inside an object, else NULL */
    size_t key_len;
    struct launch_json *child; /* first element or member */
    struct launch_json *next;  /* next sibling */
};

/* Parse text[0..len) as one JSON value. Returns the tree (caller frees with
 * launch_json_free; it borrows text), or NULL with *why set to a static
 * sentence (out of memory included) when the text is not strict JSON. */
struct launch_json *launch_json_parse(const char *text, size_t len,
                                      const char **why);
void launch_json_free(struct launch_json *v); /* NULL: no-op */

/* The first member of obj named key, or NULL (also when obj is NULL or
 * not an object). */
const struct launch_json *launch_json_get(const struct launch_json *obj,
                                          const char *key);

/* v is a string equal to s (NUL-terminated; no embedded NUL). */
bool launch_json_is_string(const struct launch_json *v, const char *s);

/* A growable output buffer with a cap: once an append would pass cap,
 * or memory runs out, failed is set and the text stops growing. */
struct launch_buf {
    char *p;
    size_t len, cap, max;
    bool failed;
};

void launch_buf_init(struct launch_buf *b, size_t max);
void launch_buf_cleanup(struct launch_buf *b);
void launch_buf_add(struct launch_buf *b, const char *s, size_t n);
void launch_buf_adds(struct launch_buf *b, const char *s);

/* Append s[0..n) as a JSON string, quotes included: '"', '\' and control
 * characters escaped, and every byte that is not part of valid UTF-8
 * replaced by U+FFFD, so any bytes (a runner's output) make strict JSON. */
void launch_json_put_string(struct launch_buf *b, const char *s, size_t n);

/* The length of the valid UTF-8 sequence at s[0..n) (1 to 4), or 0 when
 * it is not one (invalid lead, truncated, overlong, surrogate, too big). */
size_t launch_utf8_len(const unsigned char *s, size_t n);

#endif
