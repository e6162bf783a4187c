/* box_probe.c - the boundary probe (docs/design.md "What one invocation
 * becomes", step 5): before the agent starts, a short-lived container with
 * the agent's hardening, on the internal network only, checks from the
 * agent's side that the proxy admits the vendor (200, or 502/504 when the
 * vendor itself is down: recorded, not a breach), refuses a name off the
 * allowlist (403), and that nothing is reachable past the proxy (the
 * internal gateway, the proxy's egress address) and no outside name
 * resolves. The agent starts only after BoundaryVerified=True; a breach
 * fails the attempt closed with the probe's finding, and so does a probe
 * that got no definite answer (inconclusive). Its container sets one
 * namespaced sysctl so an address no one holds answers in ~150 ms
 * (rc_probe.h RC_PROBE_SYSCTL_ARP).
 *
 * Steps: create (recorded as resources.probe), start, wait, read its one
 * JSON line from the logs, remove it by ID, record progress.boundaryVerified.
 */
#include "box_probe.h"

#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "box_create.h"
#include "drift_objects.h"
#include "ctl_record.h"
#include "drift_start.h"
#include "try_result.h"
#include "inv_status.h"
#include "inv_stop.h"
#include "ctl_testhooks.h"
#include "log.h"
#include "rc_probe.h"

#define PROBE_TIMEOUT_S 120

struct dk_req *
box_probe_request(struct dk *dk, enum box_probe_stage s,
                  const struct box_probe_call *pc, struct err *e)
{
    switch (s) {
    case CTL_PROBE_CREATE:
        return dk_create(dk, DK_CONTAINER, pc->name, pc->body, pc->opts,
                         pc->done, pc->arg, e);
    case CTL_PROBE_START:
        return dk_container_start(dk, pc->id, pc->done, pc->arg, e);
    case CTL_PROBE_WAIT:
        return dk_container_wait(dk, pc->id, pc->wait_ms, pc->done, pc->arg,
                                 e);
    case CTL_PROBE_READ:
        return dk_container_logs(dk, pc->id, pc->done, pc->arg, e);
    case CTL_PROBE_REMOVE:
        return dk_remove(dk, DK_CONTAINER, pc->id, pc->done, pc->arg, e);
    }
    err_set(e, ERR_INVALID, "no probe request at this stage");
    return NULL;
}

enum ctl_step
box_probe_run(struct ctl_inv *inv, ctl_answer_fn *answer,
              enum box_probe_stage s, struct box_probe_call pc)
{
    struct err e;

    pc.done = try_step_answered;
    pc.arg = inv;
    return try_step_request(inv, answer,
                            box_probe_request(inv->ctl->dk, s, &pc, &e), &e);
}

/* The probe's name was taken: by this attempt's own probe when a killed
 * controller created it and its ID never reached the record (with two
 * lanes the probe's create can be in flight at any crash point of the
 * storage's), adopted by its labels - its start is run-once, so a probe
 * that ran is read, not run again; by anything else, refused. */
static enum ctl_step
on_conflict_inspected(struct ctl_inv *inv, struct dk_response *r)
{
    char name[RC_NAME_MAX];
    const char *id;

    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    rc_probe_name(inv->desired->prefix, name);
    id = drift_objects_identity(r->json, false);
    if (id != NULL && drift_objects_ours(inv, r->json, RC_PROBE_ROLE)) {
        ctl_record_set_role(&inv->rec, CTL_REC_PROBE, id, name);
        inv->probe.exited = false;
        inv_event(inv, false, "Adopted",
                  "probe %s was created for this attempt before a restart: "
                  "adopted",
                  name);
        return CTL_STEP_DONE;
    }
    return box_create_refuse_name(inv, RC_PROBE_ROLE, name);
}

static enum ctl_step
on_created(struct ctl_inv *inv, struct dk_response *r)
{
    const cJSON *id;
    char name[RC_NAME_MAX];
    struct err e;

    rc_probe_name(inv->desired->prefix, name);
    if (r->err != NULL && r->err->code == ERR_CONFLICT)
        return try_step_request(inv, on_conflict_inspected,
                                dk_inspect(inv->ctl->dk, DK_CONTAINER, name,
                                           try_step_answered, inv, &e),
                                &e);
    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    id = cJSON_GetObjectItemCaseSensitive(r->json, "Id");
    if (cJSON_IsString(id)) {
        ctl_record_set_role(&inv->rec, CTL_REC_PROBE, id->valuestring, name);
        drift_start_saw(inv, id->valuestring, NULL); /* new */
    }
    inv->probe.exited = false;
    ctl_test_point("created", "probe");
    return CTL_STEP_DONE;
}

