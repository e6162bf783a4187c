/* launch.c - agent-launch's main: read the policy, find the CLI, confine,
 * exec (launch.h has the whole picture). Without a runner there is one
 * process, the CLI, confined; with one, a parent outside the CLI's domain
 * serves the runner tool and exits with the CLI's code. */
#include "launch.h"

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

static int
launch_main(const char *policy_file, char **argv)
{
    static struct launch_policy p;
    char exe[PATH_MAX];
    int lfd;
    pid_t cli;

    if (launch_policy_read(policy_file, &p) == -1)
        return LAUNCH_EXIT_USAGE;
    if (launch_path_find(argv[0], exe, sizeof(exe)) == -1) {
        fprintf(stderr, "agent-launch: %s: not found or not executable\n",
                argv[0]);
        return LAUNCH_EXIT_NOTFOUND;
    }
    if (p.landlock_required && launch_landlock_abi() < 1) {
        fprintf(stderr, "agent-launch: landlock: this kernel has none; the "
                "config requires it (landlock: optional to run without)\n");
        return LAUNCH_EXIT_USAGE;
    }
    if (launch_seccomp_apply() == -1) {
        fprintf(stderr, "agent-launch: seccomp: %s\n", strerror(errno));
        return LAUNCH_EXIT_CONFINE;
    }
    if (p.n_runner == 0)
        return launch_exec(&p, exe, argv);
    if ((lfd = launch_runner_listen(&p)) == -1)
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
        _exit(launch_exec(&p, exe, argv));
    }
    return launch_runner_serve(&p, lfd, cli);
}

int
main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--mcp-runner") == 0)
        return launch_mcp_main(argv[2]);
    if (argc >= 5 && strcmp(argv[1], "--policy") == 0 &&
        strcmp(argv[3], "--") == 0)
        return launch_main(argv[2], argv + 4);
    return usage();
}
