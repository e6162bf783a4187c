/* spec_model.c - load files of AgentInvocations: parse, check ObjectMeta,
 * check the CRD schema (with defaults), check the rules that span fields,
 * and build struct spec_invocation with its canonical JSON and hash. */
#include "spec_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "spec_jschema.h"
#include "spec_quantity.h"

/* Variables the controller sets in the agent's environment; a spec may not
 * set them (docs/design.md "Controller configuration"). */
static const char *const reserved_env[] = {
    "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
    "NO_PROXY",    "no_proxy",    "ALL_PROXY",  "all_proxy",
    "AGENT_PHASE", "HOME",        NULL,
};

static const char *const phase_names[] = {
    [SPEC_PHASE_PLANNING] = "planning", [SPEC_PHASE_QUESTIONS] = "questions",
    [SPEC_PHASE_REVIEW] = "review",     [SPEC_PHASE_EXECUTE] = "execute",
    [SPEC_PHASE_FIX] = "fix",
};

const char *
spec_phase_name(enum spec_phase p)
{
    return phase_names[p];
}

bool
spec_phase_writable(enum spec_phase p)
{
    return p == SPEC_PHASE_EXECUTE || p == SPEC_PHASE_FIX;
}

/* Rules that need more than one field, or the names of env keys, which
 * OpenAPI cannot state without CEL. */
static void
check_cross_fields(const char *file, const struct spec_node *doc,
                   struct spec_errors *es)
{
    const struct spec_node *spec = spec_node_get(doc, "spec");
    const struct spec_node *runner = spec_node_get(spec, "runner");
    const struct spec_node *phase = spec_node_get(spec, "phase");
    const struct spec_node *env = spec_node_get(spec, "env");
    const struct spec_node *schema =
        spec_node_get(spec_node_get(spec, "output"), "schema");
    char field[300];

    if (schema != NULL)
        spec_jschema_check(file, schema, "spec.output.schema", es);

    if (runner != NULL && spec_node_get(spec, "command") != NULL)
        spec_errors_add(es, file, runner, "spec.runner",
                        "runner is for prompt specs; with command, put the "
                        "whole argv in command");
    else if (runner != NULL && phase != NULL &&
             (strcmp(phase->value, "planning") == 0 ||
              strcmp(phase->value, "questions") == 0))
        spec_errors_add(es, file, runner, "spec.runner",
                        "phase %s has no runner (read, list and search "
                        "tools only)",
                        phase->value);
    for (size_t i = 0; env != NULL && env->kind == SPEC_NODE_MAP && i < env->n;
         i++) {
        const struct spec_node *k = env->pairs[i].key;

        snprintf(field, sizeof(field), "spec.env.%s", k->value);
        if (!spec_env_name_ok(k->value))
            spec_errors_add(es, file, k, field,
                            "not a valid variable name (letters, digits and "
                            "'_', not starting with a digit)");
        for (size_t r = 0; reserved_env[r] != NULL; r++)
            if (strcmp(k->value, reserved_env[r]) == 0)
                spec_errors_add(es, file, k, field,
                                "%s is set by the controller and cannot be "
                                "set in a spec",
                                k->value);
    }
}

static char *
dup_str(const struct spec_node *n)
{
    return n ? strdup(n->value) : NULL;
}

static int
to_argv(const struct spec_node *n, struct spec_argv *out)
{
    if (n == NULL)
        return 0;
    out->argv = calloc(n->n + 1, sizeof(char *));
    if (out->argv == NULL)
        return -1;
    for (out->n = 0; out->n < n->n; out->n++)
        if ((out->argv[out->n] = strdup(n->items[out->n]->value)) == NULL)
            return -1;
    return 0;
}

static int
kv_cmp(const void *a, const void *b)
{
    return strcmp(((const struct spec_kv *)a)->key,
                  ((const struct spec_kv *)b)->key);
}

static int
to_kvlist(const struct spec_node *n, struct spec_kvlist *out)
{
    if (n == NULL || n->n == 0)
        return 0;
    out->items = calloc(n->n, sizeof(*out->items));
    if (out->items == NULL)
        return -1;
    for (out->n = 0; out->n < n->n; out->n++) {
        out->items[out->n].key = strdup(n->pairs[out->n].key->value);
        out->items[out->n].value = strdup(n->pairs[out->n].value->value);
        if (out->items[out->n].key == NULL ||
            out->items[out->n].value == NULL) {
            out->n++;
            return -1;
        }
    }
    qsort(out->items, out->n, sizeof(*out->items), kv_cmp);
    return 0;
}

