/* rc_adapter.h - vendor adapters: what a `prompt` spec becomes for one
 * vendor CLI in one phase (docs/design.md "The resource": phase decides the
 * tools). Pure: spec values in, plain data out, no Docker, no I/O.
 *
 * An adapter turns (phase, prompt, runner) into
 *   - the agent's argv (the container's Entrypoint),
 *   - extra environment entries ("KEY=VALUE"),
 *   - config files the agent reads, to be placed read-only under
 *     RC_ADAPTER_CONFIG_DIR (path, content, mode),
 *   - the phase policy, as data and as one line for `agentctl describe`.
 *
 * The policy every adapter expresses in its vendor's own terms:
 *   planning, questions  read, list and search only; no command tool
 *   review               + the runner argv, exactly, as the one command
 *   execute, fix         + edit tools (the worktree is writable)
 *   always               no web fetch or search, no MCP servers, stdin
 *                        closed (the prompt never travels through stdin)
 * Where a vendor CLI cannot express a rule exactly the output says so
 * (policy.run_exact, the summary) and docs/adapters.md explains what the
 * adapter does instead; the container boundary (read-only /work outside
 * execute and fix, the egress proxy) holds either way.
 *
 * A prompt always reaches the CLI as the prompt: after a `--` end of
 * options for claude and codex (never as an option, whatever it starts
 * with or contains), in an env variable for generic. Never via stdin, never
 * through a shell.
 */
#ifndef RC_ADAPTER_H
#define RC_ADAPTER_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "spec.h"

/* Where the config files of an adapter live inside the agent container. */
#define RC_ADAPTER_CONFIG_DIR "/etc/agentctl/agent"

/* agent-launch (images/launch.h), the agent's entrypoint: uploaded with
 * the config files, it confines the CLI (Landlock, seccomp) and serves
 * the runner tool from outside the CLI's domain on a socket in /dev/shm,
 * which the domain may not write (so it cannot put another in its place).
 * docs/phase-policy.md. */
#define RC_LAUNCH_BIN    RC_ADAPTER_CONFIG_DIR "/bin/agent-launch"
#define RC_LAUNCH_POLICY RC_ADAPTER_CONFIG_DIR "/launch.policy"
#define RC_RUNNER_SOCKET "/dev/shm/agentctl-runner.sock"
#define RC_RUNNER_HOME   "/dev/shm/agentctl-runner-home"
/* The runner tool's name as the CLIs see it: MCP server "agentctl", tool
 * "run". */
#define RC_RUNNER_MCP_SERVER "agentctl"
#define RC_RUNNER_MCP_TOOL   "run"

/* What the box around the CLI is, for the adapter and the launcher's
 * policy: ports the CLI may connect to, the runner's bounds. */
struct rc_adapter_box {
    const char *gateway_url; /* "http://IP:PORT" in gateway mode, else NULL */
    unsigned proxy_port;
    unsigned gateway_port;   /* 0: no gateway */
    bool landlock_optional;  /* run without Landlock on a kernel without */
    unsigned runner_timeout; /* seconds */
    unsigned long runner_max_bytes;
    const char *runner_dir;  /* "/work", or "/tmp" without a workspace */
    bool unlaunched; /* an attempt an older version captured: the CLI
                        alone, as its agent was created (rc_inputs) */
    /* spec.output.schema as compact JSON, or NULL: handed to the CLI
     * through its own flag (claude --json-schema, codex --output-schema) */
    const char *output_schema;
    bool result_unread; /* an attempt an older version captured, which read
                           no result: codex without --output-last-message,
                           as its agent was created */
    const char *credential_env; /* credentialMode env: the variable with the
                                   key, which the runner does not get */
};

/* Longest single argv or env string Linux execve() accepts
 * (MAX_ARG_STRLEN = 32 pages, NUL included). A prompt that does not fit
 * is refused with ERR_LIMIT rather than failing at container start. */
#define RC_ADAPTER_ARG_MAX 131071

/* Where codex writes its last message (--output-last-message): the
 * scratch volume, which the keeper mounts too, so the controller reads it
 * back through the keeper after the CLI exits (docs/status.md "result").
 * And the schema file codex reads (--output-schema). */
#define RC_CODEX_RESULT_FILE "/tmp/.agentctl-last-message"
#define RC_CODEX_SCHEMA_FILE RC_ADAPTER_CONFIG_DIR "/codex/output-schema.json"

