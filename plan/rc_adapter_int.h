/* rc_adapter_int.h - shared between rc_adapter.c and the per-vendor
 * adapters: a small builder that appends to an rc_adapter_out and records
 * the first failure, so each vendor file reads as a list of what it emits.
 */
#ifndef RC_ADAPTER_INT_H
#define RC_ADAPTER_INT_H

#include <stdbool.h>

#include "err.h"
#include "rc_adapter.h"

/* Biggest text an adapter builds (a config file, the policy line). */
#define RC__ADAPTER_TEXT_MAX (1u << 20)

struct rc__adapter {
    struct rc_adapter_out *out;
    const char *prompt;
    const struct rc_adapter_box *box; /* NULL: rc_adapter_launch.c's */
    /* files beside the CLI's binary it executes itself (measured per
     * pinned CLI), NULL-terminated; NULL: none (rc_adapter_launch.c) */
    const char *const *exec_siblings;
    struct err *e;
    bool failed; /* e holds the first error; later calls do nothing */
};

typedef int rc__adapter_fn(struct rc__adapter *b);

/* The vendors (rc_adapter_claude.c, rc_adapter_codex.c,
 * rc_adapter_generic.c). Each fills b->out and returns 0, or -1 with
 * b->e set. */
int rc__adapter_claude(struct rc__adapter *b);
int rc__adapter_codex(struct rc__adapter *b);
int rc__adapter_generic(struct rc__adapter *b);

/* Append a copy of s to argv / env ("KEY=VALUE"). */
void rc__adapter_arg(struct rc__adapter *b, const char *s);
void rc__adapter_argf(struct rc__adapter *b, const char *fmt, ...)
    ERR_PRINTF(2, 3);
void rc__adapter_env(struct rc__adapter *b, const char *key, const char *value);

/* Add a config file; content is taken over (freed on failure too). */
void rc__adapter_file(struct rc__adapter *b, const char *path, char *content,
                      unsigned mode);

/* Record a failure (out of memory when fmt is NULL). Returns -1. */
int rc__adapter_fail(struct rc__adapter *b, enum err_code c, const char *field,
                     const char *fmt, ...) ERR_PRINTF(4, 5);

/* printf into a new capped string; NULL (failure recorded) on error. */
char *rc__adapter_strf(struct rc__adapter *b, const char *fmt, ...)
    ERR_PRINTF(2, 3);

/* rc_adapter_launch.c: put the launcher in front of the argv and write
 * its policy file (after the vendor's function). */
int rc__adapter_launch(struct rc__adapter *b);

/* The runner tool as MCP server settings: {"command": ..., "args": [...]}
 * in JSON (claude's mcp.json) or as a TOML inline table (codex). */
char *rc__adapter_runner_mcp_json(struct rc__adapter *b);

/* The policy line every adapter ends with. */
#define RC__ADAPTER_ALWAYS "web: off; stdin: closed"

#endif