/* A validated int-or-string quantity in whole units, or in thousandths. */
static uint64_t
quantity(const struct spec_node *n, bool milli)
{
    uint64_t v = 0;

    if (n == NULL)
        return 0;
    if (n->type == SPEC_SCALAR_INT)
        return strtoull(n->value, NULL, 10) * (milli ? 1000 : 1);
    if (milli)
        spec_quantity_parse_milli(n->value, &v, NULL);
    else
        spec_quantity_parse(n->value, &v, NULL);
    return v;
}

static enum spec_phase
phase_of(const char *s)
{
    for (size_t i = 0; i < sizeof(phase_names) / sizeof(phase_names[0]); i++)
        if (strcmp(s, phase_names[i]) == 0)
            return (enum spec_phase)i;
    return SPEC_PHASE_PLANNING; /* unreachable: the schema has the enum */
}

/* spec.output.schema as compact JSON (what the controller validates
 * against and the adapters hand the CLI), and maxResultBytes. */
static int
fill_output_result(struct spec_invocation *inv, const struct spec_node *out)
{
    const struct spec_node *schema = spec_node_get(out, "schema");
    const struct spec_node *max = spec_node_get(out, "maxResultBytes");
    cJSON *j;

    inv->output_max_result_bytes =
        max != NULL ? quantity(max, false) : SPEC_RESULT_DEFAULT;
    if (schema == NULL)
        return 0;
    j = spec_json_from_node(schema);
    inv->output_schema = j != NULL ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    return inv->output_schema != NULL ? 0 : -1;
}

static int
fill_spec(struct spec_invocation *inv, const struct spec_node *spec)
{
    const struct spec_node *ws = spec_node_get(spec, "workspace");
    const struct spec_node *scratch = spec_node_get(spec, "scratch");
    const struct spec_node *res = spec_node_get(spec, "resources");
    const struct spec_node *cancel = spec_node_get(spec, "cancel");
    const struct spec_node *budget = spec_node_get(spec, "vendorBudget");

    inv->vendor = dup_str(spec_node_get(spec, "vendor"));
    inv->phase = phase_of(spec_node_get(spec, "phase")->value);
    inv->image = dup_str(spec_node_get(spec, "image"));
    inv->prompt = dup_str(spec_node_get(spec, "prompt"));
    inv->credential = dup_str(spec_node_get(spec, "credential"));
    inv->attempt = dup_str(spec_node_get(spec, "attempt"));
    if (to_argv(spec_node_get(spec, "command"), &inv->command) == -1 ||
        to_argv(spec_node_get(spec, "runner"), &inv->runner) == -1 ||
        to_kvlist(spec_node_get(spec, "env"), &inv->env) == -1)
        return -1;
    inv->has_workspace = ws != NULL;
    if (ws != NULL) {
        inv->workspace_source = dup_str(spec_node_get(ws, "source"));
        inv->workspace_bytes = quantity(spec_node_get(ws, "size"), false);
        inv->workspace_inodes = quantity(spec_node_get(ws, "inodes"), false);
    }
    inv->scratch_bytes = quantity(spec_node_get(scratch, "size"), false);
    inv->scratch_inodes = quantity(spec_node_get(scratch, "inodes"), false);
    inv->memory_bytes = quantity(spec_node_get(res, "memory"), false);
    inv->millicpus = quantity(spec_node_get(res, "cpus"), true);
    inv->pids = quantity(spec_node_get(res, "pids"), false);
    inv->deadline_seconds =
        (uint32_t)quantity(spec_node_get(spec, "deadlineSeconds"), false);
    inv->output_max_bytes = quantity(
        spec_node_get(spec_node_get(spec, "output"), "maxBytes"), false);
    if (fill_output_result(inv, spec_node_get(spec, "output")) == -1)
        return -1;
    /* A part left out stays 0: the controller's limit applies then. */
    inv->has_vendor_budget = budget != NULL;
    inv->vendor_requests = quantity(spec_node_get(budget, "requests"), false);
    inv->vendor_bytes = quantity(spec_node_get(budget, "bytes"), false);
    inv->vendor_tokens = quantity(spec_node_get(budget, "tokens"), false);
    inv->cancel = spec_node_is_true(cancel);
    if (inv->vendor == NULL || inv->image == NULL || inv->attempt == NULL)
        return -1;
    return 0;
}

