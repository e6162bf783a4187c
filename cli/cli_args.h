/* cli_args.h - the one argument parser of agentctl: every command states
 * its flags in a table (struct cli_opt), and that table drives parsing
 * (getopt_long, so flags may come before or after the arguments, `--`
 * ends them, and --x=v, --x v, -xv and -x v all work), the generated
 * --help text and `agentctl completion`.
 *
 * The global flags (--specs, --state, --etcd, --etcd-prefix) are accepted
 * by every command too, after its name, as kubectl accepts its own. */
#ifndef CLI_ARGS_H
#define CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CLI_MAX_OPTS 24 /* a command's flags, globals included */

enum cli_opt_kind {
    CLI_OPT_FLAG,  /* no value: --prune */
    CLI_OPT_VALUE, /* one value, the last given wins: -o json */
    CLI_OPT_LIST,  /* repeatable, every value kept: -f a -f b */
    CLI_OPT_OPTIONAL, /* a value only as --x=v; bare --x reads as "" */
};

/* What a shell completes after the flag. */
enum cli_complete {
    CLI_COMPLETE_NONE,
    CLI_COMPLETE_FILE,
    CLI_COMPLETE_DIR,
    CLI_COMPLETE_WORDS, /* the space-separated words in cli_opt.words */
};

struct cli_opt {
    const char *name; /* long name without "--"; NULL ends a table */
    char short_name;  /* 0 when there is none */
    enum cli_opt_kind kind;
    const char *arg;  /* the value's placeholder in --help: "DURATION" */
    const char *help; /* one line */
    enum cli_complete complete;
    const char *words; /* for CLI_COMPLETE_WORDS */
};

/* The global flags, in the order --help lists them. */
extern const struct cli_opt cli_global_opts[];

/* One parsed command line. Values point into argv. */
struct cli_args {
    const char *cmd; /* the command's name */
    const struct cli_opt *opts[CLI_MAX_OPTS];
    size_t nopts;
    unsigned count[CLI_MAX_OPTS]; /* times each flag was given */
    const char *value[CLI_MAX_OPTS];
    char **list[CLI_MAX_OPTS]; /* CLI_OPT_LIST values (NULL-terminated) */
    char **pos;                /* the arguments that are not flags */
    size_t npos;
    bool help;
};

/* Parse argv[1..argc) of command cmd against opts plus the globals. On a
 * usage problem, print "error: ..." with a --help hint and return -1. The
 * caller calls cli_args_cleanup() either way. argv is permuted. */
int cli_args_parse(struct cli_args *a, const char *cmd,
                   const struct cli_opt *opts, int argc, char **argv);
void cli_args_cleanup(struct cli_args *a);

/* Whether flag NAME (long name) was given, and how often. */
bool cli_args_has(const struct cli_args *a, const char *name);
unsigned cli_args_count(const struct cli_args *a, const char *name);
/* The value of flag NAME, or dflt when it was not given. */
const char *cli_args_get(const struct cli_args *a, const char *name,
                         const char *dflt);
/* Every value of list flag NAME (NULL-terminated, never NULL) and how many. */
char *const *cli_args_list(const struct cli_args *a, const char *name,
                           size_t *n);

/* The options block of a --help text, generated from a table: opts and a
 * line pointing at the global ones; with opts NULL, the global ones. */
void cli_args_print_opts(const struct cli_opt *opts, FILE *out);

#endif
