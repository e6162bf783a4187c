/* loop_docker.c - whether the Docker daemon answers (loop_docker.h): the
 * version is negotiated, then GET /info must show that the daemon
 * confines containers with seccomp (docs/security-defaults.md) before the
 * controller builds any box. */
#include "loop_docker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* The daemon's SecurityOptions, or (test-hooks build) the JSON array in
 * AGENTCTL_TEST_INFO_SECURITY instead: the refusal's negative control
 * needs a daemon without seccomp, and the shared one has it. */
static int
read_security(struct ctl *c, const cJSON *info, struct err *e)
{
#ifdef AGENTCTL_TEST_HOOKS
    const char *fake = getenv("AGENTCTL_TEST_INFO_SECURITY");

    if (fake != NULL) {
        cJSON *doc = cJSON_CreateObject();
        int rc;

        cJSON_AddItemToObject(doc, "SecurityOptions", cJSON_Parse(fake));
        log_kv(LOG_WARN, "TEST HOOK: SecurityOptions replaced", "value", fake,
               NULL);
        rc = dk_security_from_info(doc, &c->security, e);
        cJSON_Delete(doc);
        return rc;
    }
#endif
    return dk_security_from_info(info, &c->security, e);
}

/* Docker answers: unless it runs boxes without seccomp, start (or go on)
 * working. Without seccomp the controller stays up with nothing to do
 * (docker_up false, /healthz says why) and asks again at the next check. */
static void
on_info(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl *c = arg;
    bool was_up = c->docker_up;
    struct err e = { 0 };

    (void)req;
    c->negotiating = false;
    if (r->err != NULL) {
        snprintf(c->docker_error, sizeof(c->docker_error), "%s", r->err->msg);
        c->docker_up = false;
        return;
    }
    if (read_security(c, r->json, &e) == -1) {
        if (strcmp(c->security_error, e.msg) != 0)
            log_kv(LOG_ERROR, "refusing to run boxes", "error", e.msg, NULL);
        snprintf(c->security_error, sizeof(c->security_error), "%s", e.msg);
        snprintf(c->docker_error, sizeof(c->docker_error), "%s", e.msg);
        c->docker_up = false;
        return;
    }
    c->security_error[0] = '\0';
    c->docker_error[0] = '\0';
    c->docker_up = true;
    if (!was_up) {
        log_kv(LOG_INFO, "Docker daemon reachable", "api", DK_API_VERSION,
               NULL);
        log_kv(LOG_INFO, "Docker daemon confines boxes", "seccomp",
               c->security.seccomp_profile[0] ? c->security.seccomp_profile
                                              : "yes",
               "apparmor", c->security.apparmor ? "yes" : "no", NULL);
        if (c->docker_back != NULL)
            c->docker_back(c);
    }
}

static void
on_negotiated(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl *c = arg;
    struct err e;

    (void)req;
    if (r->err != NULL) {
        c->negotiating = false;
        if (c->docker_up || c->docker_error[0] == '\0')
            log_kv(LOG_WARN, "Docker daemon unreachable", "error", r->err->msg,
                   NULL);
        c->docker_up = false;
        snprintf(c->docker_error, sizeof(c->docker_error), "%s", r->err->msg);
        return;
    }
    /* still negotiating until /info answers */
    if (dk_info(c->dk, on_info, c, &e) == NULL) {
        c->negotiating = false;
        snprintf(c->docker_error, sizeof(c->docker_error), "%s", e.msg);
    }
}

void
loop_check_docker(struct ctl *c)
{
    struct err e;

    if (c->negotiating)
        return;
    if (dk_negotiate(c->dk, on_negotiated, c, &e) == -1) {
        snprintf(c->docker_error, sizeof(c->docker_error), "%s", e.msg);
        return;
    }
    c->negotiating = true;
}