/* {apiVersion, kind, metadata{name, labels, annotations}, spec}. */
static int
build_resource(struct spec_invocation *inv, const struct spec_node *doc,
               const struct spec_node *labels,
               const struct spec_node *annotations)
{
    cJSON *meta, *spec, *r;
    char *text;

    /* keys in canonical (sorted) order at every level, so the text is
     * what spec_resource() prints again */
    r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "apiVersion",
                            spec_node_get(doc, "apiVersion")->value);
    cJSON_AddStringToObject(r, "kind", spec_node_get(doc, "kind")->value);
    meta = cJSON_AddObjectToObject(r, "metadata");
    spec = spec_json_from_node(spec_node_get(doc, "spec"));
    if (r == NULL || meta == NULL || spec == NULL)
        goto fail;
    if (annotations != NULL && annotations->n > 0)
        cJSON_AddItemToObject(meta, "annotations",
                              spec_json_from_node(annotations));
    if (labels != NULL && labels->n > 0)
        cJSON_AddItemToObject(meta, "labels", spec_json_from_node(labels));
    cJSON_AddStringToObject(meta, "name", inv->name);
    cJSON_AddItemToObject(r, "spec", spec);
    text = cJSON_PrintUnformatted(spec);
    inv->resource_json = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    if (text == NULL || inv->resource_json == NULL) {
        cJSON_free(text);
        return -1;
    }
    spec_sha256_hex(text, strlen(text), inv->spec_hash);
    cJSON_free(text);
    return 0;
fail:
    cJSON_Delete(spec);
    cJSON_Delete(r);
    return -1;
}

static struct spec_invocation *
build_invocation(const char *file, unsigned line, const struct spec_node *doc,
                 const struct spec_node *labels,
                 const struct spec_node *annotations)
{
    struct spec_invocation *inv = calloc(1, sizeof(*inv));

    if (inv == NULL)
        return NULL;
    inv->file = strdup(file);
    inv->line = line;
    inv->name = dup_str(spec_node_get(spec_node_get(doc, "metadata"), "name"));
    if (inv->file == NULL || inv->name == NULL ||
        to_kvlist(labels, &inv->labels) == -1 ||
        to_kvlist(annotations, &inv->annotations) == -1 ||
        fill_spec(inv, spec_node_get(doc, "spec")) == -1 ||
        build_resource(inv, doc, labels, annotations) == -1) {
        spec_invocation_free(inv);
        return NULL;
    }
    return inv;
}

/* Check one document; append the invocation to f when it is valid. */
static void
load_document(struct spec_file *f, const struct spec_crd *crd,
              struct spec_node *doc, unsigned line)
{
    struct spec_node *labels = NULL, *annotations = NULL;
    struct spec_invocation *inv, **items;
    size_t before = f->errors.n + f->errors.dropped;

    if (doc == NULL ||
        (doc->kind == SPEC_NODE_SCALAR && doc->type == SPEC_SCALAR_NULL)) {
        spec_errors_add_at(&f->errors, f->path, line, 1, NULL,
                           "empty document");
        return;
    }
    if (doc->kind != SPEC_NODE_MAP) {
        spec_errors_add(&f->errors, f->path, doc, NULL,
                        "expected a mapping with apiVersion, kind, metadata "
                        "and spec, got %s",
                        spec_node_type_name(doc));
        return;
    }
    spec_meta_split(f->path, doc, &labels, &annotations, &f->errors);
    spec_schema_validate(crd->root, f->path, doc, &f->errors);
    if (f->errors.n + f->errors.dropped == before)
        check_cross_fields(f->path, doc, &f->errors);
    if (f->errors.n + f->errors.dropped == before) {
        inv = build_invocation(f->path, line, doc, labels, annotations);
        items = realloc(f->items, (f->n + 1) * sizeof(*items));
        if (inv == NULL || items == NULL) {
            spec_invocation_free(inv);
            spec_errors_add(&f->errors, f->path, doc, NULL, "out of memory");
        } else {
            f->items = items;
            f->items[f->n++] = inv;
        }
    }
    spec_node_free(labels);
    spec_node_free(annotations);
}

