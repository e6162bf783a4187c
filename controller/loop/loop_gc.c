/* loop_gc.c - garbage collection: at start and on every resync, list the
 * containers, volumes and networks labelled managed-by=<this controller>
 * and remove, by ID, every one that no live invocation owns: its uid
 * belongs to no invocation, or it is from another attempt than the
 * invocation's current one (or the current one is cleaned up) and the
 * status does not record it. Objects of an attempt still being prepared
 * are never touched: a create whose answer is in flight is not an orphan.
 * Nor is a stand-in the revalidation reported (status.standIns), nor a
 * container with the labels of a role of the current attempt whose create
 * answered (ctl_record_role_answered): it copied the labels, it is not
 * ours, and it is never deleted.
 */
#include "loop_gc.h"

#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "obs_observe.h"
#include "box_pool.h"
#include "inv_queue.h"
#include "ctl_record.h"
#include "ctl_testhooks.h"
#include "log.h"

enum gc_stage { GC_CONTAINERS, GC_VOLUMES, GC_NETWORKS, GC_DELETE, GC_DONE };

/* What each listing stage reads. */
static const enum dk_kind stage_kind[] = {
    [GC_CONTAINERS] = DK_CONTAINER,
    [GC_VOLUMES] = DK_VOLUME,
    [GC_NETWORKS] = DK_NETWORK,
};

/* The object carries the labels of a container role of the invocation's
 * current attempt whose create answered (ctl_record_role_answered). */
static bool
answered_role(const struct ctl_inv *inv, const cJSON *labels, const cJSON *att)
{
    const cJSON *role =
        cJSON_GetObjectItemCaseSensitive(labels, "agentctl.dev/role");

    return inv->rec.attempt != NULL && cJSON_IsString(att) &&
           strcmp(inv->rec.attempt, att->valuestring) == 0 &&
           cJSON_IsString(role) &&
           ctl_record_role_answered(&inv->rec, role->valuestring);
}

/* The invocation that recorded the warm box of this uid, or NULL. */
static struct ctl_inv *
box_taker(struct ctl *c, const char *uid)
{
    for (struct ctl_inv *i = c->invs; i != NULL; i = i->next) {
        const char *u = ctl_record_box_str(&i->rec, "uid");

        if (u != NULL && strcmp(u, uid) == 0)
            return i;
    }
    return NULL;
}

/* The object is labelled with an invocation whose status cannot be read:
 * its uid and records are unknown, so nothing of it is garbage. */
static bool
held_by_name(struct ctl *c, const cJSON *labels)
{
    const char *name = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(labels, "agentctl.dev/invocation"));
    struct ctl_inv *inv = name != NULL ? inv_find(c, name) : NULL;

    return inv != NULL && inv->status_unreadable;
}

/* identity: how status.standIns knows the object - its ID, or a volume's
 * CreatedAt (volumes have no ID). */
static bool
orphan(struct ctl *c, const cJSON *labels, const char *id, const char *name,
       const char *identity)
{
    const cJSON *uid =
        cJSON_GetObjectItemCaseSensitive(labels, "agentctl.dev/uid");
    const cJSON *att =
        cJSON_GetObjectItemCaseSensitive(labels, "agentctl.dev/attempt");
    struct ctl_inv *inv;
    const char *cur;

    if (!cJSON_IsString(uid))
        return false; /* not made by an invocation of ours */
    if (held_by_name(c, labels))
        return false;
    inv = inv_by_uid(c, uid->valuestring);
    /* a warm box: the pool's while it waits, then the invocation's that
     * recorded it (box_pool.c); one nobody holds is an orphan */
    if (inv == NULL && box_pool_holds(c, uid->valuestring))
        return false;
    if (inv == NULL && !ctl_test_disabled("warm-box-gc") &&
        (inv = box_taker(c, uid->valuestring)) != NULL)
        return !ctl_record_holds(&inv->rec, id, name);
    if (inv == NULL)
        return true;
    /* a stand-in under one of its names is someone else's: never removed */
    if (ctl_record_holds(&inv->rec, id, name) ||
        ctl_record_is_standin(&inv->rec, identity))
        return false;
    cur = inv->rec.attempt;
    /* a container with the labels of a role of the current attempt whose
     * create answered is a stand-in too, reported or not */
    if (answered_role(inv, labels, att) && !ctl_test_disabled("standin-sweep"))
        return false;
    if (inv->rec.cleaned_up)
        return true;
    return cur != NULL && cJSON_IsString(att) &&
           strcmp(cur, att->valuestring) != 0 && inv->rec.phase != CTL_PENDING;
}

