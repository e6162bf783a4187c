/* agentctl.c - the command-line client: global options, dispatch through
 * the command table (cli_commands.c) and the generated help. The commands
 * live in cli_*.c.
 *
 *   agentctl [GLOBAL FLAGS] COMMAND [ARGS] [FLAGS]
 *
 * Global flags may also follow the command, as with kubectl. The specs
 * directory comes from --specs or AGENTCTL_SPECS, the state directory
 * from --state or AGENTCTL_STATE (default: the one the controller
 * recorded, docs/design.md "Status, events, output"); etcd from --etcd /
 * AGENTCTL_ETCD and --etcd-prefix / AGENTCTL_ETCD_PREFIX (default
 * /agentctl); the Kubernetes API server from --kubeconfig /
 * AGENTCTL_KUBECONFIG and --kube-context / AGENTCTL_KUBE_CONTEXT. A store
 * flag beats the other stores' variables (choose_store).
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
usage(FILE *out)
{
    fprintf(out, "usage: agentctl [GLOBAL FLAGS] COMMAND [ARGS] [FLAGS]\n\n"
                 "Commands:\n");
    for (size_t i = 0; i < cli_ncommands; i++)
        fprintf(out, "  %-11s %s\n", cli_commands[i].name,
                cli_commands[i].summary);
    cli_args_print_opts(NULL, out);
    fprintf(out, "  %-30s %s\n", "    --version", "print the version");
    fprintf(out, "\nRun 'agentctl help COMMAND' (or 'agentctl COMMAND --help') "
                 "for a command's\nflags.\n");
}

static void
command_help(const struct cli_command *cmd)
{
    printf("usage: agentctl %s %s\n\n%s", cmd->name, cmd->synopsis,
           cmd->about);
    cli_args_print_opts(cmd->opts, stdout);
}

static const struct cli_command *
find_command(const char *name)
{
    for (size_t i = 0; i < cli_ncommands; i++)
        if (strcmp(name, cli_commands[i].name) == 0)
            return &cli_commands[i];
    return NULL;
}

/* agentctl help [COMMAND]: what --help and COMMAND --help print. */
int
cli_help(struct cli *c, const struct cli_args *a)
{
    const struct cli_command *cmd;

    (void)c;
    if (a->npos == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (a->npos > 1)
        return cli_usage_error("help", "expected at most one command");
    if ((cmd = find_command(a->pos[0])) == NULL)
        return cli_usage_error("help",
                               "unknown command \"%s\" for \"agentctl\"",
                               a->pos[0]);
    command_help(cmd);
    return CLI_OK;
}

/* --etcd-cacert/-cert/-key/-user and the password (from its file, else
 * AGENTCTL_ETCD_PASSWORD: never on the command line, where ps shows it). */
static int
secure_etcd(struct cli *c, struct err *e)
{
    struct store_etcd_security sec = {
        c->etcd_cacert, c->etcd_cert,
        c->etcd_key,    c->etcd_user,
        getenv("AGENTCTL_ETCD_PASSWORD"), c->etcd_password_file,
    };

    return store_etcd_set_security(c->store, &sec, e);
}

static bool
given(const char *v)
{
    return v != NULL && v[0] != '\0';
}

/* kubectl's order, flag > environment: a store flag on the command line
 * (--specs, --etcd, --kubeconfig) wins over the other stores' variables.
 * Two flags, or two variables and no flag, stay a usage error. */
static int
choose_store(struct cli *c)
{
    const char **slot[] = { &c->specs, &c->etcd, &c->kubeconfig };
    const bool flag[] = { c->specs_flag && given(c->specs),
                          c->etcd_flag && given(c->etcd),
                          c->kube_flag && given(c->kubeconfig) };
    size_t nflags = 0, nvars = 0;

    for (size_t i = 0; i < 3; i++) {
        nflags += flag[i];
        nvars += given(*slot[i]);
    }
    if (nflags > 1)
        return cli_usage_error(NULL, "pass one of --specs DIR, --etcd URL "
                                     "and --kubeconfig FILE");
    if (nflags == 0 && nvars > 1)
        return cli_usage_error(NULL, "more than one of AGENTCTL_SPECS, "
                                     "AGENTCTL_ETCD and AGENTCTL_KUBECONFIG "
                                     "is set: unset all but one, or pass "
                                     "--specs, --etcd or --kubeconfig");
    for (size_t i = 0; nflags == 1 && i < 3; i++)
        if (!flag[i])
            *slot[i] = NULL;
    return CLI_OK;
}

int
cli_open_store(struct cli *c, enum cli_store_use use)
{
    struct err e = { 0 };
    bool etcd, kube;

    if (choose_store(c) != CLI_OK)
        return CLI_USAGE;
    etcd = given(c->etcd);
    kube = given(c->kubeconfig);
    if (!etcd && !kube && (c->specs == NULL || c->specs[0] == '\0'))
        return cli_usage_error(NULL, "no store: pass --specs DIR, --etcd "
                                     "URL or --kubeconfig FILE, or set "
                                     "AGENTCTL_SPECS");
    if (kube)
        c->store =
            store_kube_open(c->kubeconfig, c->kube_context, c->state, &e);
    else if (etcd && (c->store = store_etcd_open(c->etcd, c->etcd_prefix,
                                            c->state, &e)) != NULL &&
        secure_etcd(c, &e) == -1) {
        store_close(c->store);
        c->store = NULL;
    } else if (!etcd)
        c->store = use == CLI_STORE_READ
                       ? store_dir_open_read(c->specs, c->state, &e)
                       : store_dir_open(c->specs, c->state, &e);
    if (c->store == NULL) {
        fprintf(stderr, "error: %s\n", e.msg);
        return CLI_FAIL;
    }
    return CLI_OK;
}

/* Where the value of global flag name goes. */
static const char **
global_slot(struct cli *c, const char *name)
{
    const struct {
        const char *name;
        const char **slot;
    } slots[] = {
        { "specs", &c->specs },
        { "state", &c->state },
        { "etcd", &c->etcd },
        { "etcd-prefix", &c->etcd_prefix },
        { "etcd-cacert", &c->etcd_cacert },
        { "etcd-cert", &c->etcd_cert },
        { "etcd-key", &c->etcd_key },
        { "etcd-user", &c->etcd_user },
        { "etcd-password-file", &c->etcd_password_file },
        { "kubeconfig", &c->kubeconfig },
        { "kube-context", &c->kube_context },
    };
    static const char *unused;

    for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
        if (strcmp(slots[i].name, name) == 0)
            return slots[i].slot;
    return &unused;
}

/* The global flags before the command: argv[1..] up to the first word
 * that is neither a flag nor a global flag's value. Returns the command's
 * index, 0 when --help or --version was answered, -1 on usage errors. */
static int
parse_globals(int argc, char **argv, struct cli *c)
{
    int i;

    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i], *eq;
        const struct cli_opt *o = NULL;
        size_t n;

        if (strcmp(a, "--") == 0) { /* the command follows */
            i++;
            break;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return usage(stdout), 0;
        if (strcmp(a, "--version") == 0)
            return printf("agentctl version %s\n", AGENTCTL_VERSION), 0;
        eq = strchr(a, '=');
        n = eq ? (size_t)(eq - a) : strlen(a);
        for (const struct cli_opt *g = cli_global_opts; g->name; g++)
            if (g->kind == CLI_OPT_VALUE && n == strlen(g->name) + 2 &&
                strncmp(a + 2, g->name, n - 2) == 0 && a[1] == '-')
                o = g;
        if (o == NULL)
            return cli_usage_error(NULL, "unknown flag: %s", a), -1;
        if (eq == NULL && i + 1 == argc)
            return cli_usage_error(NULL, "flag needs an argument: %s", a), -1;
        *global_slot(c, o->name) = eq ? eq + 1 : argv[++i];
        c->specs_flag |= strcmp(o->name, "specs") == 0;
        c->etcd_flag |= strcmp(o->name, "etcd") == 0;
        c->kube_flag |= strcmp(o->name, "kubeconfig") == 0;
    }
    if (i == argc)
        return usage(stderr), -1;
    return i;
}

