/* rc_drift_wait.c - container.waiting (rc_drift_rules.c): a warm box's
 * agent, created and started in agent-launch's wait mode
 * (rc_desired_wait), must still be waiting when the pool checks it and
 * when a claim is about to write its order. The fields the body fixes
 * (Entrypoint, labels, mounts, ...) have their own rules; this one reads
 * the State those rules do not, and that the label and the Entrypoint
 * name the same nonce. */
#include "rc_drift_int.h"

#include <stdio.h>
#include <string.h>

/* State.<k> must be the boolean want. */
static int
state_is(const struct rc_drift_ctx *c, const char *k, bool want,
         struct rc_drift_find *f)
{
    char path[64];
    const cJSON *v;

    snprintf(path, sizeof(path), "State.%s", k);
    v = rc_drift__get(c->inspect, path);
    if (cJSON_IsBool(v) && cJSON_IsTrue(v) == want)
        return 0;
    {
        cJSON *exp = cJSON_CreateBool(want);
        int rc = exp == NULL ? -1 : rc_drift__found(c, f, path, exp, v);

        cJSON_Delete(exp);
        return rc;
    }
}

/* The nonce after --order-nonce in the inspect's Config.Entrypoint. */
static const char *
entry_nonce(const cJSON *inspect)
{
    const cJSON *e = rc_drift__get(inspect, "Config.Entrypoint"), *w;

    cJSON_ArrayForEach(w, e)
    {
        const char *s = rc_drift__str(w);

        if (s != NULL && strcmp(s, "--order-nonce") == 0)
            return rc_drift__str(w->next);
    }
    return NULL;
}

int
rc_drift__cmp_waiting(const struct rc_drift_ctx *c,
                      const struct rc_drift_rule *r, struct rc_drift_find *f)
{
    const cJSON *labels = rc_drift__get(c->inspect, "Config.Labels");
    const char *label, *nonce = entry_nonce(c->inspect);
    int rc;

    (void)r;
    if (!c->x->waiting)
        return 0;
    if ((rc = state_is(c, "Running", true, f)) != 0 ||
        (rc = state_is(c, "Paused", false, f)) != 0 ||
        (rc = state_is(c, "Restarting", false, f)) != 0 ||
        (rc = state_is(c, "OOMKilled", false, f)) != 0)
        return rc;
    label = rc_drift__str(
        cJSON_GetObjectItemCaseSensitive(labels, RC_LABEL_ORDER_NONCE));
    if (label == NULL || nonce == NULL || strcmp(label, nonce) != 0) {
        snprintf(f->field, sizeof(f->field), "Config.Labels.%s",
                 RC_LABEL_ORDER_NONCE);
        snprintf(f->expected, sizeof(f->expected), "the Entrypoint's nonce");
        snprintf(f->observed, sizeof(f->observed), "%s",
                 label == NULL ? "none" : "another");
        rc_drift__detail(f, "the order-nonce label (%s) is not the nonce of "
                         "its Entrypoint's wait (%s)",
                         label ? "set" : "missing", nonce ? "set" : "none");
        return 1;
    }
    return 0;
}