enum rc_probe_mode
box_probe_mode(const struct ctl_inv *inv)
{
    return inv->desired->gateway_url[0] != '\0' ? RC_PROBE_MODE_GATEWAY
                                                : RC_PROBE_MODE_CONNECT;
}

/* The direct targets past the proxy: the internal gateway (the host,
 * which inhibit_ipv4 keeps off the network) and the proxy's egress-side
 * address when known. Returns how many it put in direct (at most 3). */
static size_t
direct_targets(const struct ctl *c, const struct rc_desired *d,
               const char *proxy_egress_ip, char direct[][RC_IP_MAX + 8],
               const char **dp)
{
    size_t n = 0;

    snprintf(direct[n], sizeof(direct[n]), "%s:443", d->gateway);
    dp[n] = direct[n], n++;
    snprintf(direct[n], sizeof(direct[n]), "%s:80", d->gateway);
    dp[n] = direct[n], n++;
    if (proxy_egress_ip != NULL && proxy_egress_ip[0] != '\0') {
        snprintf(direct[n], sizeof(direct[n]), "%s:%u", proxy_egress_ip,
                 (unsigned)c->cfg->proxy_port);
        dp[n] = direct[n], n++;
    }
    return n;
}

cJSON *
box_probe_body_connect(const struct ctl *c, const struct rc_desired *d,
                       const char *vendor, const char *proxy_egress_ip,
                       const char *uid, const char *attempt)
{
    const struct cfg_vendor *v = cfg_find_vendor(c->cfg, vendor);
    char direct[4][RC_IP_MAX + 8];
    const char *dp[4];
    size_t n = direct_targets(c, d, proxy_egress_ip, direct, dp);

    return rc_probe_body(d, c->cfg, d->helper_images[RC_HELPER_PROBE],
                         v ? v->hosts[0] : "vendor.invalid:443", NULL,
                         RC_PROBE_DENIED_DEFAULT, dp, n, c->opts.controller_id,
                         uid, attempt);
}

cJSON *
box_probe_body(struct ctl_inv *inv)
{
    const struct cfg_vendor *v =
        cfg_find_vendor(inv->ctl->cfg, inv->captured->vendor);
    const char *host = v ? v->hosts[0] : "vendor.invalid:443";
    char direct[4][RC_IP_MAX + 8], gateway[RC_IP_MAX + 8];
    const char *dp[4];
    size_t n;

    if (box_probe_mode(inv) == RC_PROBE_MODE_CONNECT)
        return box_probe_body_connect(
            inv->ctl, inv->desired, inv->captured->vendor,
            inv->net.proxy_egress_ip, inv->rec.uid, inv->rec.attempt);
    /* Gateway mode: the gateway must refuse a path outside its rules, and
     * the vendor through the proxy must be refused (a request that goes
     * around the gateway fails); nor may its egress side be reached. */
    n = direct_targets(inv->ctl, inv->desired, inv->net.proxy_egress_ip, direct,
                       dp);
    if (inv->net.gateway_egress_ip[0] != '\0') {
        snprintf(direct[n], sizeof(direct[n]), "%s:%u",
                 inv->net.gateway_egress_ip, (unsigned)RC_GATEWAY_PORT);
        dp[n] = direct[n], n++;
    }
    snprintf(gateway, sizeof(gateway), "%s:%u", inv->desired->gateway_ip,
             (unsigned)RC_GATEWAY_PORT);
    return rc_probe_body(inv->desired, inv->ctl->cfg,
                         inv->desired->helper_images[RC_HELPER_PROBE], NULL,
                         gateway, host, dp, n, inv->ctl->opts.controller_id,
                         inv->rec.uid, inv->rec.attempt);
}

/* A helper's address on the egress network, for the probe's direct
 * checks: the proxy and the gateway must not be reachable there from the
 * box. An address-less helper is not yet what the box needs. */
