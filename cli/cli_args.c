/* cli_args.c - parse a command's flags from its table with getopt_long
 * (see cli_args.h), and print the table as --help text. */
#include "cli_args.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const struct cli_opt cli_global_opts[] = {
    { "specs", 0, CLI_OPT_VALUE, "DIR",
      "specs directory (env AGENTCTL_SPECS)", CLI_COMPLETE_DIR, NULL },
    { "state", 0, CLI_OPT_VALUE, "DIR",
      "state directory (env AGENTCTL_STATE; default: where the controller "
      "records it)",
      CLI_COMPLETE_DIR, NULL },
    { "etcd", 0, CLI_OPT_VALUE, "URL[,URL]",
      "etcd endpoints (env AGENTCTL_ETCD)", CLI_COMPLETE_NONE, NULL },
    { "etcd-prefix", 0, CLI_OPT_VALUE, "P",
      "etcd key prefix (env AGENTCTL_ETCD_PREFIX; default /agentctl)",
      CLI_COMPLETE_NONE, NULL },
    { "etcd-cacert", 0, CLI_OPT_VALUE, "FILE",
      "CA bundle for https etcd endpoints (env AGENTCTL_ETCD_CACERT)",
      CLI_COMPLETE_FILE, NULL },
    { "etcd-cert", 0, CLI_OPT_VALUE, "FILE",
      "client certificate for etcd (env AGENTCTL_ETCD_CERT)",
      CLI_COMPLETE_FILE, NULL },
    { "etcd-key", 0, CLI_OPT_VALUE, "FILE",
      "client certificate's key (env AGENTCTL_ETCD_KEY)", CLI_COMPLETE_FILE,
      NULL },
    { "etcd-user", 0, CLI_OPT_VALUE, "NAME",
      "etcd user (env AGENTCTL_ETCD_USER; password from "
      "--etcd-password-file or AGENTCTL_ETCD_PASSWORD)",
      CLI_COMPLETE_NONE, NULL },
    { "etcd-password-file", 0, CLI_OPT_VALUE, "FILE",
      "file holding the etcd user's password (first line)",
      CLI_COMPLETE_FILE, NULL },
    { "kubeconfig", 0, CLI_OPT_VALUE, "FILE",
      "the Kubernetes API server store: a kubeconfig (env "
      "AGENTCTL_KUBECONFIG; not $KUBECONFIG)",
      CLI_COMPLETE_FILE, NULL },
    { "kube-context", 0, CLI_OPT_VALUE, "NAME",
      "the kubeconfig's context (env AGENTCTL_KUBE_CONTEXT; default: its "
      "current-context)",
      CLI_COMPLETE_NONE, NULL },
    { "help", 'h', CLI_OPT_FLAG, NULL, "show this help", CLI_COMPLETE_NONE,
      NULL },
    { NULL, 0, CLI_OPT_FLAG, NULL, NULL, CLI_COMPLETE_NONE, NULL },
};

static int
add_table(struct cli_args *a, const struct cli_opt *t)
{
    for (; t != NULL && t->name != NULL; t++) {
        if (a->nopts == CLI_MAX_OPTS)
            return -1;
        a->opts[a->nopts++] = t;
    }
    return 0;
}

static int
find(const struct cli_args *a, const char *name)
{
    for (size_t i = 0; i < a->nopts; i++)
        if (strcmp(a->opts[i]->name, name) == 0)
            return (int)i;
    return -1;
}

static int
keep(struct cli_args *a, size_t i, char *value, int argc)
{
    a->count[i]++;
    if (a->opts[i]->kind == CLI_OPT_VALUE)
        a->value[i] = value;
    if (a->opts[i]->kind == CLI_OPT_OPTIONAL)
        a->value[i] = value != NULL ? value : "";
    if (a->opts[i]->kind != CLI_OPT_LIST)
        return 0;
    if (a->list[i] == NULL &&
        (a->list[i] = calloc((size_t)argc + 1, sizeof(char *))) == NULL)
        return -1;
    a->list[i][a->count[i] - 1] = value;
    return 0;
}

/* getopt's short-option string and long-option array for the table. */
static void
build_getopt(const struct cli_args *a, char *shorts, struct option *longs)
{
    size_t s = 0;

    shorts[s++] = ':'; /* a missing value returns ':' */
    for (size_t i = 0; i < a->nopts; i++) {
        const struct cli_opt *o = a->opts[i];
        int has = o->kind == CLI_OPT_FLAG       ? no_argument
                  : o->kind == CLI_OPT_OPTIONAL ? optional_argument
                                                : required_argument;

        longs[i] = (struct option){ o->name, has, NULL, (int)(256 + i) };
        if (o->short_name != 0) {
            shorts[s++] = o->short_name;
            if (has != no_argument)
                shorts[s++] = ':';
            if (has == optional_argument)
                shorts[s++] = ':';
        }
    }
    shorts[s] = '\0';
    longs[a->nopts] = (struct option){ NULL, 0, NULL, 0 };
}