/* The runner's words together (the launcher's policy holds them). */
#define RC_ADAPTER_RUNNER_MAX 32768u

/* Caps on what one adapter emits (the adapters stay far below). */
#define RC_ADAPTER_MAX_ARGS  64
#define RC_ADAPTER_MAX_ENV   16
#define RC_ADAPTER_MAX_FILES 8

/* One config file for the container. */
struct rc_adapter_file {
    char *path;    /* absolute, under RC_ADAPTER_CONFIG_DIR */
    char *content; /* text */
    unsigned mode; /* e.g. 0444 */
};

/* The phase policy as data. Web, MCP and stdin are always off. */
struct rc_adapter_policy {
    bool edit;         /* edit tools present (execute, fix) */
    bool run;          /* the runner may be dispatched */
    bool run_exact;    /* the CLI itself limits commands to the runner */
    char **runner;     /* copy of the runner argv; NULL when none */
    size_t runner_n;   /* 0 = no runner */
    char *runner_line; /* the runner as one shell-quoted line; NULL */
};

struct rc_adapter_out {
    char *vendor;  /* the spec's vendor name */
    char *adapter; /* "claude", "codex", "generic" */
    enum spec_phase phase;
    char **argv; /* NULL-terminated too; argc entries */
    size_t argc;
    char **env; /* "KEY=VALUE", in the order the adapter set them */
    size_t n_env;
    struct rc_adapter_file *files;
    size_t n_files;
    struct rc_adapter_policy policy;
    char *summary; /* one line for describe, e.g. "tools: Read, ...; ..." */
};

/* Build the agent's command and config for a prompt spec. vendor_name is
 * the spec's vendor (recorded only); adapter is "claude", "codex" or
 * "generic"; runner may be NULL or empty (no command may run then).
 * Returns NULL with e set: ERR_INVALID (field "spec.prompt" or
 * "spec.runner[i]", or "adapter") for a runner in planning or questions,
 * an unknown adapter, a runner argument the vendor cannot match exactly,
 * a prompt codex would take as "read stdin"; ERR_LIMIT for a prompt or
 * runner over RC_ADAPTER_ARG_MAX; ERR_NOMEM. Free with
 * rc_adapter_out_free().
 * box: the box around the CLI (ports, runner bounds, the gateway's URL,
 * which an adapter whose CLI takes its base URL as a flag rather than from
 * the environment, codex, points there). The argv starts with the
 * launcher and its policy file (rc_adapter_launch.c). */
struct rc_adapter_out *rc_adapter_build(const char *vendor_name,
                                        const char *adapter,
                                        enum spec_phase phase,
                                        const char *prompt,
                                        const struct spec_argv *runner,
                                        const struct rc_adapter_box *box,
                                        struct err *e);

/* NULL is a no-op. */
void rc_adapter_out_free(struct rc_adapter_out *o);

/* Whether o's argv starts with the launcher (false for an attempt an older
 * version captured: rc_adapter_box unlaunched), so its bytes go into the
 * config volume. */
bool rc_adapter_launched(const struct rc_adapter_out *o);

/* The whole output as pretty-printed JSON (keys in a fixed order), as the
 * golden files hold it. Caller frees; NULL when out of memory. */
char *rc_adapter_out_to_json(const struct rc_adapter_out *o);

/* The adapter a vendor name uses by default: "claude" and "codex" for the
 * built-in vendors, "generic" for any other (operator-defined) vendor.
 * Static string. */
const char *rc_adapter_for_vendor(const char *vendor_name);

struct buf;

/* The config files as a tar archive for the directory dir they live in
 * (RC_ADAPTER_CONFIG_DIR): relative names, directories included, owner
 * root, each file's mode, and the launcher's bytes (launcher_len of them,
 * the controller's embedded copy: images/launch_blob.h) at RC_LAUNCH_BIN,
 * 0555. Appended to out (capped by out's max: ERR_LIMIT beyond it). In
 * rc_adapter_tar.c (it needs libarchive). */
int rc_adapter_files_tar(const struct rc_adapter_out *o, const char *dir,
                         const void *launcher, size_t launcher_len,
                         struct buf *out, struct err *e);

/* argv as one POSIX shell line: words of [A-Za-z0-9_@%+=:,./-] as they
 * are, anything else in single quotes ('\'' for a quote). "" for n == 0.
 * Caller frees; NULL when out of memory. */
char *rc_adapter_shell_line(char *const *argv, size_t n);

#endif
