/* ctl_status.c - the status document of one invocation (docs/design.md
 * "Status, events, output") and its event log.
 *
 * The status is the controller's memory: every Docker object of the
 * attempt is recorded here by ID as soon as it exists, so a restarted
 * controller finds, checks and deletes by ID. It is written through the
 * store (atomically) before the next Docker call that depends on it.
 * Fields beyond docs/design.md's list, kept for the controller itself:
 * specHash, uid, subnetIndex, usedAttempts.
 */
#include "ctl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"

static const char *const phase_names[] = {
    [CTL_PENDING] = "Pending", [CTL_PREPARING] = "Preparing",
    [CTL_RUNNING] = "Running", [CTL_SUCCEEDED] = "Succeeded",
    [CTL_FAILED] = "Failed",   [CTL_CANCELLED] = "Cancelled",
};

const char *
ctl_phase_name(enum ctl_phase p)
{
    return phase_names[p];
}

bool
ctl_phase_terminal(enum ctl_phase p)
{
    return p == CTL_SUCCEEDED || p == CTL_FAILED || p == CTL_CANCELLED;
}

enum ctl_phase
ctl_status_phase(const cJSON *status)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(status, "phase");

    for (size_t i = 0; cJSON_IsString(p) && i < 6; i++)
        if (strcmp(p->valuestring, phase_names[i]) == 0)
            return (enum ctl_phase)i;
    return CTL_PENDING;
}

void
ctl_now(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

cJSON *
ctl_status_new(const struct ctl_inv *inv)
{
    cJSON *s = cJSON_CreateObject();

    cJSON_AddStringToObject(s, "phase", "Pending");
    cJSON_AddStringToObject(s, "controller", inv->ctl->opts.controller_id);
    cJSON_AddStringToObject(s, "uid", inv->meta.uid);
    cJSON_AddObjectToObject(s, "resources");
    cJSON_AddArrayToObject(s, "conditions");
    cJSON_AddArrayToObject(s, "usedAttempts");
    return s;
}

static void
set_item(struct ctl_inv *inv, const char *key, cJSON *v)
{
    if (cJSON_GetObjectItemCaseSensitive(inv->status, key) != NULL)
        cJSON_ReplaceItemInObjectCaseSensitive(inv->status, key, v);
    else
        cJSON_AddItemToObject(inv->status, key, v);
    inv->status_dirty = true;
}

void
ctl_status_set_str(struct ctl_inv *inv, const char *key, const char *v)
{
    const cJSON *old = cJSON_GetObjectItemCaseSensitive(inv->status, key);

    if (v == NULL) {
        if (old != NULL) {
            cJSON_DeleteItemFromObjectCaseSensitive(inv->status, key);
            inv->status_dirty = true;
        }
        return;
    }
    if (cJSON_IsString(old) && strcmp(old->valuestring, v) == 0)
        return;
    set_item(inv, key, cJSON_CreateString(v));
}

const char *
ctl_status_str(const struct ctl_inv *inv, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(inv->status, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

void
ctl_status_set_phase(struct ctl_inv *inv, enum ctl_phase p)
{
    char now[32];

    if (ctl_status_phase(inv->status) == p &&
        cJSON_GetObjectItemCaseSensitive(inv->status, "phase") != NULL)
        return;
    ctl_status_set_str(inv, "phase", ctl_phase_name(p));
    if (ctl_phase_terminal(p)) {
        ctl_now(now);
        ctl_status_set_str(inv, "finishedAt", now);
    }
    log_kv(LOG_INFO, "phase", "invocation", inv->name, "phase",
           ctl_phase_name(p), NULL);
}

void
ctl_status_set_condition(struct ctl_inv *inv, const char *type, bool status,
                         const char *reason, const char *message)
{
    cJSON *conds = cJSON_GetObjectItemCaseSensitive(inv->status, "conditions");
    cJSON *c, *it;
    const char *st = status ? "True" : "False";
    char now[32];

    if (conds == NULL)
        conds = cJSON_AddArrayToObject(inv->status, "conditions");
    cJSON_ArrayForEach(it, conds)
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "type");

        if (!cJSON_IsString(t) || strcmp(t->valuestring, type) != 0)
            continue;
        const cJSON *os = cJSON_GetObjectItemCaseSensitive(it, "status");
        const cJSON *orsn = cJSON_GetObjectItemCaseSensitive(it, "reason");
        const cJSON *om = cJSON_GetObjectItemCaseSensitive(it, "message");
        if (cJSON_IsString(os) && strcmp(os->valuestring, st) == 0 &&
            cJSON_IsString(orsn) && strcmp(orsn->valuestring, reason) == 0 &&
            cJSON_IsString(om) && strcmp(om->valuestring, message) == 0)
            return;
        cJSON_DetachItemViaPointer(conds, it);
        cJSON_Delete(it);
        break;
    }
    ctl_now(now);
    c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "type", type);
    cJSON_AddStringToObject(c, "status", st);
    cJSON_AddStringToObject(c, "reason", reason);
    cJSON_AddStringToObject(c, "message", message);
    cJSON_AddStringToObject(c, "lastTransitionTime", now);
    cJSON_AddItemToArray(conds, c);
    inv->status_dirty = true;
}

