/* box_boxreq.c - the requests that build a box from its desired state
 * (box_boxreq.h): an invocation's box and a warm box are made by the same
 * creates, connects and starts, with the same bodies (rc_desired.c). */
#include "box_boxreq.h"

#include "drift_objects.h"

/* The egress network is the config's, shared by every box. */
static struct dk_req *
egress_create(const struct box_boxreq *q, struct err *e)
{
    cJSON *body = rc_egress_network_body(q->ctl->cfg->egress_network);
    struct dk_req *req;

    req = dk_create(q->ctl->dk, DK_NETWORK, NULL, body, NULL, q->done, q->arg,
                    e);
    cJSON_Delete(body);
    return req;
}

/* A network is named by its body, a container by the query. */
static struct dk_req *
create_role(const struct box_boxreq *q, struct err *e)
{
    enum dk_kind k = drift_role_dk_kind(q->role);
    const struct rc_object *o = rc_desired_object(q->desired, q->role);

    return dk_create(q->ctl->dk, k, k == DK_CONTAINER ? o->name : NULL,
                     o->body, q->opts, q->done, q->arg, e);
}

static struct dk_req *
egress_connect(const struct box_boxreq *q, struct err *e)
{
    cJSON *body = rc_desired_egress_connect(q->desired, q->id);
    struct dk_req *req =
        dk_network_connect(q->ctl->dk, q->ctl->cfg->egress_network, body,
                           q->done, q->arg, e);

    cJSON_Delete(body);
    return req;
}

struct dk_req *
box_boxreq_send(enum box_boxreq_op op, const struct box_boxreq *q,
                struct err *e)
{
    switch (op) {
    case CTL_BOXREQ_EGRESS_CREATE:
        return egress_create(q, e);
    case CTL_BOXREQ_CREATE:
        return create_role(q, e);
    case CTL_BOXREQ_CONNECT:
        return egress_connect(q, e);
    case CTL_BOXREQ_START:
        return dk_container_start(q->ctl->dk, q->id, q->done, q->arg, e);
    }
    err_set(e, ERR_INVALID, "no box request for this op");
    return NULL;
}
