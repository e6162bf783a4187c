/* launch_order.h - agent-launch's wait mode (docs/warm-pool.md, "The
 * waiting agent"): a warm box's agent container is created and started
 * in the launcher before any invocation claims it; the claim writes one
 * order, a small JSON file, on the config volume (mounted read-only in
 * the agent, written by the controller through the keeper), and the
 * launcher reads it once, checks it, and applies it: the policy as the
 * --policy file of the ordinary mode (one file read once under the
 * nonce: no policy file beside it to swap in between), the argv as the one
 * after "--" in the ordinary mode, the env set over the container's own
 * (the image's: the waiting body sets none, as Docker merges a create
 * body's Env over the image's), the workdir entered.
 *
 *   {"version": 1,
 *    "nonce":   "<the nonce of the create body's --order-nonce>",
 *    "argv":    ["claude", "-p", "..."],         1-64 words
 *    "env":     ["HOME=/tmp", "PATH=...", ...],  0-256 "NAME=value"
 *    "workdir": "/work",                         an absolute path
 *    "policy":  "landlock required\nexec ...\n"} the policy file's text
 *                                                (launch.h), whole
 *
 * Nothing else is accepted: an unknown or repeated member, a word with a
 * NUL, an env entry without a name, a variable given twice, more than
 * LAUNCH_ORDER_MAX bytes. The nonce is fixed at the container's create
 * (its Entrypoint and a label; plan/rc_desired_warm.c): a process that
 * can write the volume but cannot read or recreate the container cannot
 * make an order the launcher obeys.
 */
#ifndef LAUNCH_ORDER_H
#define LAUNCH_ORDER_H

#include <stdbool.h>
#include <stddef.h>

#include "launch.h"
#include "launch_json.h"

#define LAUNCH_ORDER_MAX      (64 * 1024) /* bytes of the file */
#define LAUNCH_ORDER_MAX_ENV  256
#define LAUNCH_ORDER_NONCE_MIN 32  /* hex digits of the create-time nonce */
#define LAUNCH_ORDER_NONCE_MAX 128
#define LAUNCH_ORDER_WAIT_DEFAULT 3600 /* seconds; --wait-seconds */

/* Exit codes of wait mode (beside launch.h's 125-127). */
#define LAUNCH_EXIT_ORDER   123 /* the order was refused */
#define LAUNCH_EXIT_NOORDER 122 /* no order came within the wait (not
                                     timeout(1)'s 124: a wrapper's kill
                                     is told apart) */

struct launch_order {
    struct launch_json *tree; /* every string below points into it */
    char *argv[LAUNCH_MAX_ARGS + 1]; /* NULL-terminated */
    size_t argc;
    char *env[LAUNCH_ORDER_MAX_ENV + 1]; /* NULL-terminated */
    size_t n_env;
    char *workdir;
    const char *policy; /* the policy's text, not NUL-terminated */
    size_t policy_len;
};

/* A create-time nonce: LAUNCH_ORDER_NONCE_MIN..MAX lowercase hex digits. */
bool launch_order_nonce_ok(const char *nonce);

/* Parse and check text[0..len) as an order for nonce (NULL: the nonce is
 * not compared, the test hook's negative control). 0 with o filled (free
 * with launch_order_cleanup; its strings are copies, text may go), or -1 with
 * why holding "member: problem" and nothing held. Pure. */
int launch_order_parse(const char *text, size_t len, const char *nonce,
                       struct launch_order *o, char *why, size_t why_size);
void launch_order_cleanup(struct launch_order *o);

/* launch_wait.c: wait for the order file at path (inotify on its
 * directory: created and closed after writing, moved into place, or its
 * owner or mode changed; one already there is read at once) for at most
 * seconds, then read it once (a regular file, not a link, at most
 * LAUNCH_ORDER_MAX bytes) into a malloc'd *text. One this process may
 * not open yet (EACCES: dockerd chowns it after the close) is waited
 * for too. 0, 1 when none came in time, -1 with why set (also: one came
 * but stayed unreadable). */
int launch_wait_order(const char *path, unsigned seconds, char **text,
                      size_t *len, char *why, size_t why_size);

#endif
