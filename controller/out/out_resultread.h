/* out_resultread.h - the agent's result read back from its CLI's
 * documented channel when it exits (out_resultread.c; docs/status.md
 * "result"): Claude Code's stdout envelope, kept beside the output
 * capture while the logs are followed, and Codex's --output-last-message
 * file, read from the keeper once the CLI exited. */
#ifndef OUT_RESULTREAD_H
#define OUT_RESULTREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "ctl.h"
#include "inv_resultjob.h"

/* The logs are followed from their first byte (again): the stdout kept
 * for the envelope starts over too. */
void out_resultread_restart(struct ctl_inv *inv);

/* A chunk of the followed logs (multiplexed). Stdout past the bound stops
 * the agent at once (capture-failure): a 100 MB line is never held. */
void out_resultread_feed_logs(struct ctl_inv *inv, const char *data,
                              size_t len);

/* After the agent's exit, before the attempt's end is decided: read,
 * check and record status.result. CTL_STEP_NONE when the result is read
 * (or the attempt has none: a command spec, another adapter, an attempt
 * an older version captured); otherwise what the step did (a read in
 * flight, a daemon to retry). */
enum ctl_step out_resultread_step(struct ctl_inv *inv);

enum out_result_verdict {
    CTL_RESULT_FINE = 0,   /* none, or read and valid */
    CTL_RESULT_UNUSABLE,   /* missing, oversized, not UTF-8, malformed,
                              too deep, invalid: capture-failure */
    CTL_RESULT_CLI_ERROR,  /* the CLI reported an error (is_error) */
};

/* What the read says about an attempt whose CLI exited 0; msg says why
 * in words. */
enum out_result_verdict out_resultread_verdict(const struct ctl_inv *inv,
                                               char *msg, size_t size);

#endif
