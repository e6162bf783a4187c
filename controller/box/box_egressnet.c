/* box_egressnet.c - the shared egress network (config egressNetwork),
 * which every proxy and gateway of this controller joins, known to
 * exist.
 *
 * Each attempt used to inspect it as its first step, one round trip on
 * the path to Running before the internal network's create. The network
 * is shared and long-lived, so the controller looks it up once when the
 * daemon answers (and whenever an attempt does, for the first attempt
 * that comes before that answer) and attempts then go straight to their
 * network. Nothing is judged from the memory but existence, as the
 * inspect did: a proxy's or gateway's connect or start that answers 404
 * (the network was removed since; Docker takes the connect of a container
 * never started and refuses its start) forgets it, and that attempt's
 * retry inspects (and creates) it as before, then starts (pass_prepare.c). */
#include "box_egressnet.h"

#include "log.h"

static void
on_looked(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl *c = arg;

    (void)req;
    c->egress_look = NULL;
    /* not there: the first attempt creates it (pass_prepare.c) */
    box_egressnet_seen(c, r->err == NULL);
}

void
box_egressnet_look(struct ctl *c)
{
    struct err e;

    c->egress_known = false;
    dk_cancel(c->egress_look); /* of a config's network reloaded since */
    c->egress_look = dk_inspect(c->dk, DK_NETWORK, c->cfg->egress_network,
                                on_looked, c, &e);
    if (c->egress_look == NULL)
        log_kv(LOG_WARN, "egress network not looked up", "error", e.msg, NULL);
}

void
box_egressnet_seen(struct ctl *c, bool there)
{
    c->egress_known = there;
}

bool
box_egressnet_known(const struct ctl *c)
{
    return c->egress_known;
}
