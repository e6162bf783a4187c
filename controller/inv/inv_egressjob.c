/* inv_egressjob.c - an invocation's live egress audit freed
 * (inv_egressjob.h). */
#include "inv_egressjob.h"

#include <stdlib.h>
#include <unistd.h>

void
inv_egress_free(struct ctl_inv *inv)
{
    struct inv_egress *g = inv->cleanup.egress;

    if (g == NULL)
        return;
    for (size_t i = 0; i < CTL_EGRESS_SOURCES; i++) {
        dk_cancel(g->src[i].follow);
        dk_cancel(g->src[i].read);
        if (ev_cb(&g->src[i].wake) != NULL)
            ev_timer_stop(inv->ctl->loop, &g->src[i].wake);
    }
    if (g->fd >= 0)
        close(g->fd);
    buf_cleanup(&g->q);
    free(g);
    inv->cleanup.egress = NULL;
}
