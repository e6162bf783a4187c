/* drift_pins.c - the capture's image pins (docs/design.md "The resource":
 * the attempt runs the image IDs its tags named at capture): the agent's
 * image and every helper image its vendor runs (proxy, keeper, probe,
 * gateway).
 *
 * They used to be inspected one after the other, four round trips before
 * the attempt's first object. They do not depend on each other, so all
 * go out at once, each an inspect of its own, and the last answer
 * settles the pass: one round trip. The first failure is kept: an image
 * not on the host ends the attempt (agentctl never pulls, the caller
 * says so), any other failure is the step's and is retried with backoff,
 * asking again only for what is not pinned yet. */
#include "drift_pins.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drift_objects.h"
#include "inv_pinset.h"
#include "try_result.h"

#define PIN_SLOTS (1 + RC_HELPER_COUNT) /* the agent's image, each helper */

/* The tag slot i pins, or NULL when the vendor runs no such helper. */
static const char *
tag_of(const struct ctl_inv *inv, int i)
{
    const struct cfg_vendor *v =
        cfg_find_vendor(inv->ctl->cfg, inv->spec->vendor);

    if (i == 0)
        return inv->spec->image;
    if (!rc_helper_needed(v, (enum rc_helper)(i - 1)))
        return NULL;
    return rc_helper_tag(inv->ctl->cfg, (enum rc_helper)(i - 1));
}

static char *
slot(struct ctl_pins *p, int i)
{
    return i == 0 ? p->image : p->helpers[i - 1];
}

void
drift_pins_forget(struct ctl_inv *inv)
{
    inv_pins_free(inv->capture.pins);
    inv->capture.pins = NULL;
}

static void
keep_failure(struct ctl_pins *p, const struct err *why, int missing)
{
    if (p->failed != NULL || (p->failed = malloc(sizeof(*p->failed))) == NULL)
        return;
    *p->failed = *why;
    p->missing = missing;
}

/* Slot i is pinned to id. The answer is the image's whole inspect, whose
 * Config the drift rules read (by ID, cached for the controller's life):
 * kept now, the round before the start needs no request of its own for
 * it - three fewer round trips there on a controller's first attempt. */
static void
pinned(struct ctl_inv *inv, int i, const char *id, cJSON *inspect)
{
    snprintf(slot(inv->capture.pins, i), sizeof(inv->capture.pins->image), "%s",
             id);
    if (cJSON_GetObjectItemCaseSensitive(inv->ctl->image_configs, id) == NULL)
        drift_objects_keep_image_config(inv->ctl, id, inspect);
}

static void
on_pinned(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    struct ctl_pins *p = inv->capture.pins;
    const cJSON *id;
    struct err e;
    int i = 0;

    while (i < PIN_SLOTS && p->req[i] != req)
        i++;
    if (i == PIN_SLOTS)
        return; /* not one of ours (cannot happen: forget cancels) */
    p->req[i] = NULL;
    p->out--;
    id = cJSON_GetObjectItemCaseSensitive(r->json, "Id");
    if (r->err != NULL)
        keep_failure(p, r->err, r->err->code == ERR_NOTFOUND ? i + 1 : 0);
    else if (!cJSON_IsString(id))
        keep_failure(p, (err_set(&e, ERR_SYNTAX, "image inspect has no Id"), &e),
                     0);
    else
        pinned(inv, i, id->valuestring, r->json);
    if (p->out > 0)
        return;
    if (p->failed != NULL && !p->missing) {
        e = *p->failed;
        free(p->failed);
        p->failed = NULL;
        try_inv_settle(inv, try_step_failed(inv, &e));
        return;
    }
    try_inv_settle(inv, CTL_STEP_DONE); /* the pass commits, or ends it */
}

/* The message of an image that is not on the host. */
static void
say_missing(const struct ctl_inv *inv, char *out, size_t size)
{
    int i = inv->capture.pins->missing - 1;

    if (i == 0)
        snprintf(out, size,
                 "image %s is not on this Docker host (agentctl never "
                 "pulls): build or load it first",
                 inv->spec->image);
    else
        snprintf(out, size,
                 "helper image %s (config images.%s) is not on this Docker "
                 "host (agentctl never pulls): build or load it first",
                 tag_of(inv, i), rc_helper_name((enum rc_helper)(i - 1)));
}

/* Send every inspect whose image is not pinned yet. */
static enum ctl_step
send_all(struct ctl_inv *inv)
{
    struct ctl_pins *p = inv->capture.pins;
    struct err e;

    for (int i = 0; i < PIN_SLOTS; i++) {
        const char *tag = tag_of(inv, i);

        if (tag == NULL || slot(p, i)[0] != '\0')
            continue;
        p->req[i] = dk_inspect(inv->ctl->dk, DK_IMAGE, tag, on_pinned, inv, &e);
        if (p->req[i] == NULL) {
            drift_pins_forget(inv); /* cancels the ones sent */
            return try_step_failed(inv, &e);
        }
        p->out++;
    }
    return p->out > 0 ? CTL_STEP_STARTED : CTL_STEP_NONE;
}

enum ctl_step
drift_pins_step(struct ctl_inv *inv, char *missing, size_t size)
{
    struct err e;

    /* The pins of one capture are of one spec: a spec changed between
     * two inspects starts the pinning over. */
    if (inv->capture.pins != NULL &&
        strcmp(inv->capture.pins->hash, inv->spec->spec_hash) != 0)
        drift_pins_forget(inv);
    if (inv->capture.pins == NULL) {
        if ((inv->capture.pins = calloc(1, sizeof(*inv->capture.pins))) ==
            NULL) {
            err_set(&e, ERR_NOMEM, "out of memory pinning images");
            return try_step_failed(inv, &e);
        }
        snprintf(inv->capture.pins->hash, sizeof(inv->capture.pins->hash), "%s",
                 inv->spec->spec_hash);
    }
    if (inv_pins_out(inv->capture.pins))
        return CTL_STEP_STARTED; /* the last answer settles the pass */
    if (inv->capture.pins->missing) {
        /* its slot is the first still empty: name it before they go */
        say_missing(inv, missing, size);
        drift_pins_forget(inv);
        return CTL_STEP_DONE;
    }
    return send_all(inv);
}
