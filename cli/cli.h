/* cli.h - the parts of agentctl shared between its command files.
 *
 * agentctl.c parses argv with the command table (cli_commands.c, through
 * cli_args.c) and dispatches; each cli_*.c file implements a few commands. Commands print
 * results to stdout and errors to stderr and return the exit code:
 * CLI_OK, CLI_FAIL (invalid, not found, timed out, differs), CLI_USAGE.
 */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "ctl_record.h"

#include "cli_args.h"
#include "spec.h"
#include "store.h"

#define CLI_OK    0
#define CLI_FAIL  1
#define CLI_USAGE 2

#define CLI_KIND       "agentinvocation.agentctl.dev"
/* files all -f of one command may name, directories expanded: a bound
 * on what one command reads, never a silent cut (more is an error) */
#define CLI_MAX_INPUTS 16384

/* What every command gets: the global options and, for commands that
 * need it, the open store. */
struct cli {
    const char *specs; /* --specs / AGENTCTL_SPECS; NULL when not given */
    const char *state; /* --state / AGENTCTL_STATE; NULL = default */
    const char *etcd;  /* --etcd / AGENTCTL_ETCD: endpoint URLs, or NULL */
    const char *etcd_prefix; /* --etcd-prefix / AGENTCTL_ETCD_PREFIX */
    const char *etcd_cacert, *etcd_cert, *etcd_key; /* TLS, or NULL */
    const char *etcd_user, *etcd_password_file;     /* auth, or NULL */
    /* --kubeconfig / AGENTCTL_KUBECONFIG: the Kubernetes API server
     * store; --kube-context / AGENTCTL_KUBE_CONTEXT (NULL: current) */
    const char *kubeconfig, *kube_context;
    /* --specs, --etcd, --kubeconfig given on the command line (not only
     * in the environment): a flag beats another store's variable */
    bool specs_flag, etcd_flag, kube_flag;
    struct store *store;
};

/* One command, given its parsed command line (cli_args.h). */
typedef int cli_cmd_fn(struct cli *c, const struct cli_args *a);

cli_cmd_fn cli_validate, cli_apply, cli_diff, cli_get, cli_describe, cli_delete,
    cli_cancel, cli_logs, cli_changes, cli_wait, cli_explain, cli_completion,
    cli_version, cli_help, cli_result, cli_check;

/* --- cli_commands.c: the command table --- */

/* What a command does with the store: a reader opens it without creating
 * anything, so it works where the state directory may only be read. */
enum cli_store_use {
    CLI_STORE_NONE,
    CLI_STORE_READ,
    CLI_STORE_WRITE,
};

struct cli_command {
    const char *name;
    cli_cmd_fn *fn;
    enum cli_store_use store;
    const char *synopsis; /* after "agentctl NAME " in --help */
    const char *summary;  /* one line for `agentctl --help` */
    const char *about;    /* the paragraph of `agentctl NAME --help` */
    const struct cli_opt *opts;
    enum cli_complete args; /* WORDS: invocation names; FILE: paths */
};

extern const struct cli_command cli_commands[];
extern const size_t cli_ncommands;

/* Open c->store from the global options, for use (prints the error). */
int cli_open_store(struct cli *c, enum cli_store_use use);

/* Print "error: ...", usage hint, return CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* --- cli_input.c: the -f inputs of validate, apply and diff --- */

struct cli_input {
    struct spec_file *files;
    size_t n, cap;
    size_t invalid; /* files with errors */
    size_t docs;    /* valid documents in all files */
};

/* Load every path (a file, "-" for stdin, or a directory whose *.yaml,
 * *.yml and *.json files are read; its subdirectories too with
 * recursive). -1 with e when the inputs cannot be read whole (more than
 * CLI_MAX_INPUTS files, a directory that cannot be listed, out of
 * memory); a path that does not exist is an invalid file, not -1. */
int cli_input_load(char *const *paths, size_t npaths, bool recursive,
                   struct cli_input *in, struct err *e);
void cli_input_cleanup(struct cli_input *in);

/* Load the inputs a command line names: -f (repeatable), -R, and with
 * bare the arguments too (validate a.yaml b.yaml). CLI_OK, or the exit
 * code after printing why; in is cleaned up by the caller either way. */
int cli_input_from_args(const struct cli_args *a, bool bare,
                        struct cli_input *in);

/* -o of validate and diff: absent or json (else a usage error). */
int cli_json_output(const struct cli_args *a, bool *json);

/* Print every error of every file to stderr; also duplicate names across
 * files. When errors is not NULL, each error is also appended to it as
 * {file, line, column, field, message}. Returns the number of problems. */
size_t cli_input_report(const struct cli_input *in, cJSON *errors);

/* --- cli_selector.c: label selectors (-l) --- */

struct cli_selector;

/* NULL when text is not a selector (or out of memory). */
struct cli_selector *cli_selector_parse(const char *text);
void cli_selector_free(struct cli_selector *s);
/* Whether labels satisfy every requirement; a NULL selector matches all. */
bool cli_selector_match(const struct cli_selector *s,
                        const struct spec_kvlist *labels);
