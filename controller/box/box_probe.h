/* box_probe.h - the boundary probe's steps (box_probe.c). */
#ifndef BOX_PROBE_H
#define BOX_PROBE_H

#include "ctl.h"
#include "rc_probe.h"

/* One run of a probe container, in order: the boundary probe before an
 * agent starts (box_probe_step), the canary while it runs (box_canary.c)
 * and a warm box's probe (box.c) are each these requests. */
enum box_probe_stage {
    CTL_PROBE_CREATE, /* create it (name, body, opts) */
    CTL_PROBE_START,
    CTL_PROBE_WAIT,   /* for its exit, at most wait_ms */
    CTL_PROBE_READ,   /* its logs: the verdict (box_probe_read) */
    CTL_PROBE_REMOVE, /* by ID */
};

/* What a stage's request needs: the container's ID (or, for the create,
 * its name, body and call options), and who gets the answer. */
struct box_probe_call {
    const char *id;
    const char *name;
    const cJSON *body;
    const struct dk_call *opts;
    long wait_ms;
    dk_done_fn *done;
    void *arg;
};

/* The one probe runner: the request of stage s of a probe's run. NULL
 * with e set when it cannot start. */
struct dk_req *box_probe_request(struct dk *dk, enum box_probe_stage s,
                                 const struct box_probe_call *pc,
                                 struct err *e);

/* The same as a step of inv (the preparation's probe, the canary): its
 * answer goes to `answer` through try_step_answered (pc's done and arg
 * are set here). */
enum ctl_step box_probe_run(struct ctl_inv *inv, ctl_answer_fn *answer,
                            enum box_probe_stage s, struct box_probe_call pc);

/* The probe step the planner chose: PLAN_PROBE_CREATE, _WAIT, _READ or
 * _DISCARD (its start is a run-once start, pass_prepare.c). */
enum ctl_step box_probe_step(struct ctl_inv *inv, enum plan_action action);

/* Gateway mode for an attempt with a credential gateway, else CONNECT. */
enum rc_probe_mode box_probe_mode(const struct ctl_inv *inv);

/* The probe's create body for the attempt (rc_probe_body). CONNECT mode:
 * the vendor's first host allowed, a name off the list denied. Gateway
 * mode: the gateway's address, the vendor's host denied. Both: the
 * internal gateway (.1) and the proxy's (and the credential gateway's)
 * egress-side address as direct targets. Caller deletes; NULL when it
 * cannot be built. The canary (box_canary.c) joins it to the agent's
 * namespace. */
cJSON *box_probe_body(struct ctl_inv *inv);

/* The CONNECT-mode body for desired state d of vendor, labelled with
 * uid and attempt: what box_probe_body builds for an attempt, and what
 * the warm pool (box_pool.c) runs on a box. */
cJSON *box_probe_body_connect(const struct ctl *c, const struct rc_desired *d,
                              const char *vendor, const char *proxy_egress_ip,
                              const char *uid, const char *attempt);

/* Read a probe's verdict from the answer of its GET /logs and its exit
 * code in inv->probe.exit (rc_probe_parse, in the mode box_probe_body
 * built the probe for, box_probe_mode). -1 with e
 * set when it is not one well-formed probe line of that mode. */
/* The same from an exit code and a mode (the warm pool's probe). */
int box_probe_read(const struct dk_response *r, long exit_code,
                   enum rc_probe_mode mode, struct rc_probe_result *res,
                   struct err *e);

int box_probe_verdict(struct ctl_inv *inv, const struct dk_response *r,
                      struct rc_probe_result *res, struct err *e);

#endif
