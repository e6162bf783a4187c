/* box_boxreq.h - the requests that build a box (an attempt's or a warm
 * box's) from its desired state (box_boxreq.c): the one place they are
 * made. Who drives them differs - the planner's rungs for an invocation
 * (pass_prepare.c, box_create.c), the box's stages for the warm pool
 * (box.c) - what goes to Docker does not. */
#ifndef BOX_BOXREQ_H
#define BOX_BOXREQ_H

#include "ctl.h"

enum box_boxreq_op {
    CTL_BOXREQ_EGRESS_CREATE, /* the shared egress network (config name) */
    CTL_BOXREQ_CREATE,        /* the object of role, from its body */
    CTL_BOXREQ_CONNECT,       /* container id joins the egress network */
    CTL_BOXREQ_START,         /* container id starts */
};

/* What an op needs: the desired state and role (CREATE), the container's
 * ID (CONNECT, START), the call's options (CREATE, may be NULL), and who
 * gets the answer. */
struct box_boxreq {
    const struct ctl *ctl;
    const struct rc_desired *desired;
    enum rc_role role;
    const char *id;
    const struct dk_call *opts;
    dk_done_fn *done;
    void *arg;
};

/* Start the op's request; NULL with e set when it cannot start. */
struct dk_req *box_boxreq_send(enum box_boxreq_op op,
                               const struct box_boxreq *q, struct err *e);

#endif