/* Global flags given after the command override those before it. */
static void
take_globals(struct cli *c, const struct cli_args *a)
{
    for (const struct cli_opt *g = cli_global_opts; g->name != NULL; g++)
        if (g->kind == CLI_OPT_VALUE) {
            const char **slot = global_slot(c, g->name);

            *slot = cli_args_get(a, g->name, *slot);
        }
    c->specs_flag |= cli_args_has(a, "specs");
    c->etcd_flag |= cli_args_has(a, "etcd");
    c->kube_flag |= cli_args_has(a, "kubeconfig");
    if (c->state != NULL && c->state[0] == '\0')
        c->state = NULL;
}

/* A command's usage errors that need no store, found before it is opened:
 * a wrong -o or --for is exit 2 also when etcd is down (it was 1, the
 * store's error, and the mistake went unsaid). */
static int
usage_first(const struct cli_command *cmd, const struct cli_args *a)
{
    struct cli_get g = { 0 };

    if (cmd->fn == cli_get)
        return cli_get_usage(a, &g);
    if (cmd->fn == cli_wait)
        return cli_wait_usage(a);
    return CLI_OK;
}

static int
run(struct cli *c, const struct cli_command *cmd, int argc, char **argv)
{
    struct cli_args a;
    int rc;

    if (cli_args_parse(&a, cmd->name, cmd->opts, argc, argv) == -1) {
        cli_args_cleanup(&a);
        return CLI_USAGE;
    }
    take_globals(c, &a);
    if (a.help) {
        command_help(cmd);
        rc = CLI_OK;
    } else if (cmd->store != CLI_STORE_NONE &&
               cmd->args == CLI_COMPLETE_WORDS &&
               (rc = cli_resource_names(a.pos, a.npos)) != CLI_OK) {
        /* a TYPE/NAME of another type: nothing is asked of the store */
    } else if ((rc = usage_first(cmd, &a)) != CLI_OK) {
        /* said before the store is opened */
    } else if (cmd->store != CLI_STORE_NONE &&
               (rc = cli_open_store(c, cmd->store)) != CLI_OK) {
        /* diff's 1 means "different": a store it cannot open is an error */
        rc = cmd->fn == cli_diff ? CLI_USAGE : rc;
    } else {
        rc = cmd->fn(c, &a);
    }
    cli_args_cleanup(&a);
    return rc;
}

