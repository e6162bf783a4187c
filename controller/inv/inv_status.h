/* inv_status.h - the invocation's status: phase and condition changes, events,
 * and the status document's load and write (inv_status.c). */
#ifndef INV_STATUS_H
#define INV_STATUS_H

#include "ctl.h"

/* The record of a new status for this invocation (Pending). */
void inv_status_new(struct ctl_inv *inv);
/* Load the status from the store into inv->rec (none: rec.present is
 * false). -1 with e when the store cannot read it (inv->rec unchanged)
 * or it is no JSON object (inv->rec empty, code ERR_INVALID). */
int inv_status_load(struct ctl_inv *inv, struct err *e);
void inv_status_set_phase(struct ctl_inv *inv, enum ctl_phase p);
void inv_status_set_condition(struct ctl_inv *inv, const char *type,
                              bool status, const char *reason,
                              const char *message);
/* Write the status document if it changed, with the events held since
 * the last write (one request on etcd). The events are written once
 * either way: a failed write loses them (logged). */
int inv_status_flush(struct ctl_inv *inv, struct err *e);
/* Whether anything (a changed status, held events, a removal) waits for
 * a write. */
bool inv_status_pending(struct ctl_inv *inv);
/* For a write made elsewhere that does not block (try_write.c): the
 * status text (NULL: unchanged, or out of memory and still dirty) and the
 * held events, taken: the record counts as written from now on, the events (at
 * most CTL_EVENTS_HELD, moved to events[0..*n)) are the caller's to free. Then
 * the write's answer: e NULL, written; else the record is dirty again (the next
 * write sends it as it is then) and the events are lost (logged), as
 * inv_status_flush() loses them. */
char *inv_status_take(struct ctl_inv *inv, char **events, size_t *n);
void inv_status_answered(struct ctl_inv *inv, bool with_status,
                         const struct err *e);
/* A pass begins: its events wait for its status write. */
void inv_events_hold(struct ctl_inv *inv);
/* The pass ends: events still held are written now. */
void inv_events_release(struct ctl_inv *inv);
/* Append an event (Normal or Warning); repeats of the last one count up. */
void inv_event(struct ctl_inv *inv, bool warning, const char *reason,
               const char *fmt, ...) ERR_PRINTF(4, 5);
/* An event whose count is count (a repeated one), first seen at first. */
void inv_event_counted(struct ctl_inv *inv, bool warning, const char *reason,
                       unsigned count, const char *first, const char *msg);
/* RFC 3339 UTC "now" with seconds. */
void inv_now(char out[32]);

#endif
