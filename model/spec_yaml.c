/* spec_yaml.c - libyaml events to spec_node trees, refusing hostile input
 * (see spec_node.h for the list) with a file:line:col for each refusal. */
#include "spec_node.h"

#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "spec_yaml_keys.h"
#include "utf8.h"

struct frame {
    struct spec_node *node;
    struct spec_node *key; /* mapping: key waiting for its value */
};

struct builder {
    const char *file;
    const char *data;
    size_t len;
    struct spec_errors *es;
    struct frame stack[SPEC_MAX_DEPTH + 1];
    size_t depth;
    size_t file_nodes; /* every node and document so far: never reset */
    size_t doc_nodes;  /* nodes of the current document */
    struct spec_node *root;
    struct spec_stream *out;
};

/* Position of byte `off` as 1-based line and column (columns count
 * characters, not bytes, like libyaml's marks). */
static void
spec_offset_pos(const char *data, size_t off, unsigned *line, unsigned *col)
{
    size_t i;

    *line = 1;
    *col = 1;
    for (i = 0; i < off; i++) {
        if (data[i] == '\n') {
            (*line)++;
            *col = 1;
        } else if (((unsigned char)data[i] & 0xC0) != 0x80) {
            (*col)++;
        }
    }
}

static int
builder_error(struct builder *b, yaml_mark_t m, const char *msg)
{
    return spec_errors_add_at(b->es, b->file, (unsigned)m.line + 1,
                              (unsigned)m.column + 1, NULL, "%s", msg);
}

/* A mapping is checked for repeated keys once it is complete, in
 * O(n log n) (spec_yaml_keys.c), not key by key against all before. */
static int
builder_check_keys(struct builder *b, const struct spec_node *map)
{
    size_t dup, first;
    int found = spec_yaml_find_duplicate_key(map, &dup, &first);

    if (found == 0)
        return 0;
    if (found == -1)
        return spec_errors_add(b->es, b->file, map, NULL, "out of memory");
    return spec_errors_add(b->es, b->file, map->pairs[dup].key, NULL,
                           "duplicate key \"%s\" (first at line %u)",
                           map->pairs[dup].key->value,
                           map->pairs[first].key->line);
}

/* Hang a finished node on its parent (or make it the document root). */
static int
builder_attach(struct builder *b, struct spec_node *n)
{
    struct frame *f;

    if (b->depth == 0) {
        b->root = n;
        return 0;
    }
    f = &b->stack[b->depth - 1];
    if (f->node->kind == SPEC_NODE_SEQ) {
        struct spec_node **items;

        if (f->node->n == f->node->cap) {
            size_t cap = f->node->cap ? f->node->cap * 2 : 8;

            items = realloc(f->node->items, cap * sizeof(*items));
            if (items == NULL)
                goto nomem;
            f->node->items = items;
            f->node->cap = cap;
        }
        f->node->items[f->node->n++] = n;
        return 0;
    }
    if (f->key == NULL) {
        if (n->kind != SPEC_NODE_SCALAR) {
            spec_errors_add(b->es, b->file, n, NULL,
                            "mapping keys must be plain strings");
            spec_node_free(n);
            return -1;
        }
        f->key = n;
        return 0;
    }
    if (spec_node_map_add(f->node, f->key, n) == -1) {
        f->key = NULL;
        return spec_errors_add(b->es, b->file, NULL, NULL, "out of memory");
    }
    f->key = NULL;
    return 0;
nomem:
    spec_node_free(n);
    return spec_errors_add(b->es, b->file, NULL, NULL, "out of memory");
}

/* [-+]?0[0-9]+: the one plain scalar YAML 1.1 and 1.2 read as different
 * integers (060 is 48 to kubectl, 60 to a 1.2 reader), so refused. */
