/* spec_node.h - a YAML document as a small tree that remembers where each
 * node came from, so every later error can say file:line:col.
 *
 * spec_yaml_parse() builds the tree with libyaml and refuses hostile input
 * on the way (every input is capped): files over SPEC_MAX_FILE_BYTES,
 * nesting deeper than SPEC_MAX_DEPTH, more than SPEC_MAX_FILE_NODES nodes
 * in a file (every document counts as one more) or SPEC_MAX_DOC_NODES in
 * one document, anchors and aliases (no billion-laughs), duplicate keys
 * (found in O(n log n), spec_yaml_keys.c), non-scalar keys, invalid UTF-8
 * and tabs used as indentation. The file budgets never reset at `---`:
 * what a file costs to parse is bounded by the file, not by how many
 * documents it is cut into. docs/design.md lists them for users.
 */
#ifndef SPEC_NODE_H
#define SPEC_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define SPEC_MAX_FILE_BYTES (1024 * 1024)
#define SPEC_MAX_DEPTH      64
#define SPEC_MAX_FILE_NODES 100000
#define SPEC_MAX_DOC_NODES  20000
#define SPEC_MAX_ERRORS     50

enum spec_node_kind {
    SPEC_NODE_SCALAR,
    SPEC_NODE_MAP,
    SPEC_NODE_SEQ,
};

/* What a scalar means under the YAML 1.2 core schema. Quoted and block
 * scalars are always strings; `yes`/`no`/`on`/`off` are strings too. */
enum spec_scalar_type {
    SPEC_SCALAR_STRING,
    SPEC_SCALAR_INT,
    SPEC_SCALAR_FLOAT,
    SPEC_SCALAR_BOOL,
    SPEC_SCALAR_NULL,
};

struct spec_pair;

/* 48 bytes: a file may hold SPEC_MAX_FILE_NODES of them while it is
 * checked (a hostile one as much as a big valid one), so a byte here is
 * 100 KB of the parse's peak. len and n fit 32 bits under the file's
 * size and node budgets. */
struct spec_node {
    enum spec_node_kind kind;
    enum spec_scalar_type type; /* scalars */
    unsigned line, col; /* 1-based position of the node's first byte */
    /* scalars: NUL-terminated text as written (unescaped), in the node's
     * own allocation */
    char *value;
    uint32_t len;
    /* sequences: items[0..n); mappings: pairs[0..n) in file order */
    uint32_t n;
    uint32_t cap; /* slots allocated in items or pairs */
    union {
        struct spec_node **items; /* SPEC_NODE_SEQ */
        struct spec_pair *pairs;  /* SPEC_NODE_MAP */
    };
};

struct spec_pair {
    struct spec_node *key; /* always a scalar */
    struct spec_node *value;
};

/* Every error found in one file, in file order, capped at SPEC_MAX_ERRORS
 * (`dropped` counts the rest). */
struct spec_errors {
    struct err items[SPEC_MAX_ERRORS];
    size_t n;
    size_t dropped;
};

/* Add an error at a node's position. Returns -1. */
int spec_errors_add(struct spec_errors *es, const char *file,
                    const struct spec_node *at, const char *field,
                    const char *fmt, ...) ERR_PRINTF(5, 6);

/* Add an error at an explicit position. Returns -1. */
int spec_errors_add_at(struct spec_errors *es, const char *file, unsigned line,
                       unsigned col, const char *field, const char *fmt, ...)
    ERR_PRINTF(6, 7);

/* The documents of one YAML stream. */
struct spec_stream {
    struct spec_node **docs; /* NULL entries for empty documents */
    unsigned *doc_line;      /* 1-based line where each document starts */
    size_t n;
};

/* Parse len bytes named `file` (used in messages) into documents. On a
 * syntax or hostile-input error, fills es and returns -1; documents parsed
 * before the error are kept in out (the caller frees out either way). */
int spec_yaml_parse(const char *file, const char *data, size_t len,
                    struct spec_stream *out, struct spec_errors *es);

void spec_stream_cleanup(struct spec_stream *s);

/* Deep-free a node; NULL is a no-op. */
void spec_node_free(struct spec_node *n);

/* Deep copy; positions are kept. NULL when out of memory. */
struct spec_node *spec_node_copy(const struct spec_node *n);

/* Value of key in a mapping, or NULL (also when m is not a mapping). */
struct spec_node *spec_node_get(const struct spec_node *m, const char *key);

/* Find the pair whose key is `key`, or NULL. */
struct spec_pair *spec_node_pair(const struct spec_node *m, const char *key);

/* Append a pair to a mapping (takes both nodes). -1 when out of memory,
 * and then the nodes are freed. */
int spec_node_map_add(struct spec_node *m, struct spec_node *key,
                      struct spec_node *value);

/* A new scalar node (copied text, resolved type). NULL when out of memory. */
struct spec_node *spec_node_new_scalar(const char *text, bool quoted,
                                       unsigned line, unsigned col);

/* The value of a boolean scalar (true/True/TRUE, false/False/FALSE): the
 * one conversion every reader of a boolean uses. -1 when n is NULL or not
 * a boolean scalar (out untouched). */
int spec_node_bool(const struct spec_node *n, bool *out);

/* True only for a boolean scalar that says true; NULL and anything else
 * read as false. */
bool spec_node_is_true(const struct spec_node *n);

/* Levenshtein distance of two short names (99 past 62 characters): what
 * "unknown field ... (did you mean ...?)" messages pick the closest known
 * key by, in specs and in the controller config alike. */
size_t spec_edit_distance(const char *a, const char *b);

/* A valid environment variable name: [A-Za-z_][A-Za-z0-9_]*. */
bool spec_env_name_ok(const char *name);

/* "string", "integer", "number", "boolean", "null", "object", "array". */
const char *spec_node_type_name(const struct spec_node *n);

#endif
