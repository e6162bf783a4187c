/* inv_wsjob.h - an invocation's workspace worker (hostio/rc_ws_job.h) as
 * the controller holds it: whether a check is in flight, and how it is
 * stopped and freed. Below ctl_result and ctl_queue, which ask and free;
 * the steps that start it are out_ws.h. */
#ifndef INV_WSJOB_H
#define INV_WSJOB_H

#include <stdbool.h>

#include "ctl.h"
#include "rc_ws_job.h"

struct inv_ws {
    struct ctl_inv *inv;
    struct rc_ws_job *job;
    ev_io io;              /* a check: the job's fd, until end-of-file */
    ctl_answer_fn *answer; /* a check: reads the outcome */
};

/* A check is running (the pass waits for it as for a lane's request). */
bool inv_ws_in_flight(const struct ctl_inv *inv);

/* Stop a running worker and free its state: after the lanes' requests are cancelled,
 * since the upload's stream fd is closed here. No-op without one. */
void inv_ws_free(struct ctl_inv *inv);

#endif
