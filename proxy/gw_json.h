/* gw_json.h - a strict, bounded JSON reader over a body held whole: enough
 * to judge a request (its top-level members, the members of the objects of
 * an array) without building a tree, so a 32 MiB body costs no more than
 * its buffer. The gateway is a static binary, and Debian ships no static
 * JSON library.
 *
 * Pure code. Strict RFC 8259: one value, UTF-8 only (an invalid sequence,
 * an overlong form or a lone surrogate, raw or escaped, is an error),
 * no control characters in strings, no leading zeros, no trailing commas,
 * at most GW_JSON_DEPTH levels. Strict because a body two parsers read two
 * ways (ours lenient, the vendor's not) could carry past the policy what
 * the vendor then sees. Keys and strings come unescaped, so "m\u0063p" is
 * compared as "mcp".
 */
#ifndef GW_JSON_H
#define GW_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define GW_JSON_DEPTH 64

struct gw_json {
    const char *p, *end;
    unsigned depth;            /* containers open */
    bool first[GW_JSON_DEPTH]; /* no member or element read yet */
    const char *why;           /* static text, set on the first error */
};

void gw_json_init(struct gw_json *j, const char *p, size_t n);

/* The next value's first character: '{', '[', '"', 't', 'f', 'n', or '0'
 * for a number; 0 at the end or on an error. */
char gw_json_peek(struct gw_json *j);

/* Validate and pass over one value. 0, or -1 with why. */
int gw_json_skip(struct gw_json *j);

/* The value is an object (0) or an array (0); -1 with why otherwise. */
int gw_json_object_begin(struct gw_json *j);
int gw_json_array_begin(struct gw_json *j);

/* The next member of the open object: 1 with its key unescaped into key
 * (NUL-terminated; *cut when it did not fit) and the reader at its value,
 * which the caller reads or skips; 0 at the object's end; -1 on error. */
int gw_json_member(struct gw_json *j, char *key, size_t size, bool *cut);

/* The next element of the open array: 1 with the reader at it; 0 at the
 * end; -1 on error. */
int gw_json_element(struct gw_json *j);

/* A string value, unescaped into out (*cut when it did not fit); -1 with
 * why when the value is not a valid string. */
int gw_json_string(struct gw_json *j, char *out, size_t size, bool *cut);

/* Nothing but white space is left: 0, else -1 with why. */
int gw_json_finish(struct gw_json *j);

#endif
