/* pass_waiting.c - what a Pending invocation (or a captured one whose box
 * is not begun) waits for, where a kubectl user looks (`describe`): the
 * condition Waiting=True, its reason naming the wait and its message
 * what to do about it, and an event when the reason changes, so a wait
 * that lasts an hour of 1 s resyncs writes one event, not 3,600. When
 * the wait is over, Waiting=False/WaitOver and a Normal event WaitOver
 * naming what was waited for. docs/status.md "Conditions" lists each.
 *
 * What the controller waits on, and where it asks (pass_inv.c capture,
 * pass_prepare.c): the Docker daemon (unreachable, or running boxes
 * without seccomp: nothing is captured before GET /info says it confines
 * them), admission (the config's limits refuse the spec), and a build
 * slot (--max-building). A warm box is taken with the build slot, never
 * waited for, and an etcd claim another controller holds cannot be
 * shown here: only the claim's holder writes the status. */
#include "pass_waiting.h"

#include <stdio.h>
#include <string.h>

#include "ctl_record.h"
#include "inv_status.h"
#include "ctl_testhooks.h"

static const char *const reasons[] = {
    [CTL_WAIT_NONE] = "",
    [CTL_WAIT_DOCKER] = "DockerUnreachable",
    [CTL_WAIT_SECCOMP] = "DockerUnconfined",
    [CTL_WAIT_ADMISSION] = "NotAdmitted",
    [CTL_WAIT_BUILD_SLOT] = "BuildQueued",
};

/* What is waited for, and what the user can do about it. */
static const char *const waits[][2] = {
    [CTL_WAIT_NONE] = { "", "" },
    [CTL_WAIT_DOCKER] = { "waiting for the Docker daemon",
                          "start dockerd or point the controller's --docker "
                          "(DOCKER_HOST) at it; /readyz says when it answers" },
    [CTL_WAIT_SECCOMP] = { "waiting for a Docker daemon that confines boxes "
                           "with seccomp",
                           "run dockerd with seccomp on; nothing is built "
                           "until it does" },
    [CTL_WAIT_ADMISSION] = { "waiting for a spec or a config that admits it",
                             "lower the field in the spec, or raise the limit "
                             "in the controller's config and reload it "
                             "(SIGHUP)" },
    [CTL_WAIT_BUILD_SLOT] = { "waiting for a build slot",
                              "it is built once a box before it is; raise "
                              "--max-building to build more at once" },
};

const char *
pass_wait_reason(enum pass_wait w)
{
    return reasons[w];
}

void
pass_waiting(struct ctl_inv *inv, enum pass_wait w, const char *detail)
{
    const struct ctl_record_cond *was =
        ctl_record_condition(&inv->rec, "Waiting");
    bool waited = was != NULL && was->status;
    char msg[768];

    if (!inv->rec.present)
        return; /* no status to hold it yet: the next pass says */
    if (w == CTL_WAIT_NONE) {
        if (!waited)
            return; /* never waited, or the end is written already */
        snprintf(msg, sizeof(msg), "no longer waiting (it was %s)",
                 was->reason);
        inv_event(inv, false, "WaitOver", "%s", msg);
        inv_status_set_condition(inv, "Waiting", false, "WaitOver", msg);
        return;
    }
    snprintf(msg, sizeof(msg), "%s: %s; %s", waits[w][0],
             detail != NULL && detail[0] ? detail : "no detail", waits[w][1]);
    /* the reason changed: one event (a message that changes within the
     * same wait, e.g. the daemon's error text, updates the condition) */
    if (!waited || strcmp(was->reason, reasons[w]) != 0 ||
        ctl_test_disabled("wait-event-once"))
        inv_event(inv, w != CTL_WAIT_BUILD_SLOT, reasons[w], "%s", msg);
    inv_status_set_condition(inv, "Waiting", true, reasons[w], msg);
}

bool
pass_waiting_for_docker(struct ctl_inv *inv)
{
    const struct ctl *c = inv->ctl;

    if (c->security_error[0] != '\0')
        pass_waiting(inv, CTL_WAIT_SECCOMP, c->security_error);
    else if (!c->docker_up && c->docker_error[0] != '\0')
        pass_waiting(inv, CTL_WAIT_DOCKER, c->docker_error);
    else if (!c->docker_up)
        return true; /* not asked yet, or its first answer is on its way:
                        nothing to say (a warning at every start was
                        a false alarm) */
    else
        return false;
    return true;
}

void
pass_waiting_admission(struct ctl_inv *inv, const char *refusal)
{
    if (refusal != NULL) {
        inv_status_set_condition(inv, "Admitted", false, "NotAdmitted",
                                 refusal);
        pass_waiting(inv, CTL_WAIT_ADMISSION, refusal);
        return;
    }
    inv_status_set_condition(inv, "Admitted", true, "Admitted",
                             "the spec fits this controller's config");
    pass_waiting(inv, CTL_WAIT_NONE, NULL);
}