static void
add_duplicate(struct spec_file *f, size_t i, size_t j)
{
    spec_errors_add_at(&f->errors, f->path, f->items[i]->line, 1,
                       "metadata.name", "duplicate name \"%s\" (also at line %u)",
                       f->items[i]->name, f->items[j]->line);
}

struct name_pos {
    const char *name;
    size_t i; /* index in f->items */
};

static int
name_pos_cmp(const void *pa, const void *pb)
{
    const struct name_pos *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);

    return c != 0 ? c : (a->i > b->i) - (a->i < b->i);
}

/* Every pair (i, j < i) of one name, in the order of i then j, as the
 * pairwise loop found them; by sorting the names, so a big input of
 * 100,000 documents costs n log n, not n^2 / 2 strcmp. Past the error
 * cap only counted. Out of memory: the pairwise loop. */
static void
check_duplicate_names(struct spec_file *f)
{
    struct name_pos *v = calloc(f->n + 1, sizeof(*v));
    size_t *where = calloc(f->n + 1, sizeof(*where));
    size_t *start = calloc(f->n + 1, sizeof(*start));

    if (v == NULL || where == NULL || start == NULL) {
        for (size_t i = 0; i < f->n; i++)
            for (size_t j = 0; j < i; j++)
                if (strcmp(f->items[i]->name, f->items[j]->name) == 0)
                    add_duplicate(f, i, j);
        goto out;
    }
    for (size_t i = 0; i < f->n; i++)
        v[i] = (struct name_pos){ f->items[i]->name, i };
    qsort(v, f->n, sizeof(*v), name_pos_cmp);
    for (size_t k = 0; k < f->n; k++) {
        where[v[k].i] = k;
        start[k] = k > 0 && strcmp(v[k].name, v[k - 1].name) == 0
                       ? start[k - 1]
                       : k;
    }
    for (size_t i = 0; i < f->n; i++)
        for (size_t m = start[where[i]]; m < where[i]; m++) {
            if (f->errors.n == SPEC_MAX_ERRORS) {
                f->errors.dropped += where[i] - m;
                break;
            }
            add_duplicate(f, i, v[m].i);
        }
out:
    free(v);
    free(where);
    free(start);
}

/* Empty f without touching the error slots: struct spec_errors is tens of
 * kilobytes and clearing it per file was measurable; only n and dropped
 * say which slots hold errors. */
static void
spec_file_reset(struct spec_file *f)
{
    f->path = NULL;
    f->items = NULL;
    f->n = 0;
    f->errors.n = 0;
    f->errors.dropped = 0;
}

/* Errors come from several passes (parser, metadata, schema, names); show
 * them in file order. Insertion sort: stable, and there are at most 50. */
static void
sort_errors(struct spec_errors *es)
{
    for (size_t i = 1; i < es->n; i++) {
        struct err e = es->items[i];
        size_t j = i;

        while (j > 0 && (es->items[j - 1].line > e.line ||
                         (es->items[j - 1].line == e.line &&
                          es->items[j - 1].col > e.col))) {
            es->items[j] = es->items[j - 1];
            j--;
        }
        es->items[j] = e;
    }
}

int
spec_load_buffer(const char *name, const char *data, size_t len,
                 struct spec_file *f)
{
    const struct spec_crd *crd;
    struct spec_stream st;
    struct err e;

    spec_file_reset(f);
    f->path = strdup(name);
    if (f->path == NULL)
        return -1;
    crd = spec_crd_builtin(&e);
    if (crd == NULL) {
        spec_errors_add_at(&f->errors, name, 0, 0, NULL,
                           "built-in CRD is broken: %s", e.msg);
        return -1;
    }
    if (spec_yaml_parse(name, data, len, &st, &f->errors) == 0) {
        if (st.n == 0)
            spec_errors_add_at(&f->errors, name, 1, 1, NULL,
                               "file holds no documents");
        for (size_t i = 0; i < st.n; i++)
            load_document(f, crd, st.docs[i], st.doc_line[i]);
        check_duplicate_names(f);
    }
    sort_errors(&f->errors);
    spec_stream_cleanup(&st);
    return f->errors.n + f->errors.dropped == 0 ? 0 : -1;
}

