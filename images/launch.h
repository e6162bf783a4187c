/* launch.h - agent-launch, the agent container's entrypoint for vendor
 * CLIs (docs/phase-policy.md). A static program of ours, uploaded with
 * the adapter's config files (so it does not depend on the agent image),
 * that confines the CLI with the kernel before it execs it:
 *
 *   seccomp   a filter of ours stacked on Docker's default profile: the
 *             calls no agent needs (io_uring, userfaultfd, bpf, ...) fail
 *             with EPERM, in the CLI and in the runner alike;
 *   Landlock  the CLI may execute only its own files (the binary, its ELF
 *             interpreter, the listed extras), write only where the phase
 *             allows, connect over TCP only to the proxy's or gateway's
 *             port, and neither signal nor reach abstract unix sockets
 *             outside its domain (and a domain cannot ptrace or read the
 *             /proc/N/environ of a process outside it);
 *   runner    with a runner, the launcher forks: the child confines
 *             itself and execs the CLI, the parent stays outside the
 *             domain and runs the spec's runner argv, exactly, when the
 *             CLI's tool of ours (agent-launch --mcp-runner, an MCP stdio
 *             server the CLI starts) asks for it over a unix socket the
 *             domain cannot replace.
 *
 * Usage (the controller writes both; docs/phase-policy.md):
 *   agent-launch --policy FILE -- CLI-ARGV...
 *   agent-launch --wait ORDER --order-nonce HEX [--wait-seconds N]
 *                                      (wait mode: a warm box's agent
 *                                       waits for its argv, env, workdir
 *                                       and policy; launch_order.h)
 *   agent-launch --mcp-runner SOCKET      (the MCP server, stdio)
 *
 * The policy file, one directive per line ("key value", '#' comments):
 *   landlock required|optional   required: no Landlock, no start (exit 125)
 *   exec PATH                    an extra file the CLI may execute
 *   exec-sibling NAME            a file the CLI may execute, in the CLI's
 *                                own directory (a helper a CLI finds
 *                                beside its binary, wherever it is)
 *   write PATH                   a file or directory tree it may write
 *   connect PORT                 a TCP port it may connect to
 *   runner-arg WORD              the runner argv, one word per line
 *   runner-unset NAME            a variable the runner does not get (the
 *                                vendor's key in credentialMode env)
 *   runner-dir DIR               its working directory (/work)
 *   runner-home DIR              its HOME and XDG directories, made empty
 *                                where the CLI cannot write (not /tmp:
 *                                config files there would run code
 *                                outside the domain through the runner)
 *   runner-timeout SECONDS       then its process group is killed
 *   runner-max-bytes N           output kept (the rest counted, dropped)
 *   runner-socket PATH           where the parent listens
 */
#ifndef LAUNCH_H
#define LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define LAUNCH_MAX_PATHS 32
#define LAUNCH_MAX_ARGS  64
#define LAUNCH_MAX_PORTS 8

/* Exit codes of the launcher itself (the CLI's own code otherwise). */
#define LAUNCH_EXIT_USAGE    125 /* bad flags or policy, no Landlock */
#define LAUNCH_EXIT_CONFINE  126 /* a confinement step failed */
#define LAUNCH_EXIT_NOTFOUND 127 /* the CLI cannot be found */

struct launch_policy {
    char *text; /* the file; every string below points into it */
    bool landlock_required;
    char *exec[LAUNCH_MAX_PATHS];
    size_t n_exec;
    char *exec_sibling[LAUNCH_MAX_PATHS]; /* file names, no '/' */
    size_t n_exec_sibling;
    char *write[LAUNCH_MAX_PATHS];
    size_t n_write;
    unsigned short connect[LAUNCH_MAX_PORTS];
    size_t n_connect;
    char *runner[LAUNCH_MAX_ARGS + 1]; /* NULL-terminated; n_runner 0 = none */
    size_t n_runner;
    char *runner_unset[LAUNCH_MAX_PATHS];
    size_t n_runner_unset;
    char *runner_dir;
    char *runner_home; /* NULL: the runner keeps the launcher's HOME */
    unsigned runner_timeout;   /* seconds */
    size_t runner_max_bytes;
    char *runner_socket;
};

/* launch_policy.c: read FILE into p (its strings point into p->text; the
 * launcher execs or exits with it, tests free it with
 * launch_policy_cleanup). On error writes "agent-launch: FILE:LINE:
 * problem" to stderr and returns -1 with nothing held. */
int launch_policy_read(const char *file, struct launch_policy *p);
/* The same from text[0..len) (copied; a NUL in it is refused), named
 * name in the messages: wait mode's order carries its policy. */
int launch_policy_from_text(const char *name, const char *text, size_t len,
                            struct launch_policy *p);
void launch_policy_cleanup(struct launch_policy *p);

/* launch_path.c: name (or a path) as exec would run it, into out: PATH's
 * absolute entries only (unset: /usr/local/bin:/usr/bin:/bin), an
 * executable file. -1 when there is none. */
int launch_path_find(const char *name, char *out, size_t size);

/* launch_seccomp.c: stack the deny filter on this thread (and what it
 * execs or forks). -1 with errno. */
int launch_seccomp_apply(void);

/* launch_landlock.c: the kernel's Landlock ABI (0 when it has none). */
int launch_landlock_abi(void);

/* Confine this thread for exe (the resolved CLI path; its ELF
 * interpreter is allowed too) under p. With no Landlock and p optional,
 * says so on stderr and returns 0. -1 after a message on stderr. */
int launch_landlock_apply(const struct launch_policy *p, const char *exe);

/* launch_runner.c: the parent's side when p has a runner: listen on
 * p->runner_socket (made before the child confines itself: call
 * launch_runner_listen first), serve runs until the CLI (pid cli) exits,
 * forward SIGTERM/SIGINT to it, and return the exit code the launcher
 * exits with (the CLI's, 128+N for a signal). */
int launch_runner_listen(const struct launch_policy *p);
int launch_runner_serve(const struct launch_policy *p, int listen_fd,
                        pid_t cli);

/* launch_mcp.c: the MCP stdio server that offers one tool, "run", to the
 * CLI; each call asks the socket's runner service for one run. Returns
 * the process exit code (0 at EOF on stdin). */
int launch_mcp_main(const char *socket_path);

#endif
