/* inv_status.c - the status of one invocation (its record, ctl_record.h)
 * as the store keeps it, phase and condition changes, and the event log.
 *
 * The status is the controller's memory: every Docker object of the
 * attempt is recorded as soon as it exists, so a restarted controller
 * finds, checks and deletes by ID. It is written through the store
 * (atomically) before the next Docker call that depends on it.
 */
#include "inv_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "obs_observe.h"
#include "ctl_record.h"
#include "ctl_testhooks.h"
#include "log.h"

void
inv_now(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void
inv_status_new(struct ctl_inv *inv)
{
    ctl_record_init_new(&inv->rec, inv->ctl->opts.controller_id, inv->meta.uid);
}

int
inv_status_load(struct ctl_inv *inv, struct err *e)
{
    struct ctl_record fresh = { 0 };
    cJSON *doc = NULL;
    int rc;

    /* a read that fails leaves the record in memory as it was */
    if (store_json_get(inv->ctl->store, STORE_DOC_STATUS, inv->name, &doc, e) ==
        -1) {
        if (e == NULL || e->code != ERR_NOTFOUND)
            return -1;
        ctl_record_cleanup(&inv->rec);
        return 0;
    }
    rc = ctl_record_from_json(&fresh, doc, e);
    cJSON_Delete(doc);
    ctl_record_cleanup(&inv->rec);
    inv->rec = fresh;
    return rc;
}

void
inv_status_set_phase(struct ctl_inv *inv, enum ctl_phase p)
{
    char now[32];

    if (inv->rec.phase == p && inv->rec.phase_set)
        return;
    ctl_record_set_phase(&inv->rec, p);
    if (ctl_phase_terminal(p)) {
        inv_now(now);
        ctl_record_set_str(&inv->rec, &inv->rec.finished_at, now);
        obs_observe_attempt_finished(inv);
    }
    log_kv(LOG_INFO, "phase", "invocation", inv->name, "phase",
           ctl_phase_name(p), NULL);
}

void
inv_status_set_condition(struct ctl_inv *inv, const char *type, bool status,
                         const char *reason, const char *message)
{
    char now[32];

    inv_now(now);
    ctl_record_set_condition(&inv->rec, type, status, reason, message, now);
}

/* Every status says which generation of the spec it is about: the one
 * the controller knew when it wrote it. A status already written is
 * written again when the generation moved on, so a client waiting for
 * observedGeneration to reach the generation it applied is answered. */
static void
note_generation(struct ctl_inv *inv)
{
    struct ctl_record *r = &inv->rec;
    double gen = (double)inv->meta.generation;

    if (inv->meta.generation == 0 || (!r->dirty && !r->present))
        return; /* never seen valid, or no status to write */
    if (r->has_generation && r->observed_generation == gen)
        return;
    r->has_generation = true;
    r->observed_generation = gen;
    r->dirty = true;
}

static void
events_drop(struct ctl_inv *inv)
{
    for (size_t i = 0; i < inv->write.events_n; i++)
        cJSON_free(inv->write.events[i]);
    inv->write.events_n = 0;
}

/* The status text (NULL: none) and the held events, written together. */
static int
write_with_events(struct ctl_inv *inv, const char *status, struct err *e)
{
    int rc = store_status_write(inv->ctl->store, inv->name, status,
                                status ? strlen(status) : 0, inv->write.events,
                                inv->write.events_n, e);

    if (rc == -1 && e->code != ERR_NOTFOUND && inv->write.events_n > 0)
        log_kv(LOG_WARN, "cannot record events", "invocation", inv->name,
               "error", e->msg, NULL);
    events_drop(inv);
    return rc;
}

static char *inv_status_text(struct ctl_inv *inv);
static void inv_status_written(struct ctl_inv *inv, bool with_status,
                               const struct err *e);

int
inv_status_flush(struct ctl_inv *inv, struct err *e)
{
    struct err mine;
    char *text = inv_status_text(inv);
    bool gone;
    int rc;

    if (e == NULL)
        e = &mine;
    if (text == NULL)
        return inv->rec.dirty
                   ? err_set(e, ERR_NOMEM, "out of memory for the status")
                   : 0;
    rc = write_with_events(inv, text, e);
    cJSON_free(text);
    /* its object is gone (the API server store, after a delete): nothing
     * is left to write, and nothing was, so it says nothing about whether
     * the store takes writes (/readyz "status-writes" stays as it is) */
    gone = rc == -1 && e->code == ERR_NOTFOUND;
    if (!gone)
        obs_observe_state_write(inv->ctl, rc == 0 ? NULL : e);
    if (rc == 0 || gone)
        inv_status_written(inv, true, NULL);
    return gone ? 0 : rc;
}

/* The status text to write; NULL when unchanged, or out of memory (still
 * dirty). */
static char *
inv_status_text(struct ctl_inv *inv)
{
    cJSON *doc;
    char *text;

    note_generation(inv);
    if (!inv->rec.dirty)
        return NULL;
    doc = ctl_record_to_json(&inv->rec);
    text = doc != NULL ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    return text;
}

bool
inv_status_pending(struct ctl_inv *inv)
{
    if (inv->write.removal == CTL_STATUS_REMOVED)
        return inv->write.events_n > 0;
    note_generation(inv);
    return inv->rec.dirty || inv->write.events_n > 0 ||
           inv->write.removal == CTL_STATUS_REMOVING;
}

/* A write made here went (e NULL) or failed; the held events are
 * dropped either way. */
static void
inv_status_written(struct ctl_inv *inv, bool with_status, const struct err *e)
{
    if (e == NULL && with_status) {
        inv->rec.dirty = false;
        ctl_test_point("recorded", ctl_phase_name(inv->rec.phase));
    } else if (e != NULL)
        log_kv(LOG_WARN, "status write failed", "invocation", inv->name,
               "error", e->msg, NULL);
    events_drop(inv);
}

char *
inv_status_take(struct ctl_inv *inv, char **events, size_t *n)
{
    char *text = NULL;

    if (inv->write.removal != CTL_STATUS_KEPT)
        inv->rec.dirty = false; /* its status is gone, or going */
    else
        text = inv_status_text(inv);
    if (text != NULL)
        inv->rec.dirty = false; /* a change made meanwhile dirties it again */
    memcpy(events, inv->write.events, inv->write.events_n * sizeof(*events));
    *n = inv->write.events_n;
    inv->write.events_n = 0;
    return text;
}

void
inv_status_answered(struct ctl_inv *inv, bool with_status, const struct err *e)
{
    if (e == NULL) {
        if (with_status)
            ctl_test_point("recorded", ctl_phase_name(inv->rec.phase));
        return;
    }
    if (with_status)
        inv->rec.dirty = true; /* the record as it is now goes next time */
    log_kv(LOG_WARN, "status write failed", "invocation", inv->name, "error",
           e->msg, NULL);
}

void
inv_events_hold(struct ctl_inv *inv)
{
    inv->write.in_pass = true;
}

void
inv_events_release(struct ctl_inv *inv)
{
    struct err e;

    inv->write.in_pass = false;
    if (inv->write.events_n > 0 && !inv->write.queued)
        (void)write_with_events(inv, NULL, &e);
}

/* Outside a pass, on a store that groups writes, an event of an
 * invocation this controller holds joins the group write (with its
 * status, which the next pass would write first anyway). Not one it does
 * not hold: the group would write that one's status too. */
static bool
may_join_group(const struct ctl_inv *inv)
{
    const struct ctl *c = inv->ctl;

    return c->join_group != NULL &&
           (!store_has_claims(c->store) ||
            (inv->claim.hold != CTL_CLAIM_UNHELD && !inv->claim.lease_lost));
}

/* Held for the pass's status write (or the group write it joined), or
 * written now outside a pass. */
static void
event_write(struct ctl_inv *inv, char *line)
{
    struct err e;

    if (inv->write.in_pass || inv->write.queued || may_join_group(inv)) {
        /* kept in order behind the held ones, which go first when full */
        if (inv->write.events_n == CTL_EVENTS_HELD)
            (void)write_with_events(inv, NULL, &e);
        inv->write.events[inv->write.events_n++] = line;
        if (!inv->write.in_pass && !inv->write.queued)
            inv->ctl->join_group(inv);
        return;
    }
    if (store_event_append(inv->ctl->store, inv->name, line, &e) == -1)
        log_kv(LOG_WARN, "cannot record event", "invocation", inv->name,
               "error", e.msg, NULL);
    cJSON_free(line);
}

void
inv_event_counted(struct ctl_inv *inv, bool warning, const char *reason,
                  unsigned count, const char *first, const char *msg)
{
    char now[32], *line;
    cJSON *ev = cJSON_CreateObject();

    inv_now(now);
    cJSON_AddStringToObject(ev, "time", now);
    cJSON_AddStringToObject(ev, "type", warning ? "Warning" : "Normal");
    cJSON_AddStringToObject(ev, "reason", reason);
    cJSON_AddStringToObject(ev, "message", msg);
    cJSON_AddNumberToObject(ev, "count", count);
    if (first != NULL && count > 1)
        cJSON_AddStringToObject(ev, "firstTime", first);
    line = cJSON_PrintUnformatted(ev);
    if (line != NULL)
        event_write(inv, line);
    log_kv(warning ? LOG_WARN : LOG_INFO, msg, "invocation", inv->name,
           "reason", reason, NULL);
    cJSON_Delete(ev);
}

void
inv_event(struct ctl_inv *inv, bool warning, const char *reason,
          const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    inv_event_counted(inv, warning, reason, 1, NULL, msg);
}