/* -l of a command line: *out is NULL when there is none. CLI_OK or the
 * usage error (printed). */
int cli_selector_from_args(const struct cli_args *a, struct cli_selector **out);

/* --- cli_names.c: the invocations a command line names --- */

struct cli_names {
    char **v; /* each once, in the order given */
    size_t n;
};

/* Add the arguments; the names of the documents of -f (after checking
 * them); or the stored invocations -l selects (all without -l). CLI_OK
 * or the exit code after printing why. */
int cli_names_add_args(struct cli_names *l, const struct cli_args *a);
int cli_names_from_input(struct cli_names *l, const struct cli_args *a);
int cli_names_select(struct cli *c, const struct cli_args *a,
                     struct cli_names *l);
void cli_names_cleanup(struct cli_names *l);

/* --- cli_jsonpath.c: -o jsonpath= and custom-columns= --- */

/* The kubectl JSONPath template tmpl applied to root. Caller frees; NULL
 * when tmpl is malformed. */
char *cli_jsonpath(const char *tmpl, const cJSON *root);
/* Whether tmpl parses (checked before anything is printed): NULL when
 * tmpl is a template cli_jsonpath() can render, else why (why[0..size),
 * "unclosed action \"{.a\""), which it returns. */
const char *cli_jsonpath_check(const char *tmpl, char *why, size_t size);
/* The filter test of a [?(TEST)] step (cli_jpfilter.c) on one node: -1
 * when TEST is malformed. */
int cli_jp_filter(const cJSON *node, const char *test, size_t len,
                  bool *match);

/* --- cli_yaml.c --- */

/* Block-style YAML of a JSON value (keys of resources in kubectl order,
 * strings quoted when they would read back as another type). Caller
 * frees; NULL when out of memory. */
char *cli_yaml_emit(const cJSON *doc);

/* Indented JSON (4 spaces) with the same key order. Caller frees. */
char *cli_json_emit(const cJSON *doc);

/* The bytes apply writes for inv: its canonical resource as YAML. */
char *cli_spec_yaml(const struct spec_invocation *inv);

/* --- cli_resource.c: the resource types of the command line --- */

/* agentinvocation and its plural, short and group-qualified names (the
 * CRD's), NULL-terminated. */
extern const char *const cli_invocation_words[];

/* What explain prints as node's description (root: the CRD's
 * openAPIV3Schema): the CRD's, or for the root metadata, which the CRD
 * may not describe, agentctl's own (cli_explain_desc.c). NULL: none. */
struct spec_node;
const char *cli_explain_description(const struct spec_node *root,
                                    const struct spec_node *node);

enum cli_resource {
    CLI_RES_INVOCATION,
    CLI_RES_POOL, /* the controllers' warm pools: get pool */
};

/* Which resource `get` lists, from its arguments pos[0..npos): a first
 * argument that names a type (pool, pools, or one of
 * cli_invocation_words), as kubectl's `get TYPE [NAME...]`, is that type
 * and *skip is 1; else the arguments are invocation names (*skip 0). */
enum cli_resource cli_get_resource(char *const *pos, size_t npos, size_t *skip);

/* kubectl's TYPE/NAME arguments ("agentinvocation.agentctl.dev/demo", as
 * get -o name prints them, "ai/demo", ...) made plain names in place.
 * CLI_FAIL (1) naming a type that is not an invocation's, CLI_USAGE (2)
 * for "TYPE/" without a name. */
int cli_resource_names(char **pos, size_t npos);

/* --- cli_pool.c: pool documents as rows --- */

/* One box of a pool document; the strings are borrowed from the
 * document (and its id). */
struct cli_pool_box {
    const char *name, *vendor, *state, *subnet; /* "<none>" when absent */
    const char *created_at;                     /* NULL when absent */
    const char *controller; /* the document's, else its id */
};

struct cli_pool_rows {
    struct cli_pool_box *v;
    size_t n;
};

/* Append the boxes of doc, the pool document called id, to rows. All or
 * nothing: -1 with e (rows unchanged) when doc is not a JSON object, its
 * boxes not an array, or a box not an object with a name. No boxes (or
 * boxes null) adds none. */
int cli_pool_add(struct cli_pool_rows *rows, const cJSON *doc, const char *id,
                 struct err *e);
/* By box name, then controller. */
void cli_pool_sort(struct cli_pool_rows *rows);
void cli_pool_rows_cleanup(struct cli_pool_rows *rows);

/* --- cli_get.c, cli_get_watch.c, cli_get_pool.c, cli_columns.c --- */

enum cli_get_out {
    GET_OUT_TABLE,
    GET_OUT_WIDE,
    GET_OUT_NAME,
    GET_OUT_JSON,
    GET_OUT_YAML,
    GET_OUT_JSONPATH,
    GET_OUT_COLUMNS,
};

struct cli_fieldsel;

/* How get prints, from its flags. */
struct cli_get {
    enum cli_get_out out;
    const char *tmpl; /* the JSONPath template or the custom-columns spec */
    bool show_labels, no_headers;
    struct cli_selector *sel;
    struct cli_fieldsel *fsel; /* --field-selector, or NULL */
    size_t width[10]; /* the table's column widths, kept for -w rows */
};

