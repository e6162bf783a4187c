/* out_ws.h - the workspace check (capture) and upload (preparation) off
 * the loop: both run on a worker thread (hostio/rc_ws_job.h) and are a
 * step "in flight" like a Docker request (try_result.h), so their
 * failures go through the one retry decision, try_inv_settle(). */
#ifndef OUT_WS_H
#define OUT_WS_H

#include <stdbool.h>

#include "ctl.h"
#include "inv_wsjob.h"

/* Whole upload deadline: the walk, the packing and the transfer of up
 * to limits.maxWorkspaceBytes. */
#define CTL_WS_UPLOAD_TIMEOUT_MS (30L * 60 * 1000)

/* Check inv->spec's workspace on the worker; answer gets r->err NULL
 * (it passed) or the check's error (rc_workspace.h's classes), never a
 * Docker reply. */
enum ctl_step out_ws_check(struct ctl_inv *inv, ctl_answer_fn *answer);

/* Pack inv->captured's workspace on the worker and stream it into the
 * keeper's /work (PUT archive, chunked). .git is left out when there is
 * no git volume; with one, its entries are digested as they are written.
 * answer gets r->err: the worker's error when the walk failed (its class
 * says whether to retry), else Docker's. */
enum ctl_step out_ws_upload(struct ctl_inv *inv, ctl_answer_fn *answer);

/* Once the upload answered: 1 when the worker packed the whole tree
 * (digest: the .git digest of the bytes sent, hex, "" without a git
 * volume), -1 when its walk failed (e: why, rc_workspace.h's classes), 0
 * when it has not ended (Docker answered first, or no upload). */
int out_ws_upload_outcome(const struct ctl_inv *inv, char digest[65],
                          struct err *e);

#endif
