/* box_create.h - creating one object of the attempt (box_create.c): the
 * create request, and reading its answer - the ID recorded, a 409 that
 * is ours (adopted) or a stand-in's (refused). */
#ifndef BOX_CREATE_H
#define BOX_CREATE_H

#include "ctl.h"

/* POST the create of one role's object; its answer is recorded. */
enum ctl_step box_create(struct ctl_inv *inv, enum rc_role role);
/* The same create, read by `answer` (the network reads its own
 * failures, box_network.c, and hands the rest to box_create_answered). */
enum ctl_step box_create_request(struct ctl_inv *inv, enum rc_role role,
                                 ctl_answer_fn *answer);
enum ctl_step box_create_answered(struct ctl_inv *inv, struct dk_response *r);

/* The name of the attempt's object rname is held by an object that is not
 * the attempt's: a NameConflict event, the attempt fails closed
 * (preparation-failed) and the holder is left in place. */
enum ctl_step box_create_refuse_name(struct ctl_inv *inv, const char *rname,
                                     const char *name);

#endif