/* Where the document starting at data[off] (a line's first byte) ends:
 * at the next line that starts a document ("---" then a blank, a line
 * end or the end), less the directive lines ("%YAML ...") just before
 * it, which belong to the next document. len when there is none. */
static size_t
doc_end(const char *data, size_t len, size_t off)
{
    size_t p = off, dir = len; /* dir: the first of the directive lines */

    while (p < len) {
        const char *nl = memchr(data + p, '\n', len - p);
        size_t next = nl ? (size_t)(nl - data) + 1 : len;

        size_t at = dir < p ? dir : p;

        /* at == off: only directives so far, this is their document */
        if (at > off && len - p >= 3 && memcmp(data + p, "---", 3) == 0 &&
            (p + 3 == len || strchr(" \t\r\n", data[p + 3]) != NULL))
            return at;
        dir = data[p] == '%' ? at : len;
        p = next;
    }
    return len;
}

static unsigned
count_lines(const char *data, size_t len)
{
    unsigned n = 0;

    for (const char *p = data; (p = memchr(p, '\n', len - (size_t)(p - data)));
         p++)
        n++;
    return n;
}

/* One document of a big input (with the comments and blank lines around
 * it), checked as a file of its own that starts at line `line`: its
 * errors and invocations are moved to where they are in the input. */
static void
load_chunk(struct spec_file *f, const struct spec_crd *crd, const char *data,
           size_t len, unsigned line)
{
    size_t first_err = f->errors.n, first_item = f->n;
    struct spec_stream st;

    if (len > SPEC_MAX_FILE_BYTES) {
        spec_errors_add_at(&f->errors, f->path, line, 1, NULL,
                           "document is %zu bytes, over the 1 MiB limit", len);
        return;
    }
    if (spec_yaml_parse(f->path, data, len, &st, &f->errors) == 0)
        for (size_t i = 0; i < st.n; i++)
            load_document(f, crd, st.docs[i], st.doc_line[i]);
    spec_stream_cleanup(&st);
    for (size_t i = first_err; i < f->errors.n; i++)
        if (f->errors.items[i].line > 0)
            f->errors.items[i].line += line - 1;
    for (size_t i = first_item; i < f->n; i++)
        f->items[i]->line += line - 1;
}

int
spec_load_input(const char *name, const char *data, size_t len,
                struct spec_file *f)
{
    const struct spec_crd *crd;
    struct err e;
    size_t off = 0, docs = 0;
    unsigned line = 1;

    if (len <= SPEC_MAX_FILE_BYTES) /* a file of the watched directory */
        return spec_load_buffer(name, data, len, f);
    spec_file_reset(f);
    if ((f->path = strdup(name)) == NULL)
        return -1;
    if ((crd = spec_crd_builtin(&e)) == NULL)
        return spec_errors_add_at(&f->errors, name, 0, 0, NULL,
                                  "built-in CRD is broken: %s", e.msg);
    if (len > SPEC_MAX_INPUT_BYTES)
        return spec_errors_add_at(&f->errors, name, 0, 0, NULL,
                                  "input is over the 64 MiB limit");
    /* counted first: too many is refused before anything is parsed */
    for (size_t end; off < len; off = end) {
        end = doc_end(data, len, off);
        if (++docs > SPEC_MAX_INPUT_DOCS)
            return spec_errors_add_at(&f->errors, name,
                                      count_lines(data, off) + 1, 1, NULL,
                                      "input has more than %d documents",
                                      SPEC_MAX_INPUT_DOCS);
    }
    for (size_t end = off = 0; off < len; off = end) {
        end = doc_end(data, len, off);
        load_chunk(f, crd, data + off, end - off, line);
        line += count_lines(data + off, end - off);
    }
    if (f->n == 0 && f->errors.n + f->errors.dropped == 0)
        spec_errors_add_at(&f->errors, name, 1, 1, NULL,
                           "file holds no documents");
    check_duplicate_names(f);
    sort_errors(&f->errors);
    return f->errors.n + f->errors.dropped == 0 ? 0 : -1;
}