/* Queued removals are [kind, ref] pairs. */
static void
queue_delete(struct ctl *c, enum dk_kind kind, const char *ref)
{
    cJSON *item = cJSON_CreateArray();

    if (c->gc_queue == NULL)
        c->gc_queue = cJSON_CreateArray();
    cJSON_AddItemToArray(item, cJSON_CreateNumber(kind));
    cJSON_AddItemToArray(item, cJSON_CreateString(ref));
    cJSON_AddItemToArray(c->gc_queue, item);
}

static void
collect(struct ctl *c, const cJSON *items)
{
    const cJSON *o;

    cJSON_ArrayForEach(o, items)
    {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "Id");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "Name");
        const cJSON *labels = cJSON_GetObjectItemCaseSensitive(o, "Labels");
        const cJSON *created = cJSON_GetObjectItemCaseSensitive(o, "CreatedAt");
        const char *key;

        /* volumes have no Id: their name is what Docker knows them by */
        key = cJSON_IsString(id)
                  ? id->valuestring
                  : (cJSON_IsString(name) ? name->valuestring : NULL);
        if (key == NULL ||
            !orphan(c, labels, key,
                    cJSON_IsString(name) ? name->valuestring : NULL,
                    cJSON_IsString(id)        ? id->valuestring
                    : cJSON_IsString(created) ? created->valuestring
                                              : NULL))
            continue;
        queue_delete(c, stage_kind[c->gc_stage], key);
    }
}

static void gc_next(struct ctl *c);

static void
on_gc_answer(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl *c = arg;

    (void)req;
    c->gc_call = NULL;
    if (r->err != NULL && c->gc_stage != GC_DELETE) {
        log_kv(LOG_DEBUG, "garbage collection stopped", "error", r->err->msg,
               NULL);
        c->gc_stage = GC_DONE;
        cJSON_Delete(c->gc_queue);
        c->gc_queue = NULL;
        return;
    }
    if (c->gc_stage == GC_CONTAINERS || c->gc_stage == GC_NETWORKS)
        collect(c, r->json);
    else if (c->gc_stage == GC_VOLUMES)
        collect(c, cJSON_GetObjectItemCaseSensitive(r->json, "Volumes"));
    else if (r->err != NULL && r->err->code != ERR_NOTFOUND)
        log_kv(LOG_WARN, "garbage collection: removal failed", "error",
               r->err->msg, NULL);
    else if (r->err == NULL)
        obs_observe_gc_removed(c, dk_kind_name((enum dk_kind)c->gc_removing));
    if (c->gc_stage != GC_DELETE)
        c->gc_stage++;
    gc_next(c);
}

static void
gc_next(struct ctl *c)
{
    struct err e;
    char label[128];
    const char *const labels[] = { label };

    if (c->gc_stage < GC_DELETE) {
        snprintf(label, sizeof(label), "agentctl.dev/managed-by=%s",
                 c->opts.controller_id);
        c->gc_call = dk_list(c->dk, stage_kind[c->gc_stage], "label", labels, 1,
                             on_gc_answer, c, &e);
        if (c->gc_call == NULL)
            c->gc_stage = GC_DONE;
        return;
    }
    if (c->gc_queue == NULL || cJSON_GetArraySize(c->gc_queue) == 0) {
        cJSON_Delete(c->gc_queue);
        c->gc_queue = NULL;
        c->gc_stage = GC_DONE;
        return;
    }
    cJSON *first = cJSON_DetachItemFromArray(c->gc_queue, 0);
    enum dk_kind kind = (enum dk_kind)cJSON_GetArrayItem(first, 0)->valueint;
    const char *ref = cJSON_GetArrayItem(first, 1)->valuestring;

    log_kv(LOG_INFO, "garbage collection: removing an orphan", "kind",
           dk_kind_name(kind), "object", ref, NULL);
    c->gc_removing = (int)kind;
    c->gc_call = dk_remove(c->dk, kind, ref, on_gc_answer, c, &e);
    cJSON_Delete(first);
    if (c->gc_call == NULL)
        c->gc_stage = GC_DONE;
}

void
loop_gc_run(struct ctl *c)
{
    if (c->gc_call != NULL || !c->docker_up)
        return; /* a run is in progress, or nobody to ask */
    c->gc_stage = GC_CONTAINERS;
    gc_next(c);
}

void
loop_gc_stop(struct ctl *c)
{
    dk_cancel(c->gc_call);
    c->gc_call = NULL;
    cJSON_Delete(c->gc_queue);
    c->gc_queue = NULL;
}
