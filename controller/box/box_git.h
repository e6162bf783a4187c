/* box_git.h - the git metadata's digests before and after the run
 * (box_git.c). */
#ifndef BOX_GIT_H
#define BOX_GIT_H

#include "ctl.h"

struct buf;

/* The digest before, from the very archive uploaded. */
int box_git_record_before(struct ctl_inv *inv, const struct buf *tar,
                          struct err *e);
/* The digest before as the streamed upload's worker took it (hex, 64
 * characters); nothing without a git volume. */
int box_git_record_digest(struct ctl_inv *inv, const char *hex, struct err *e);
/* The spec's workspace source has a .git directory (at capture). */
bool box_git_present(const struct ctl_inv *inv);
/* Whether status.git holds the digest before (upload) and after. */
void box_git_digests(const struct ctl_inv *inv, bool *before, bool *after);
/* Read /work/.git back from the keeper (the agent is gone): the digest
 * after. */
enum ctl_step box_git_read_back(struct ctl_inv *inv);

#endif
