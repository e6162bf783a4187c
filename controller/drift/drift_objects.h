/* drift_objects.h - which Docker objects are this attempt's (drift_objects.c): by
 * the labels every create sets, and never a stand-in the revalidation
 * recorded. Labels are read only to find an object whose create answer
 * was lost; a recorded object is found by its ID. */
#ifndef DRIFT_OBJECTS_H
#define DRIFT_OBJECTS_H

#include "ctl.h"

/* The kind of Docker object a role of the attempt is. */
enum dk_kind drift_role_dk_kind(enum rc_role role);
/* The object (inspect or list entry) carries this attempt's uid, attempt,
 * role and managed-by labels and is no recorded stand-in. */
bool drift_objects_ours(const struct ctl_inv *inv, const cJSON *json,
                      const char *role);
/* List the objects of kind (containers: stopped ones too) whose filter
 * key holds one of values[0..n); answer reads the list. */
enum ctl_step drift_objects_list(struct ctl_inv *inv, enum dk_kind kind,
                               const char *key, const char *const *values,
                               size_t n, ctl_answer_fn *answer);
/* drift_objects_list() by this invocation's uid label, and by role when
 * not NULL. */
enum ctl_step drift_objects_list_ours(struct ctl_inv *inv, enum dk_kind kind,
                                    const char *role, ctl_answer_fn *answer);
/* The object's identity in a create or inspect answer: its Id, or a
 * volume's CreatedAt (volumes have no ID). */
const char *drift_objects_identity(const cJSON *json, bool volume);
/* A container's address on the controller's egress network (its
 * inspect) into out; out is left as it is when it has none. */
void drift_objects_egress_ip(const struct ctl *c, const cJSON *inspect,
                           char out[16]);
/* Keep the Config of an image's inspect in c->image_configs under its ID
 * (immutable by ID: fetched once, for the drift rules' defaults). */
void drift_objects_keep_image_config(struct ctl *c, const char *image_id,
                                   cJSON *image_inspect);

#endif