static enum ctl_step
egress_learnt(struct ctl_inv *inv, struct dk_response *r, char ip[16],
              const char *role)
{
    struct err e;

    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    drift_objects_egress_ip(inv->ctl, r->json, ip);
    if (ip[0] != '\0')
        return CTL_STEP_DONE;
    err_set(&e, ERR_INVALID, "the %s has no address on the egress network "
            "yet: the boundary probe waits for it", role);
    return try_step_failed(inv, &e);
}

static enum ctl_step
on_proxy_inspected(struct ctl_inv *inv, struct dk_response *r)
{
    return egress_learnt(inv, r, inv->net.proxy_egress_ip, "proxy");
}

static enum ctl_step
on_gateway_inspected(struct ctl_inv *inv, struct dk_response *r)
{
    return egress_learnt(inv, r, inv->net.gateway_egress_ip, "gateway");
}

/* The proxy's (and the gateway's) egress address, when no inspect has
 * shown it yet (the first probe of an attempt runs before the first
 * revalidation round): CTL_STEP_NONE when both are known. */
static enum ctl_step
learn_egress(struct ctl_inv *inv)
{
    const char *role = NULL;
    ctl_answer_fn *answer = NULL;
    struct err e;

    if (ctl_test_disabled("probe-egress"))
        return CTL_STEP_NONE;
    if (inv->net.proxy_egress_ip[0] == '\0')
        role = "proxy", answer = on_proxy_inspected;
    else if (box_probe_mode(inv) == RC_PROBE_MODE_GATEWAY &&
             inv->net.gateway_egress_ip[0] == '\0')
        role = "gateway", answer = on_gateway_inspected;
    if (role == NULL)
        return CTL_STEP_NONE;
    return try_step_request(
        inv, answer,
        dk_inspect(inv->ctl->dk, DK_CONTAINER,
                   ctl_record_role_id(&inv->rec, strcmp(role, "proxy") == 0
                                                     ? RC_ROLE_PROXY
                                                     : RC_ROLE_GATEWAY),
                   try_step_answered, inv, &e),
        &e);
}

static enum ctl_step
step_create(struct ctl_inv *inv)
{
    char name[RC_NAME_MAX];
    cJSON *body;
    enum ctl_step ok;

    if ((ok = learn_egress(inv)) != CTL_STEP_NONE)
        return ok;
    body = box_probe_body(inv);
    if (body == NULL) {
        inv_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED,
                 "cannot build the boundary probe");
        return CTL_STEP_DONE;
    }
    rc_probe_name(inv->desired->prefix, name);
    ok = box_probe_run(inv, on_created, CTL_PROBE_CREATE,
                       (struct box_probe_call){ .name = name, .body = body });
    cJSON_Delete(body);
    return ok;
}

static enum ctl_step
on_waited(struct ctl_inv *inv, struct dk_response *r)
{
    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    inv->probe.exit = dk_wait_status(r);
    inv->probe.exited = true;
    return CTL_STEP_DONE;
}

static void
collect(int stream, const char *data, size_t len, void *arg)
{
    (void)stream;
    buf_append(arg, data, len, NULL);
}

int
box_probe_read(const struct dk_response *r, long exit_code,
               enum rc_probe_mode mode, struct rc_probe_result *res,
               struct err *e)
{
    struct dk_logs_demux dm;
    struct buf out;
    int rc;

    buf_init(&out, RC_PROBE_MAX_OUTPUT + 1);
    dk_logs_demux_init(&dm);
    dk_logs_demux_feed(&dm, r->body, r->len, collect, &out, NULL);
    rc = rc_probe_parse(out.data ? out.data : "", out.len, exit_code, mode, res,
                        e);
    buf_cleanup(&out);
    return rc;
}

int
box_probe_verdict(struct ctl_inv *inv, const struct dk_response *r,
                  struct rc_probe_result *res, struct err *e)
{
    /* the mode box_probe_body built the probe for */
    return box_probe_read(r, inv->probe.exit, box_probe_mode(inv), res, e);
}

/* Inconclusive runs the pre-start probe may have in a row before the
 * attempt fails: under load (a busy daemon, two controllers on one host)
 * a check can go unanswered once; silence twice is a boundary that cannot
 * be shown to hold, as for the canary (probe.inconclusive). */
#define PROBE_SILENT_MAX 2

/* judge()'s outcome: go on, or run the probe again. */
enum judged { JUDGED, RUN_AGAIN };