/* Read path (at most max bytes) and load it with spec_load_buffer, or
 * with input spec_load_input. */
static int
load_path(const char *path, size_t max, bool input, struct spec_file *f)
{
    struct buf b;
    char chunk[65536];
    ssize_t got;
    int fd, rc;

    buf_init(&b, max);
    /* O_NONBLOCK: opening a FIFO that has no writer waits for one without
     * it (agentctl validate -f FIFO hung for ever). Once open, reads
     * block again: a pipe with a writer (-f <(cmd)) is read to its end,
     * a FIFO with none reads as empty at once. */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd == -1 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == -1)
        goto io_fail;
    while ((got = read(fd, chunk, sizeof(chunk))) != 0) {
        if (got == -1 && errno == EINTR)
            continue;
        if (got == -1)
            goto io_fail;
        if (buf_append(&b, chunk, (size_t)got, NULL) == -1) {
            close(fd);
            buf_cleanup(&b);
            spec_file_reset(f);
            f->path = strdup(path);
            spec_errors_add_at(&f->errors, path, 0, 0, NULL,
                               input ? "input is over the 64 MiB limit"
                                     : "file is over the 1 MiB limit");
            return -1;
        }
    }
    close(fd);
    rc = input ? spec_load_input(path, b.data ? b.data : "", b.len, f)
               : spec_load_buffer(path, b.data ? b.data : "", b.len, f);
    buf_cleanup(&b);
    return rc;
io_fail:
    rc = errno;
    if (fd != -1)
        close(fd);
    buf_cleanup(&b);
    spec_file_reset(f);
    f->path = strdup(path);
    spec_errors_add_at(&f->errors, path, 0, 0, NULL, "cannot read: %s",
                       strerror(rc));
    return -1;
}

int
spec_load_file(const char *path, struct spec_file *f)
{
    return load_path(path, SPEC_MAX_FILE_BYTES, false, f);
}

int
spec_load_input_file(const char *path, struct spec_file *f)
{
    return load_path(path, SPEC_MAX_INPUT_BYTES, true, f);
}

static void
kvlist_free(struct spec_kvlist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->items[i].key);
        free(l->items[i].value);
    }
    free(l->items);
}

static void
argv_free(struct spec_argv *a)
{
    for (size_t i = 0; a->argv != NULL && i < a->n; i++)
        free(a->argv[i]);
    free(a->argv);
}

struct spec_invocation *
spec_invocation_ref(struct spec_invocation *inv)
{
    inv->refs++;
    return inv;
}

void
spec_invocation_free(struct spec_invocation *inv)
{
    if (inv == NULL)
        return;
    if (inv->refs > 0) {
        inv->refs--;
        return;
    }
    free(inv->name);
    kvlist_free(&inv->labels);
    kvlist_free(&inv->annotations);
    free(inv->vendor);
    free(inv->image);
    argv_free(&inv->command);
    free(inv->prompt);
    cJSON_free(inv->output_schema);
    argv_free(&inv->runner);
    kvlist_free(&inv->env);
    free(inv->credential);
    free(inv->workspace_source);
    free(inv->attempt);
    cJSON_free(inv->resource_json);
    free(inv->file);
    free(inv);
}

struct spec_invocation *
spec_file_take(struct spec_file *f, size_t i)
{
    struct spec_invocation *inv = f->items[i];

    f->items[i] = NULL;
    return inv;
}

void
spec_file_cleanup(struct spec_file *f)
{
    for (size_t i = 0; i < f->n; i++)
        spec_invocation_free(f->items[i]);
    free(f->items);
    free(f->path);
    spec_file_reset(f);
}

void
spec_file_print_errors(const struct spec_file *f, FILE *out)
{
    char line[600];

    for (size_t i = 0; i < f->errors.n; i++)
        fprintf(out, "%s\n",
                err_format(&f->errors.items[i], line, sizeof(line)));
    if (f->errors.dropped > 0)
        fprintf(out, "%s: %zu more errors not shown\n", f->path,
                f->errors.dropped);
}
