/* inv_wsjob.c - an invocation's workspace worker: in flight, and freed
 * (inv_wsjob.h). */
#include "inv_wsjob.h"

#include <stdlib.h>

bool
inv_ws_in_flight(const struct ctl_inv *inv)
{
    return inv->ws != NULL && ev_is_active(&inv->ws->io);
}

void
inv_ws_free(struct ctl_inv *inv)
{
    struct inv_ws *w = inv->ws;

    if (w == NULL)
        return;
    ev_io_stop(inv->ctl->loop, &w->io);
    rc_ws_job_free(w->job);
    free(w);
    inv->ws = NULL;
}
