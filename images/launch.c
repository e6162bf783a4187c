/* launch.c - agent-launch's main: read the policy, find the CLI, confine,
 * exec (launch.h has the whole picture). Without a runner there is one
 * process, the CLI, confined; with one, a parent outside the CLI's domain
 * serves the runner tool and exits with the CLI's code. */
#include "launch.h"
#include "launch_order.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int
usage(void)
{
    fputs("usage: agent-launch --policy FILE -- CLI [ARG...]\n"
          "       agent-launch --wait ORDER --order-nonce HEX "
          "[--wait-seconds N]\n"
          "       agent-launch --mcp-runner SOCKET\n", stderr);
    return LAUNCH_EXIT_USAGE;
}

/* In the process that becomes the CLI: the domain, then the exec. */
static int
launch_exec(const struct launch_policy *p, const char *exe, char **argv)
{
    if (launch_landlock_apply(p, exe) == -1)
        return LAUNCH_EXIT_CONFINE;
    execv(exe, argv);
    fprintf(stderr, "agent-launch: exec %s: %s\n", exe, strerror(errno));
    return errno == ENOENT ? LAUNCH_EXIT_NOTFOUND : LAUNCH_EXIT_CONFINE;
}

/* Under policy p (kept until the exec or the exit): find the CLI,
 * confine, exec, with the runner's parent where p has one. */
static int
launch_run(const struct launch_policy *p, char **argv)
{
    char exe[PATH_MAX];
    int lfd;
    pid_t cli;

    if (launch_path_find(argv[0], exe, sizeof(exe)) == -1) {
        fprintf(stderr, "agent-launch: %s: not found or not executable\n",
                argv[0]);
        return LAUNCH_EXIT_NOTFOUND;
    }
    if (p->landlock_required && launch_landlock_abi() < 1) {
        fprintf(stderr, "agent-launch: landlock: this kernel has none; the "
                "config requires it (landlock: optional to run without)\n");
        return LAUNCH_EXIT_USAGE;
    }
    if (launch_seccomp_apply() == -1) {
        fprintf(stderr, "agent-launch: seccomp: %s\n", strerror(errno));
        return LAUNCH_EXIT_CONFINE;
    }
    if (p->n_runner == 0)
        return launch_exec(p, exe, argv);
    if ((lfd = launch_runner_listen(p)) == -1)
        return LAUNCH_EXIT_CONFINE;
    /* A SIGTERM between the fork and the serve loop (which takes the
     * signals over) ends this parent with the default action; the CLI is
     * then docker-init's child and the container's stop ends it. Blocking
     * the signals here would hand the block to the runner's children. */
    cli = fork();
    if (cli == -1) {
        fprintf(stderr, "agent-launch: fork: %s\n", strerror(errno));
        return LAUNCH_EXIT_CONFINE;
    }
    if (cli == 0) {
        close(lfd);
        _exit(launch_exec(p, exe, argv));
    }
    return launch_runner_serve(p, lfd, cli);
}

static int
launch_main(const char *policy_file, char **argv)
{
    static struct launch_policy p;

    if (launch_policy_read(policy_file, &p) == -1)
        return LAUNCH_EXIT_USAGE;
    return launch_run(&p, argv);
}

/* The nonce the order is compared with: the create body's, or none where
 * a test build's hook says so (the integration test's negative control;
 * the product binary has no such hook). */
static const char *
wait_nonce(const char *nonce)
{
#ifdef LAUNCH_TESTHOOKS
    const char *skip = getenv("AGENT_LAUNCH_TESTHOOK_ANY_ORDER");

    if (skip != NULL && strcmp(skip, "1") == 0)
        return NULL;
#endif
    return nonce;
}

/* Wait mode (launch_order.h): the order's policy and argv take the place
 * of the command line's, its env is set over the container's, its
 * workdir is entered, then the same path as launch_main. The
 * one line on stderr says what was done (the container's log, which the
 * controller reads; stdout is the CLI's). */
static int
wait_main(const char *order_file, const char *nonce, unsigned seconds)
{
    static struct launch_order o;
    static struct launch_policy p;
    char why[256];
    char *text = NULL;
    size_t len = 0;
    int rc;

    if (!launch_order_nonce_ok(nonce)) {
        fprintf(stderr, "agent-launch: --order-nonce: expected %d-%d "
                "lowercase hex digits\n", LAUNCH_ORDER_NONCE_MIN,
                LAUNCH_ORDER_NONCE_MAX);
        return LAUNCH_EXIT_USAGE;
    }
    rc = launch_wait_order(order_file, seconds, &text, &len, why, sizeof(why));
    if (rc == 1) {
        fprintf(stderr, "agent-launch: no order at %s within %u s\n",
                order_file, seconds);
        return LAUNCH_EXIT_NOORDER;
    }
    if (rc == 0)
        rc = launch_order_parse(text, len, wait_nonce(nonce), &o, why,
                                sizeof(why));
    free(text);
    if (rc != 0) {
        fprintf(stderr, "agent-launch: order refused: %s\n", why);
        return LAUNCH_EXIT_ORDER;
    }
    if (launch_policy_from_text("order policy", o.policy, o.policy_len, &p) ==
        -1) {
        fprintf(stderr, "agent-launch: order refused: policy: not one the "
                "launcher reads\n");
        return LAUNCH_EXIT_ORDER;
    }
    fprintf(stderr, "agent-launch: order accepted: %s, %zu words, %zu "
            "variables, in %s\n", o.argv[0], o.argc, o.n_env, o.workdir);
    if (chdir(o.workdir) == -1) {
        fprintf(stderr, "agent-launch: workdir %s: %s\n", o.workdir,
                strerror(errno));
        return LAUNCH_EXIT_CONFINE;
    }
    /* Over the container's environment, which is the image's (the waiting
     * body sets none): the CLI sees what a container created with the
     * order's Env would show. */
    for (size_t i = 0; i < o.n_env; i++)
        if (putenv(o.env[i]) != 0) {
            fprintf(stderr, "agent-launch: env: %s\n", strerror(errno));
            return LAUNCH_EXIT_CONFINE;
        }
    return launch_run(&p, o.argv);
}

static int
wait_args(int argc, char **argv)
{
    unsigned long seconds = LAUNCH_ORDER_WAIT_DEFAULT;
    char *end = NULL;

    if (argc == 7 && strcmp(argv[5], "--wait-seconds") == 0) {
        errno = 0;
        seconds = strtoul(argv[6], &end, 10);
        if (errno != 0 || end == argv[6] || *end != '\0' || seconds == 0 ||
            seconds > 86400)
            return usage();
    } else if (argc != 5) {
        return usage();
    }
    if (strcmp(argv[3], "--order-nonce") != 0)
        return usage();
    return wait_main(argv[2], argv[4], (unsigned)seconds);
}

int
main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--mcp-runner") == 0)
        return launch_mcp_main(argv[2]);
    if (argc >= 5 && strcmp(argv[1], "--policy") == 0 &&
        strcmp(argv[3], "--") == 0)
        return launch_main(argv[2], argv + 4);
    if (argc >= 5 && strcmp(argv[1], "--wait") == 0)
        return wait_args(argc, argv);
    return usage();
}