static int
short_index(const struct cli_args *a, int ch)
{
    for (size_t i = 0; i < a->nopts; i++)
        if (a->opts[i]->short_name == ch)
            return (int)i;
    return -1;
}

/* getopt_long's '?': optopt is 0 for an unknown long flag, the letter
 * for an unknown short one, and the flag's own code (256 + its index)
 * for a long flag given a value it does not take (--watch=x). That code
 * is no character: printed with %c it put a control byte in the
 * message. */
static int
unknown(const struct cli_args *a, char **argv, int ch)
{
    if (ch >= 256)
        return cli_usage_error(a->cmd, "flag takes no value: %s",
                               argv[optind - 1]);
    if (ch > ' ' && ch < 127)
        return cli_usage_error(a->cmd, "unknown shorthand flag: '%c' in -%c",
                               ch, ch);
    return cli_usage_error(a->cmd, "unknown flag: %s", argv[optind - 1]);
}

int
cli_args_parse(struct cli_args *a, const char *cmd, const struct cli_opt *opts,
               int argc, char **argv)
{
    struct option longs[CLI_MAX_OPTS + 1];
    char shorts[CLI_MAX_OPTS * 2 + 2];
    int ch;

    memset(a, 0, sizeof(*a));
    a->cmd = cmd;
    if (add_table(a, opts) == -1 || add_table(a, cli_global_opts) == -1)
        return cli_usage_error(cmd, "too many flags"), -1;
    build_getopt(a, shorts, longs);
    optind = 0; /* GNU: start afresh (also resets the permutation) */
    opterr = 0;
    while ((ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        int i = ch >= 256 ? ch - 256 : short_index(a, ch);

        if (ch == '?')
            return unknown(a, argv, optopt), -1;
        if (ch == ':')
            return cli_usage_error(cmd, "flag needs an argument: %s",
                                   argv[optind - 1]),
                   -1;
        if (i < 0 || keep(a, (size_t)i, optarg, argc) == -1)
            return cli_usage_error(cmd, "out of memory"), -1;
    }
    a->help = cli_args_has(a, "help");
    a->pos = argv + optind;
    a->npos = (size_t)(argc - optind);
    return 0;
}

void
cli_args_cleanup(struct cli_args *a)
{
    for (size_t i = 0; i < a->nopts; i++)
        free(a->list[i]);
    memset(a, 0, sizeof(*a));
}

unsigned
cli_args_count(const struct cli_args *a, const char *name)
{
    int i = find(a, name);

    return i < 0 ? 0 : a->count[i];
}

bool
cli_args_has(const struct cli_args *a, const char *name)
{
    return cli_args_count(a, name) > 0;
}

const char *
cli_args_get(const struct cli_args *a, const char *name, const char *dflt)
{
    int i = find(a, name);

    return i < 0 || a->value[i] == NULL ? dflt : a->value[i];
}

char *const *
cli_args_list(const struct cli_args *a, const char *name, size_t *n)
{
    static char *const none[] = { NULL };
    int i = find(a, name);

    *n = i < 0 ? 0 : a->count[i];
    return i < 0 || a->list[i] == NULL ? none : a->list[i];
}

static void
print_table(const struct cli_opt *t, FILE *out)
{
    for (; t->name != NULL; t++) {
        char flag[8] = "    ", left[64];

        if (t->short_name != 0)
            snprintf(flag, sizeof(flag), "-%c, ", t->short_name);
        snprintf(left, sizeof(left), "%s--%s%s%s", flag, t->name,
                 t->arg ? " " : "", t->arg ? t->arg : "");
        fprintf(out, "  %-30s %s\n", left, t->help);
    }
}

void
cli_args_print_opts(const struct cli_opt *opts, FILE *out)
{
    if (opts == NULL) {
        fprintf(out, "\nGlobal options:\n");
        print_table(cli_global_opts, out);
        return;
    }
    if (opts->name != NULL) {
        fprintf(out, "\nOptions:\n");
        print_table(opts, out);
    }
    /* One line, not the table again: a command's help is about the
     * command (kubectl's "Use kubectl options ..."). */
    fprintf(out, "\nGlobal options: --specs, --etcd and the rest of "
                 "'agentctl help'; they may\nfollow the command too.\n");
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
