/* agentctl.c - the command-line client: global options, the command table
 * and dispatch (relayctl/parser.c style). The commands live in cli_*.c.
 *
 *   agentctl [--specs DIR | --etcd URL[,URL] [--etcd-prefix P]]
 *            [--state DIR] COMMAND [ARGS]
 *
 * The specs directory comes from --specs or AGENTCTL_SPECS, the state
 * directory from --state or AGENTCTL_STATE (default <specs>/.agentctl);
 * etcd from --etcd / AGENTCTL_ETCD and --etcd-prefix /
 * AGENTCTL_ETCD_PREFIX (default /agentctl).
 */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cli_command {
    const char *name;
    cli_cmd_fn *fn;
    bool needs_store;
    const char *summary;
};

static const struct cli_command commands[] = {
    { "validate", cli_validate, false, "check spec files (0 valid, 1 not)" },
    { "apply", cli_apply, true, "write specs into the store" },
    { "diff", cli_diff, true, "show what apply would change" },
    { "get", cli_get, true, "list invocations or show one" },
    { "describe", cli_describe, true, "show one invocation in detail" },
    { "delete", cli_delete, true, "remove an invocation's spec" },
    { "cancel", cli_cancel, true, "stop the running attempt" },
    { "logs", cli_logs, true, "print the captured output" },
    { "wait", cli_wait, true, "wait until an invocation reaches a phase" },
    { "version", cli_version, false, "print the version" },
};

static void
usage(FILE *out)
{
    fprintf(out, "usage: agentctl [--specs DIR | --etcd URL[,URL] "
                 "[--etcd-prefix P]] [--state DIR] COMMAND [ARGS]\n\n"
                 "options:\n"
                 "  --specs DIR   specs directory (env AGENTCTL_SPECS)\n"
                 "  --state DIR   state directory (env AGENTCTL_STATE; "
                 "default DIR/.agentctl,\n"
                 "                for etcd /var/lib/agentctl/<prefix>)\n"
                 "  --etcd URL    etcd endpoints, comma-separated (env "
                 "AGENTCTL_ETCD)\n"
                 "  --etcd-prefix P  key prefix (env AGENTCTL_ETCD_PREFIX; "
                 "default /agentctl)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nRun 'agentctl COMMAND --help' for a command's "
                 "options.\n");
}

int
cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "error: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (cmd != NULL)
        fprintf(stderr, "\nSee 'agentctl %s --help'.\n", cmd);
    else
        fprintf(stderr, "\nSee 'agentctl --help'.\n");
    return CLI_USAGE;
}

bool
cli_wants_help(int argc, char **argv, const char *usage_text)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage_text, stdout);
            return true;
        }
    }
    return false;
}

int
cli_open_store(struct cli *c)
{
    struct err e = { 0 };
    bool etcd = c->etcd != NULL && c->etcd[0] != '\0';

    if (etcd && c->specs != NULL && c->specs[0] != '\0')
        return cli_usage_error(NULL, "pass --specs DIR or --etcd URL, not "
                                     "both");
    if (!etcd && (c->specs == NULL || c->specs[0] == '\0'))
        return cli_usage_error(NULL, "no store: pass --specs DIR or --etcd "
                                     "URL, or set AGENTCTL_SPECS");
    if (etcd)
        c->store = store_etcd_open(c->etcd, c->etcd_prefix, c->state, &e);
    else
        c->store = store_dir_open(c->specs, c->state, &e);
    if (c->store == NULL) {
        fprintf(stderr, "error: %s\n", e.msg);
        return CLI_FAIL;
    }
    return CLI_OK;
}

/* "--name VALUE" or "--name=VALUE" at argv[*i]; advances *i. */
static int
global_value(int argc, char **argv, int *i, const char *name, const char **out)
{
    size_t n = strlen(name);

    if (strncmp(argv[*i], name, n) != 0)
        return 0;
    if (argv[*i][n] == '=') {
        *out = argv[*i] + n + 1;
        return 1;
    }
    if (argv[*i][n] != '\0')
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *out = argv[++*i];
    return 1;
}

/* Global options up to the command; returns the command's index in argv
 * or -1 (usage error printed), 0 for --help. */
static int
parse_globals(int argc, char **argv, struct cli *c)
{
    static const char *const names[] = { "--specs", "--state", "--etcd",
                                         "--etcd-prefix" };
    int i;

    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char **slot[] = { &c->specs, &c->state, &c->etcd,
                                &c->etcd_prefix };
        int hit = 0;

        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
        for (size_t k = 0; k < 4 && hit == 0; k++) {
            hit = global_value(argc, argv, &i, names[k], slot[k]);
            if (hit == -1) {
                cli_usage_error(NULL, "%s needs a value", names[k]);
                return -1;
            }
        }
        if (hit == 0) {
            cli_usage_error(NULL, "unknown option %s", argv[i]);
            return -1;
        }
    }
    if (i == argc) {
        usage(stderr);
        return -1;
    }
    return i;
}

int
main(int argc, char **argv)
{
    struct cli c = { .specs = getenv("AGENTCTL_SPECS"),
                     .state = getenv("AGENTCTL_STATE"),
                     .etcd = getenv("AGENTCTL_ETCD"),
                     .etcd_prefix = getenv("AGENTCTL_ETCD_PREFIX") };
    const struct cli_command *cmd = NULL;
    int at, rc;

    if (c.state != NULL && c.state[0] == '\0')
        c.state = NULL;
    at = parse_globals(argc, argv, &c);
    if (at <= 0)
        return at == 0 ? CLI_OK : CLI_USAGE;
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(argv[at], commands[i].name) == 0)
            cmd = &commands[i];
    if (cmd == NULL)
        return cli_usage_error(NULL, "unknown command \"%s\"", argv[at]);
    if (cmd->needs_store && !cli_wants_help(argc - at, argv + at, "") &&
        (rc = cli_open_store(&c)) != CLI_OK)
        /* diff's 1 means "different": a store it cannot open is an error */
        return cmd->fn == cli_diff ? CLI_USAGE : rc;
    rc = cmd->fn(&c, argc - at, argv + at);
    store_close(c.store);
    return rc;
}