int
main(int argc, char **argv)
{
    struct cli c = { .specs = getenv("AGENTCTL_SPECS"),
                     .state = getenv("AGENTCTL_STATE"),
                     .etcd = getenv("AGENTCTL_ETCD"),
                     .etcd_prefix = getenv("AGENTCTL_ETCD_PREFIX"),
                     .etcd_cacert = getenv("AGENTCTL_ETCD_CACERT"),
                     .etcd_cert = getenv("AGENTCTL_ETCD_CERT"),
                     .etcd_key = getenv("AGENTCTL_ETCD_KEY"),
                     .etcd_user = getenv("AGENTCTL_ETCD_USER"),
                     .kubeconfig = getenv("AGENTCTL_KUBECONFIG"),
                     .kube_context = getenv("AGENTCTL_KUBE_CONTEXT") };
    const struct cli_command *cmd = NULL;
    int at, rc;

    at = parse_globals(argc, argv, &c);
    if (at <= 0)
        return at == 0 ? CLI_OK : CLI_USAGE;
    if ((cmd = find_command(argv[at])) == NULL)
        return cli_usage_error(NULL, "unknown command \"%s\" for \"agentctl\"",
                               argv[at]);
    rc = run(&c, cmd, argc - at, argv + at);
    store_close(c.store);
    return rc;
}
