/* ctl_record.h - one invocation's attempt record: the status document as
 * typed fields.
 *
 * The record is the controller's memory of the attempt (every Docker
 * object by ID, what is done, why it stopped). ctl_record.c is the one
 * place that knows the JSON keys: ctl_record_from_json() loads a status
 * document written by any version, ctl_record_to_json() writes the same
 * keys back, and keys this version does not know ride along unchanged.
 */
#ifndef CTL_RECORD_H
#define CTL_RECORD_H

#include <cjson/cJSON.h>

#include "ctl_record_types.h"
#include "err.h"

/* The record of a fresh status: Pending, owned by `controller`, `uid`. */
void ctl_record_init_new(struct ctl_record *r, const char *controller,
                         const char *uid);
/* Free everything the record holds and zero it (no status). */
void ctl_record_cleanup(struct ctl_record *r);
/* Load a status document (not taken). Keys this version does not know,
 * or whose type it does not expect, are kept for ctl_record_to_json().
 * -1 with e when doc is no object; r is then empty. */
int ctl_record_from_json(struct ctl_record *r, const cJSON *doc, struct err *e);
/* The status document of the record (caller deletes), NULL on no memory. */
cJSON *ctl_record_to_json(const struct ctl_record *r);

/* A new attempt starts from a finished one: forget everything the previous
 * attempt left (its ID stays in usedAttempts, the objects are already
 * removed, the conditions and standIns are the invocation's history). */
void ctl_record_reset_attempt(struct ctl_record *r);
/* A drift repair before the start removed every object: the one-off
 * actions must run again (same attempt, capture and subnet). */
void ctl_record_reset_progress(struct ctl_record *r);

/* Enum names as written in the status. */
const char *ctl_phase_name(enum ctl_phase p);
bool ctl_phase_terminal(enum ctl_phase p);
/* NULL for CTL_STOP_NONE and CTL_STOP_UNKNOWN. */
const char *ctl_stop_reason_name(enum ctl_stop_reason s);
const char *ctl_progress_name(enum ctl_progress p);
/* status.phase as written: a phase's name, or the text of one this
 * version does not know; NULL when there is none. For readers that show
 * the status (agentctl). */
const char *ctl_record_phase_text(const struct ctl_record *r);
/* status.stopReason as written (a newer version's reason too), or NULL. */
const char *ctl_record_stop_text(const struct ctl_record *r);
/* Role index (enum rc_role or CTL_REC_PROBE) of a resources key, or -1. */
int ctl_record_role(const char *name);
const char *ctl_record_role_name(int role);

/* Set a string field of r (`field` points into r) to a copy of v, or
 * drop it (v NULL); marks r dirty when the value changes. */
void ctl_record_set_str(struct ctl_record *r, char **field, const char *v);
void ctl_record_set_phase(struct ctl_record *r, enum ctl_phase p);
void ctl_record_set_stop(struct ctl_record *r, enum ctl_stop_reason s);
void ctl_record_set_subnet(struct ctl_record *r, long index);
void ctl_record_set_exit_code(struct ctl_record *r, long code);
void ctl_record_set_output(struct ctl_record *r, double bytes, bool truncated,
                           const char *sha256);
/* The pinned ID of a helper image, or NULL (not pinned). */
const char *ctl_record_helper_image(const struct ctl_record *r,
                                    enum rc_helper h);
/* Pin a helper image to its ID (v NULL: drop it); marks r dirty when the
 * value changes. */
void ctl_record_set_helper_image(struct ctl_record *r, enum rc_helper h,
                                 const char *v);
/* Every helper image of the attempt is pinned (status.helperImages). */
bool ctl_record_helpers_pinned(const struct ctl_record *r);

/* Capture spec s for the attempt: status.captured is its canonical
 * resource, and the record holds s itself (one more holder) so that the
 * attempt's steps read it typed without parsing it back. When the
 * resource cannot be made (no memory) the record holds neither. */