static bool
builder_leading_zero(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    if (s[0] != '0' || s[1] == '\0')
        return false;
    for (s++; *s != '\0'; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* The budgets of spec_node.h: one for the whole file, so a file cannot
 * grow without bound by starting a new document, and one per document. */
static int
builder_count_in_file(struct builder *b, yaml_mark_t at)
{
    if (++b->file_nodes <= SPEC_MAX_FILE_NODES)
        return 0;
    return spec_errors_add_at(
        b->es, b->file, (unsigned)at.line + 1, (unsigned)at.column + 1, NULL,
        "file has too many nodes (limit %d in all its documents)",
        SPEC_MAX_FILE_NODES);
}

static int
builder_count_node(struct builder *b, yaml_mark_t at)
{
    if (builder_count_in_file(b, at) == -1)
        return -1;
    if (++b->doc_nodes <= SPEC_MAX_DOC_NODES)
        return 0;
    return spec_errors_add_at(b->es, b->file, (unsigned)at.line + 1,
                              (unsigned)at.column + 1, NULL,
                              "document has too many nodes (limit %d)",
                              SPEC_MAX_DOC_NODES);
}

static struct spec_node *
builder_new_node(struct builder *b, const yaml_event_t *ev)
{
    struct spec_node *n;
    unsigned line = (unsigned)ev->start_mark.line + 1;
    unsigned col = (unsigned)ev->start_mark.column + 1;

    if (builder_count_node(b, ev->start_mark) == -1)
        return NULL;
    if (ev->type == YAML_SCALAR_EVENT) {
        bool quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;

        if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length)) {
            builder_error(b, ev->start_mark, "NUL characters are not allowed");
            return NULL;
        }
        if (!quoted &&
            builder_leading_zero((const char *)ev->data.scalar.value)) {
            spec_errors_add_at(b->es, b->file, line, col, NULL,
                               "%s: an integer with a leading zero is "
                               "octal to kubectl (YAML 1.1) and decimal "
                               "here (YAML 1.2); write it without the "
                               "zero, or quote it for a string",
                               (const char *)ev->data.scalar.value);
            return NULL;
        }
        n = spec_node_new_scalar((const char *)ev->data.scalar.value, quoted,
                                 line, col);
    } else {
        n = calloc(1, sizeof(*n));
        if (n != NULL) {
            n->kind = ev->type == YAML_MAPPING_START_EVENT ? SPEC_NODE_MAP
                                                           : SPEC_NODE_SEQ;
            n->line = line;
            n->col = col;
        }
    }
    if (n == NULL)
        builder_error(b, ev->start_mark, "out of memory");
    return n;
}

/* Anchors, aliases and explicit tags are refused: aliases are how a tiny
 * file expands into a huge tree, and nothing in a spec needs them. */
static int
builder_check_props(struct builder *b, const yaml_event_t *ev)
{
    const yaml_char_t *anchor = NULL, *tag = NULL;

    if (ev->type == YAML_SCALAR_EVENT) {
        anchor = ev->data.scalar.anchor;
        tag = ev->data.scalar.tag;
    } else if (ev->type == YAML_SEQUENCE_START_EVENT) {
        anchor = ev->data.sequence_start.anchor;
        tag = ev->data.sequence_start.tag;
    } else if (ev->type == YAML_MAPPING_START_EVENT) {
        anchor = ev->data.mapping_start.anchor;
        tag = ev->data.mapping_start.tag;
    }
    if (anchor != NULL)
        return builder_error(b, ev->start_mark,
                             "anchors and aliases are not supported");
    if (tag != NULL)
        return builder_error(b, ev->start_mark,
                             "explicit tags are not supported");
    return 0;
}

static int
builder_push(struct builder *b, const yaml_event_t *ev)
{
    struct spec_node *n;

    if (b->depth == SPEC_MAX_DEPTH)
        return builder_error(b, ev->start_mark,
                             "nesting deeper than 64 levels");
    n = builder_new_node(b, ev);
    if (n == NULL)
        return -1;
    b->stack[b->depth].node = n;
    b->stack[b->depth].key = NULL;
    b->depth++;
    return 0;
}

static int
builder_pop(struct builder *b)
{
    struct frame *f = &b->stack[b->depth - 1];

    if (f->node->kind == SPEC_NODE_MAP && builder_check_keys(b, f->node) == -1)
        return -1; /* builder_unwind frees the frame */
    b->depth--;
    return builder_attach(b, f->node);
}

static int
builder_doc_end(struct builder *b)
{
    struct spec_stream *s = b->out;
    struct spec_node **docs;

    docs = realloc(s->docs, (s->n + 1) * sizeof(*docs));
    if (docs == NULL)
        return -1;
    s->docs = docs;
    docs[s->n++] = b->root; /* NULL for an empty document */
    b->root = NULL;
    b->doc_nodes = 0;
    return 0;
}

static int
builder_doc_start(struct builder *b, const yaml_event_t *ev)
{
    unsigned *lines;

    /* A document counts as a node: a file of empty documents is bounded
     * by the same budget as one of full ones. */
    if (builder_count_in_file(b, ev->start_mark) == -1)
        return -1;
    lines = realloc(b->out->doc_line, (b->out->n + 1) * sizeof(*lines));
    if (lines == NULL)
        return -1;
    b->out->doc_line = lines;
    lines[b->out->n] = (unsigned)ev->start_mark.line + 1;
    return 0;
}

