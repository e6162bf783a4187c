/* ctl_docker.c - whether the Docker daemon answers (ctl_docker.h). */
#include "ctl_docker.h"

#include <stdio.h>

#include "log.h"

static void
on_negotiated(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl *c = arg;
    bool was_up = c->docker_up;

    (void)req;
    c->negotiating = false;
    c->docker_up = r->err == NULL;
    if (r->err != NULL) {
        if (was_up || c->docker_error[0] == '\0')
            log_kv(LOG_WARN, "Docker daemon unreachable", "error", r->err->msg,
                   NULL);
        snprintf(c->docker_error, sizeof(c->docker_error), "%s", r->err->msg);
        return;
    }
    c->docker_error[0] = '\0';
    if (!was_up) {
        log_kv(LOG_INFO, "Docker daemon reachable", "api", DK_API_VERSION,
               NULL);
        if (c->docker_back != NULL)
            c->docker_back(c);
    }
}

void
ctl_check_docker(struct ctl *c)
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