void ctl_record_capture(struct ctl_record *r, struct spec_invocation *s);
/* Take ownership of the captured spec as JSON (replacing any; the typed
 * one is parsed from it when asked). */
void ctl_record_set_captured(struct ctl_record *r, cJSON *captured);
const cJSON *ctl_record_captured(const struct ctl_record *r);
/* The captured spec typed, shared (spec_invocation_ref() to keep it past
 * the record): the one captured in this process, else status.captured
 * parsed and checked once (r->captured_parses counts it). NULL when none
 * was captured or it is unreadable. */
struct spec_invocation *ctl_record_captured_spec(struct ctl_record *r);

/* Recorded objects (role: enum rc_role or CTL_REC_PROBE). The strings are
 * borrowed while the record holds them; NULL when not recorded. */
const char *ctl_record_role_id(const struct ctl_record *r, int role);
const char *ctl_record_role_obj_name(const struct ctl_record *r, int role);
const char *ctl_record_role_image(const struct ctl_record *r, int role);
/* Record a new object of the role: {id, name}, no image yet. A container
 * role (proxy, keeper, agent, probe) is also marked answered. */
void ctl_record_set_role(struct ctl_record *r, int role, const char *id,
                         const char *name);
void ctl_record_set_role_image(struct ctl_record *r, int role,
                               const char *image);
void ctl_record_drop_role(struct ctl_record *r, int role);
/* Forget every recorded object (they are another controller's). */
void ctl_record_drop_all_roles(struct ctl_record *r);
/* The record holds an object with this ID or (volumes) this name. */
bool ctl_record_holds(const struct ctl_record *r, const char *id,
                      const char *name);

/* A create of the container or network role (enum rc_role or
 * CTL_REC_PROBE, given by its name as the agentctl.dev/role label says)
 * answered in this attempt:
 * its ID was recorded, even if cleanup has dropped it since. Names and
 * labels identify only a create whose ID never came back, so a container
 * with the labels of an answered role is a stand-in. False for volumes
 * (their identity is CreatedAt) and unknown names. */
bool ctl_record_role_answered(const struct ctl_record *r, const char *role);

bool ctl_record_done(const struct ctl_record *r, enum ctl_progress p);
void ctl_record_set_done(struct ctl_record *r, enum ctl_progress p);
/* The action is to be done again (a probe run again). */
void ctl_record_clear_done(struct ctl_record *r, enum ctl_progress p);

bool ctl_record_attempt_used(const struct ctl_record *r, const char *attempt);
void ctl_record_mark_used(struct ctl_record *r, const char *attempt);
/* Remember a stand-in by Docker ID (first role seen stays). */
void ctl_record_add_standin(struct ctl_record *r, const char *id,
                            const char *role);
bool ctl_record_is_standin(const struct ctl_record *r, const char *id);

/* Set condition `type`; its lastTransitionTime moves to `now` only when
 * status, reason or message change. */
void ctl_record_set_condition(struct ctl_record *r, const char *type,
                              bool status, const char *reason,
                              const char *message, const char *now);
/* The condition of that type, or NULL. */
const struct ctl_record_cond *ctl_record_condition(const struct ctl_record *r,
                                                   const char *type);

/* status.box.<key> (name, vendor, uid, attempt, verifiedAt), or NULL. */
const char *ctl_record_box_str(const struct ctl_record *r, const char *key);
/* Record the warm box the attempt took (taken: an object of the keys
 * above), or forget it (NULL). */
void ctl_record_set_box(struct ctl_record *r, cJSON *box);

/* status.egress (out_egress.c owns its keys), or NULL. */
const cJSON *ctl_record_egress(const struct ctl_record *r);
/* Replace it (taken; NULL drops it); marks r dirty. */
void ctl_record_set_egress(struct ctl_record *r, cJSON *egress);

/* status.git.<key> (digestBefore, digestAfter), or NULL. */
const char *ctl_record_git_str(const struct ctl_record *r, const char *key);
void ctl_record_set_git_str(struct ctl_record *r, const char *key,
                            const char *value);

#endif
