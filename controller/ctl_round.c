/* ctl_round.c - a revalidation round's inspects sent together
 * (ctl_round.h).
 *
 * A round inspects ten or so objects. One after the other, each waits for
 * the answer before it, and a busy daemon stretches every wait: with ten
 * invocations being built at once the round before the agent's start took
 * seconds (docs/bench-controller.md, run G). Sent together, the daemon
 * answers them side by side and the round costs about one wait.
 *
 * Nothing about the checks changes: ctl_verify.c still takes the answers
 * one by one in its own order, and each check, a 404's look-up by name and
 * an image's config fetch run as before. The answers are read-only
 * inspects sent after the round opened, so each is at least as new as the
 * round, as one sent later in the round would be; an event that comes
 * while the round is open asks for one more round (ctl_queue.c), because
 * what it reports may be newer than an answer already kept. A kept
 * answer is for the ref it was sent for: when the record names another
 * object by then, it is dropped and the check asks again. */
#include "ctl_round.h"

#include <stdlib.h>
#include <string.h>

struct ctl_round_fetch {
    char *ref;          /* what was inspected; NULL: nothing sent */
    struct dk_req *req; /* in flight and not taken, else NULL */
    bool answered;      /* the answer is kept below */
    long status;
    cJSON *json;
    struct err *err;
};

struct ctl_round {
    struct ctl_round_fetch fetch[RC_ROLE_COUNT];
};

static void
drop(struct ctl_round_fetch *f)
{
    dk_cancel(f->req);
    free(f->ref);
    cJSON_Delete(f->json);
    free(f->err);
    memset(f, 0, sizeof(*f));
}

static struct ctl_round_fetch *
fetch_of(struct ctl_inv *inv, const struct dk_req *req)
{
    if (inv->round == NULL)
        return NULL;
    for (int r = 0; r < RC_ROLE_COUNT; r++)
        if (inv->round->fetch[r].req == req)
            return &inv->round->fetch[r];
    return NULL;
}

/* An answer: a step's now (taken onto a lane), else kept for the take. */
static void
on_fetched(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    struct ctl_round_fetch *f;

    for (int i = 0; i < CTL_LANES; i++)
        if (inv->lanes[i].call == req) {
            ctl_step_answered(req, r, inv);
            return;
        }
    if ((f = fetch_of(inv, req)) == NULL)
        return; /* not reached: a fetch dropped was cancelled */
    f->req = NULL;
    if (r->err != NULL) {
        if ((f->err = malloc(sizeof(*f->err))) == NULL) {
            drop(f); /* not kept: the check sends its own */
            return;
        }
        *f->err = *r->err;
    }
    f->answered = true;
    f->status = r->status;
    f->json = r->json;
    r->json = NULL;
}

int
ctl_round_open(struct ctl_inv *inv, struct err *e)
{
    if (inv->round != NULL)
        return 0;
    if ((inv->round = calloc(1, sizeof(*inv->round))) == NULL)
        return err_set(e, ERR_NOMEM,
                       "out of memory opening a revalidation "
                       "round");
    return 0;
}

void
ctl_round_send(struct ctl_inv *inv, enum rc_role r, enum dk_kind kind,
               const char *ref)
{
    struct ctl_round_fetch *f;
    struct err e;

    if (inv->round == NULL || ref == NULL)
        return;
    f = &inv->round->fetch[r];
    if (f->ref != NULL || (f->ref = strdup(ref)) == NULL)
        return;
    f->req = dk_inspect(inv->ctl->dk, kind, ref, on_fetched, inv, &e);
    if (f->req == NULL)
        drop(f);
}

bool
ctl_round_take(struct ctl_inv *inv, enum rc_role r, const char *ref,
               ctl_answer_fn *answer, enum ctl_step *s)
{
    struct ctl_round_fetch *f, kept;
    struct dk_response resp;

    if (inv->round == NULL || inv->round->fetch[r].ref == NULL)
        return false;
    f = &inv->round->fetch[r];
    if (ref == NULL || strcmp(f->ref, ref) != 0) {
        drop(f);
        return false;
    }
    if (f->req != NULL) {
        struct dk_req *req = f->req;

        f->req = NULL; /* the lane's now */
        drop(f);
        *s = ctl_step_request(inv, answer, req, NULL);
        return true;
    }
    /* The answer may close the round (drift found): nothing of it is
     * used after the answer function returns. */
    kept = *f;
    memset(f, 0, sizeof(*f));
    resp = (struct dk_response){
        .status = kept.status, .body = "", .json = kept.json, .err = kept.err
    };
    *s = answer(inv, &resp);
    cJSON_Delete(resp.json); /* NULL when the check kept it */
    free(kept.err);
    free(kept.ref);
    return true;
}

void
ctl_round_close(struct ctl_inv *inv)
{
    if (inv->round == NULL)
        return;
    for (int r = 0; r < RC_ROLE_COUNT; r++)
        drop(&inv->round->fetch[r]);
    free(inv->round);
    inv->round = NULL;
}