static enum judged
judge(struct ctl_inv *inv, const struct dk_response *r)
{
    struct rc_probe_result res;
    struct err e;

    if (box_probe_verdict(inv, r, &res, &e) == -1) {
        inv_status_set_condition(inv, "BoundaryVerified", false, "ProbeFailed",
                                 e.msg);
        inv_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED, e.msg);
        return JUDGED;
    }
    if (ctl_test_probe_silent())
        res.verdict = RC_PROBE_INCONCLUSIVE; /* test-hooks build only */
    if (res.verdict == RC_PROBE_INCONCLUSIVE &&
        ++inv->probe.silent < PROBE_SILENT_MAX &&
        !ctl_test_disabled("probe-rerun")) {
        inv_event(inv, true, "BoundaryInconclusive",
                  "the boundary probe got no definite answer (%s): it runs "
                  "again",
                  res.finding);
        return RUN_AGAIN;
    }
    if (res.verdict == RC_PROBE_OK) {
        inv_status_set_condition(inv, "BoundaryVerified", true,
                                 res.vendor_reachable ? "Verified"
                                                      : "VendorUnreachable",
                                 res.finding);
        inv_event(inv, !res.vendor_reachable, "BoundaryVerified", "%s",
                  res.finding);
        ctl_record_set_done(&inv->rec, CTL_PROG_BOUNDARY_VERIFIED);
        return JUDGED;
    }
    /* Inconclusive (a silence the probe could not explain) fails closed
     * like a broken proxy: the boundary was not shown to hold. */
    inv_status_set_condition(inv, "BoundaryVerified", false,
                             res.verdict == RC_PROBE_BREACH ? "Breach"
                             : res.verdict == RC_PROBE_INCONCLUSIVE
                                 ? "Inconclusive"
                                 : "ProxyBroken",
                             res.finding);
    inv_stop(inv, CTL_FAILED,
             res.verdict == RC_PROBE_BREACH ? CTL_STOP_BOUNDARY_BREACH
                                            : CTL_STOP_PREPARATION_FAILED,
             res.finding);
    return JUDGED;
}

/* The silent probe is gone: a new one is created, started and read. */
static enum ctl_step
on_removed_for_rerun(struct ctl_inv *inv, struct dk_response *r)
{
    if (r->err != NULL && r->err->code != ERR_NOTFOUND)
        return try_step_failed(inv, r->err);
    ctl_record_drop_role(&inv->rec, CTL_REC_PROBE);
    ctl_record_clear_done(&inv->rec, CTL_PROG_PROBE_STARTED);
    ctl_record_clear_done(&inv->rec, CTL_PROG_PROBE_CREATED);
    inv->probe.exited = false;
    return CTL_STEP_DONE;
}

static enum ctl_step
on_logs(struct ctl_inv *inv, struct dk_response *r)
{
    const char *id = ctl_record_role_id(&inv->rec, CTL_REC_PROBE);

    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    if (judge(inv, r) == JUDGED)
        return CTL_STEP_DONE;
    return box_probe_run(inv, on_removed_for_rerun, CTL_PROBE_REMOVE,
                         (struct box_probe_call){ .id = id });
}

static enum ctl_step
on_removed(struct ctl_inv *inv, struct dk_response *r)
{
    if (r->err != NULL && r->err->code != ERR_NOTFOUND)
        return try_step_failed(inv, r->err);
    ctl_record_drop_role(&inv->rec, CTL_REC_PROBE);
    return CTL_STEP_DONE;
}

enum ctl_step
box_probe_step(struct ctl_inv *inv, enum plan_action action)
{
    struct box_probe_call pc = {
        .id = ctl_record_role_id(&inv->rec, CTL_REC_PROBE),
        .wait_ms = PROBE_TIMEOUT_S * 1000L,
    };

    switch (action) {
    case PLAN_PROBE_CREATE:
        return step_create(inv);
    case PLAN_PROBE_WAIT:
        return box_probe_run(inv, on_waited, CTL_PROBE_WAIT, pc);
    case PLAN_PROBE_READ:
        return box_probe_run(inv, on_logs, CTL_PROBE_READ, pc);
    case PLAN_PROBE_DISCARD:
        return box_probe_run(inv, on_removed, CTL_PROBE_REMOVE, pc);
    default:
        return CTL_STEP_NONE; /* not a probe step */
    }
}