static cJSON *
resources(struct ctl_inv *inv)
{
    cJSON *r = cJSON_GetObjectItemCaseSensitive(inv->status, "resources");

    if (r == NULL)
        r = cJSON_AddObjectToObject(inv->status, "resources");
    return r;
}

void
ctl_status_set_resource(struct ctl_inv *inv, const char *role, const char *id,
                        const char *name)
{
    cJSON *r = resources(inv), *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "name", name);
    if (cJSON_GetObjectItemCaseSensitive(r, role) != NULL)
        cJSON_ReplaceItemInObjectCaseSensitive(r, role, o);
    else
        cJSON_AddItemToObject(r, role, o);
    inv->status_dirty = true;
}

bool
ctl_status_records(const struct ctl_inv *inv, const char *id, const char *name)
{
    const cJSON *r;

    cJSON_ArrayForEach(
        r, cJSON_GetObjectItemCaseSensitive(inv->status, "resources"))
    {
        const cJSON *rid = cJSON_GetObjectItemCaseSensitive(r, "id");
        const cJSON *rn = cJSON_GetObjectItemCaseSensitive(r, "name");

        if ((id != NULL && cJSON_IsString(rid) &&
             strcmp(rid->valuestring, id) == 0) ||
            (name != NULL && cJSON_IsString(rn) &&
             strcmp(rn->valuestring, name) == 0))
            return true;
    }
    return false;
}

const char *
ctl_status_resource_str(const struct ctl_inv *inv, const char *role,
                        const char *key)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(inv->status, "resources");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r, role), key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

bool
ctl_progress_done(const struct ctl_inv *inv, const char *what)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(inv->status, "progress");

    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, what));
}

void
ctl_progress_set(struct ctl_inv *inv, const char *what)
{
    cJSON *p = cJSON_GetObjectItemCaseSensitive(inv->status, "progress");

    if (p == NULL)
        p = cJSON_AddObjectToObject(inv->status, "progress");
    cJSON_DeleteItemFromObjectCaseSensitive(p, what);
    cJSON_AddBoolToObject(p, what, 1);
    inv->status_dirty = true;
}

const char *
ctl_status_resource_id(const struct ctl_inv *inv, const char *role)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(inv->status, "resources");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r, role), "id");

    return cJSON_IsString(id) ? id->valuestring : NULL;
}

void
ctl_status_drop_resource(struct ctl_inv *inv, const char *role)
{
    cJSON_DeleteItemFromObjectCaseSensitive(resources(inv), role);
    inv->status_dirty = true;
}

int
ctl_status_flush(struct ctl_inv *inv, struct err *e)
{
    if (!inv->status_dirty)
        return 0;
    if (store_json_put(inv->ctl->store, STORE_DOC_STATUS, inv->name,
                       inv->status, e) == -1)
        return -1;
    inv->status_dirty = false;
    ctl_test_point("recorded", ctl_phase_name(ctl_status_phase(inv->status)));
    return 0;
}

void
ctl_event(struct ctl_inv *inv, bool warning, const char *reason,
          const char *fmt, ...)
{
    char msg[512], now[32], *line;
    cJSON *ev = cJSON_CreateObject();
    struct err e;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ctl_now(now);
    cJSON_AddStringToObject(ev, "time", now);
    cJSON_AddStringToObject(ev, "type", warning ? "Warning" : "Normal");
    cJSON_AddStringToObject(ev, "reason", reason);
    cJSON_AddStringToObject(ev, "message", msg);
    cJSON_AddNumberToObject(ev, "count", 1);
    line = cJSON_PrintUnformatted(ev);
    if (line != NULL &&
        store_event_append(inv->ctl->store, inv->name, line, &e) == -1)
        log_kv(LOG_WARN, "cannot record event", "invocation", inv->name,
               "error", e.msg, NULL);
    log_kv(warning ? LOG_WARN : LOG_INFO, msg, "invocation", inv->name,
           "reason", reason, NULL);
    cJSON_free(line);
    cJSON_Delete(ev);
}
