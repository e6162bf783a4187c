/* cli.h - the parts of agentctl shared between its command files.
 *
 * agentctl.c parses the global options and dispatches through one command
 * table; each cli_*.c file implements a few commands. Commands print
 * results to stdout and errors to stderr and return the exit code:
 * CLI_OK, CLI_FAIL (invalid, not found, timed out, differs), CLI_USAGE.
 */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "spec.h"
#include "store.h"

#define CLI_OK    0
#define CLI_FAIL  1
#define CLI_USAGE 2

#define CLI_KIND       "agentinvocation.agentctl.dev"
#define CLI_MAX_INPUTS 256 /* files one -f may name */

/* What every command gets: the global options and, for commands that
 * need it, the open store. */
struct cli {
    const char *specs; /* --specs / AGENTCTL_SPECS; NULL when not given */
    const char *state; /* --state / AGENTCTL_STATE; NULL = default */
    const char *etcd;  /* --etcd / AGENTCTL_ETCD: endpoint URLs, or NULL */
    const char *etcd_prefix; /* --etcd-prefix / AGENTCTL_ETCD_PREFIX */
    struct store *store;
};

/* One command: argv[0] is the command's name. */
typedef int cli_cmd_fn(struct cli *c, int argc, char **argv);

cli_cmd_fn cli_validate, cli_apply, cli_diff, cli_get, cli_describe, cli_delete,
    cli_cancel, cli_logs, cli_wait, cli_version;

/* Open c->store from the global options (prints the error). */
int cli_open_store(struct cli *c);

/* Help output shared by the commands: when argv holds -h or --help,
 * print usage to stdout and return true. */
bool cli_wants_help(int argc, char **argv, const char *usage);

/* Print "error: ...", usage hint, return CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* --- cli_input.c: the -f inputs of validate, apply and diff --- */

struct cli_input {
    struct spec_file *files;
    size_t n;
    size_t invalid; /* files with errors */
    size_t docs;    /* valid documents in all files */
};

/* Load every path (a file, "-" for stdin, or a directory whose *.yaml and
 * *.yml files are read, not recursively). -1 only for usage problems
 * (a path that does not exist is an invalid file, not -1). */
int cli_input_load(char **paths, size_t npaths, struct cli_input *in);
void cli_input_cleanup(struct cli_input *in);

/* Print every error of every file to stderr; also duplicate names across
 * files. When errors is not NULL, each error is also appended to it as
 * {file, line, column, field, message}. Returns the number of problems. */
size_t cli_input_report(const struct cli_input *in, cJSON *errors);

/* --- cli_yaml.c --- */

/* Block-style YAML of a JSON value (keys of resources in kubectl order,
 * strings quoted when they would read back as another type). Caller
 * frees; NULL when out of memory. */
char *cli_yaml_emit(const cJSON *doc);

/* Indented JSON (4 spaces) with the same key order. Caller frees. */
char *cli_json_emit(const cJSON *doc);

/* The bytes apply writes for inv: its canonical resource as YAML. */
char *cli_spec_yaml(const struct spec_invocation *inv);

/* --- cli_get.c --- */

/* The whole resource as `get -o json` shows it: the canonical resource
 * plus uid/generation/creationTimestamp and status. Caller deletes. */
cJSON *cli_resource_full(struct cli *c, const struct store_spec *sp);

/* kubectl-style age of an RFC 3339 time: 5s, 3m, 2h, 4d. */
void cli_age(const char *rfc3339, char *out, size_t size);

/* Print a JSON value as json or yaml on stdout. */
int cli_print_doc(const cJSON *doc, const char *format);

/* kubectl's NotFound line on stderr; returns CLI_FAIL. */
int cli_not_found(const char *name);

/* Phase in status/<name>.json, or NULL (caller frees). */
char *cli_status_phase(struct cli *c, const char *name);

#endif