/* get's usage errors, found before the store is opened (-o, its JSONPath
 * template, --sort-by); fills g's output. CLI_OK or CLI_USAGE. */
int cli_get_usage(const struct cli_args *a, struct cli_get *g);
/* wait's (--for, --timeout, a name), likewise. */
int cli_wait_usage(const struct cli_args *a);

/* Print v[0..n) as g says; one: a single name was asked for (the resource
 * itself rather than a List). */
int cli_get_print(struct cli *c, struct cli_get *g, const struct store_spec *v,
                  size_t n, bool one);
/* One table row with the widths of the table printed before (-w); sp
 * with key NULL is one deleted since (nothing is recorded for it). */
void cli_get_table_row(struct cli *c, struct cli_get *g,
                       const struct store_spec *sp);
/* The stored invocations the arguments name (in that order), or that sel
 * matches. -1 when the store cannot be listed, CLI_FAIL when a name was
 * not found (reported when report; the others are in l), CLI_OK. */
int cli_get_list(struct cli *c, const struct cli_args *a,
                 const struct cli_selector *sel, bool report,
                 struct store_list *l);
/* get pool: the boxes of every pool document as g says (a's arguments
 * after the word pool). */
int cli_get_pool(struct cli *c, const struct cli_args *a, struct cli_get *g);
/* get -w: after the first output, print each change until interrupted;
 * first is what was printed. */
int cli_get_watch(struct cli *c, const struct cli_args *a, struct cli_get *g,
                  const struct store_list *first);

/* --- cli_get_sort.c: get --field-selector and --sort-by --- */

/* --field-selector of a's command line: metadata.name and status.phase
 * (the PHASE column's value) with =, == or !=, comma = and; *out NULL
 * when there is none. CLI_OK or the usage error (printed), which names
 * the supported fields for another one. */
int cli_fieldsel_from_args(const struct cli_args *a, struct cli_fieldsel **out);
void cli_fieldsel_free(struct cli_fieldsel *s);
/* Drop (and clean up) the entries of l that s does not match; s NULL
 * keeps every one. */
void cli_fieldsel_filter(struct cli *c, const struct cli_fieldsel *s,
                         struct store_list *l);
/* CLI_OK when path is a field path --sort-by takes (".a.b", "{.a.b}",
 * "a.b", ".a[0].b"), else the usage error (printed). */
int cli_sort_check(const char *path);
/* Order l by the value at path of each resource, kubectl's --sort-by:
 * the entries without it first, then numbers by value, strings
 * lexically; ties keep their order. */
int cli_sort_by(struct cli *c, const char *path, struct store_list *l);

struct cli_column {
    char *head, *path; /* path as a JSONPath template: "{.metadata.name}" */
};

struct cli_columns {
    struct cli_column *v;
    size_t n;
};

/* "NAME:.metadata.name,PHASE:.status.phase"; -1 when malformed. */
int cli_columns_parse(const char *spec, struct cli_columns *cols);
void cli_columns_print(const struct cli_columns *cols,
                       const cJSON *const *docs, size_t n, bool no_headers);
void cli_columns_cleanup(struct cli_columns *cols);

/* The whole resource as `get -o json` shows it: the canonical resource
 * plus uid/generation/creationTimestamp and status. Caller deletes. */
cJSON *cli_resource_full(struct cli *c, const struct store_spec *sp);
/* The PHASE column's value: Terminating for a deleted one whose cleanup
 * is pending, Invalid for a spec that does not validate, else the
 * status's phase (status_phase, Pending before a status). */
/* name was deleted and its cleanup is pending (store_terminating_get). */
bool cli_terminating(struct cli *c, const char *name);
const char *cli_phase_shown(const struct store_spec *sp,
                            const char *status_phase);

/* kubectl-style age of an RFC 3339 time: 5s, 3m, 2h, 4d. */
void cli_age(const char *rfc3339, char *out, size_t size);

/* Print a JSON value as json or yaml on stdout. */
int cli_print_doc(const cJSON *doc, const char *format);

/* kubectl's NotFound line on stderr; returns CLI_FAIL. */
int cli_not_found(const char *name);

/* get -o wide's RESULT cell of a status's result (the record's `result`,
 * cli_result.c): the problem of
 * an unusable result, "error" for a CLI that reported one, else the JSON
 * answer or the text's first line, cut to 40 characters; "<none>".
 * Caller frees. */
char *cli_result_cell(const cJSON *result);

/* The status document of name, or NULL when there is none (caller
 * deletes). */
cJSON *cli_status(struct cli *c, const char *name);

/* The status document st (NULL: none) as the typed attempt record
 * (model/ctl_record.h), which is how agentctl reads a status's fields:
 * r->present is false when there is none or it is no object. The caller
 * calls ctl_record_cleanup(). */
void cli_record_of(const cJSON *st, struct ctl_record *r);

/* Phase in status/<name>.json, or NULL (caller frees). */
char *cli_status_phase(struct cli *c, const char *name);

#endif