static int
builder_event(struct builder *b, const yaml_event_t *ev)
{
    struct spec_node *n;

    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        return builder_doc_start(b, ev);
    case YAML_DOCUMENT_END_EVENT:
        return builder_doc_end(b);
    case YAML_ALIAS_EVENT:
        return builder_error(b, ev->start_mark,
                             "anchors and aliases are not supported");
    case YAML_SCALAR_EVENT:
        if (builder_check_props(b, ev) == -1)
            return -1;
        n = builder_new_node(b, ev);
        return n ? builder_attach(b, n) : -1;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        if (builder_check_props(b, ev) == -1)
            return -1;
        return builder_push(b, ev);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        return builder_pop(b);
    default:
        return 0;
    }
}

static void
builder_parser_error(struct builder *b, const yaml_parser_t *p)
{
    yaml_mark_t m = p->problem_mark;
    const char *what = p->problem ? p->problem : "malformed YAML";
    unsigned line, col;

    /* The reader (control characters, encoding) reports a byte offset and
     * leaves the mark at 0:0: turn the offset into the real line:col. */
    if (p->error == YAML_READER_ERROR) {
        spec_offset_pos(b->data, p->problem_offset < b->len
                                     ? p->problem_offset
                                     : b->len,
                        &line, &col);
        spec_errors_add_at(b->es, b->file, line, col, NULL,
                           "%s (byte 0x%02x)", what,
                           (unsigned)p->problem_value & 0xffu);
        return;
    }

    if (m.index < b->len && b->data[m.index] == '\t') {
        builder_error(b, m,
                      "tab characters are not allowed here; indent with "
                      "spaces");
        return;
    }
    if (p->context != NULL)
        spec_errors_add_at(b->es, b->file, (unsigned)m.line + 1,
                           (unsigned)m.column + 1, NULL, "%s %s", what,
                           p->context);
    else
        builder_error(b, m, what);
}

static void
builder_unwind(struct builder *b)
{
    while (b->depth > 0) {
        struct frame *f = &b->stack[--b->depth];

        spec_node_free(f->key);
        spec_node_free(f->node);
    }
    spec_node_free(b->root);
    b->root = NULL;
}

static int
spec_yaml_precheck(const char *file, const char *data, size_t len,
                   struct spec_errors *es)
{
    const char *nul;
    size_t bad;
    unsigned line, col;

    if (len > SPEC_MAX_FILE_BYTES)
        return spec_errors_add_at(es, file, 0, 0, NULL,
                                  "file is %zu bytes, over the 1 MiB limit",
                                  len);
    bad = utf8_bad_offset(data, len);
    if (bad < len) {
        spec_offset_pos(data, bad, &line, &col);
        return spec_errors_add_at(es, file, line, col, NULL,
                                  "invalid UTF-8 (byte 0x%02x)",
                                  (unsigned char)data[bad]);
    }
    nul = memchr(data, '\0', len);
    if (nul != NULL) {
        spec_offset_pos(data, (size_t)(nul - data), &line, &col);
        return spec_errors_add_at(es, file, line, col, NULL,
                                  "NUL characters are not allowed");
    }
    return 0;
}

/* A UTF-8 byte order mark at the start of the file (what some Windows
 * editors write) is skipped, as kubectl does; positions then count from
 * the first character after it, as editors show them. */
static void
spec_skip_bom(const char **data, size_t *len)
{
    if (*len >= 3 && memcmp(*data, "\xef\xbb\xbf", 3) == 0) {
        *data += 3;
        *len -= 3;
    }
}

int
spec_yaml_parse(const char *file, const char *data, size_t len,
                struct spec_stream *out, struct spec_errors *es)
{
    struct builder b = { .file = file, .es = es, .out = out };
    yaml_parser_t parser;
    yaml_event_t ev;
    int rc = 0, done = 0;

    memset(out, 0, sizeof(*out));
    spec_skip_bom(&data, &len);
    b.data = data;
    b.len = len;
    if (spec_yaml_precheck(file, data, len, es) == -1)
        return -1;
    if (!yaml_parser_initialize(&parser))
        return spec_errors_add_at(es, file, 0, 0, NULL, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
    yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
    while (!done) {
        if (!yaml_parser_parse(&parser, &ev)) {
            builder_parser_error(&b, &parser);
            rc = -1;
            break;
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        if (builder_event(&b, &ev) == -1) {
            rc = -1;
            done = 1;
        }
        yaml_event_delete(&ev);
    }
    builder_unwind(&b);
    yaml_parser_delete(&parser);
    return rc;
}

void
spec_stream_cleanup(struct spec_stream *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        spec_node_free(s->docs[i]);
    free(s->docs);
    free(s->doc_line);
    memset(s, 0, sizeof(*s));
}
