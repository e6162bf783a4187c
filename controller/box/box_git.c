/* box_git.c - proof that the git metadata came back as it went in
 * (status.git). The digest before is taken from the very archive uploaded
 * (its .git/ entries, digested by the worker as it packs them:
 * out_ws.c), the digest after from the archive Docker returns
 * for the keeper's /work/.git once the agent is gone and before the
 * keeper is removed; one function digests both (rc_workspace_tar_digest),
 * so equal means equal. Both go into status.git; a difference is a
 * Warning event and condition GitIntact=False. The read-only mount is the
 * protection; this is the evidence.
 */
#include "box_git.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "ctl_record.h"
#include "try_result.h"
#include "inv_status.h"
#include "rc_workspace.h"

static const char *
git_str(const struct ctl_inv *inv, const char *key)
{
    return ctl_record_git_str(&inv->rec, key);
}

static void
git_set(struct ctl_inv *inv, const char *key, const char *value)
{
    ctl_record_set_git_str(&inv->rec, key, value);
}

bool
box_git_present(const struct ctl_inv *inv)
{
    const struct spec_invocation *s = inv->spec;
    char path[4096];
    struct stat st;
    int n;

    if (!s->has_workspace)
        return false;
    n = snprintf(path, sizeof(path), "%s/%s/.git",
                 inv->ctl->cfg->workspace_root, s->workspace_source);
    /* a symlinked .git is refused by the workspace check anyway */
    return n > 0 && (size_t)n < sizeof(path) && lstat(path, &st) == 0 &&
           S_ISDIR(st.st_mode);
}

int
box_git_record_before(struct ctl_inv *inv, const struct buf *tar, struct err *e)
{
    char hex[65];

    if (rc_desired_object(inv->desired, RC_ROLE_GIT) == NULL)
        return 0;
    if (rc_workspace_tar_digest(tar->data, tar->len, ".git", hex, e) == -1)
        return -1;
    return box_git_record_digest(inv, hex, e);
}

int
box_git_record_digest(struct ctl_inv *inv, const char *hex, struct err *e)
{
    char v[80];

    if (rc_desired_object(inv->desired, RC_ROLE_GIT) == NULL)
        return 0;
    if (hex == NULL || strlen(hex) != 64)
        return err_set(e, ERR_IO, "git digest: none was taken of the upload");
    snprintf(v, sizeof(v), "sha256:%s", hex);
    git_set(inv, "digestBefore", v);
    return 0;
}

static void
compare(struct ctl_inv *inv, const char *after)
{
    const char *before = git_str(inv, "digestBefore");

    git_set(inv, "digestAfter", after);
    if (before != NULL && strcmp(before, after) == 0) {
        inv_status_set_condition(inv, "GitIntact", true, "DigestsEqual",
                                 "the git metadata after the run equals the "
                                 "metadata uploaded");
        inv_event(inv, false, "GitIntact",
                  "git metadata unchanged by the run (%.19s...)", after);
        return;
    }
    inv_status_set_condition(inv, "GitIntact", false, "DigestsDiffer",
                             "the git metadata after the run differs from "
                             "the metadata uploaded");
    inv_event(inv, true, "GitModified",
              "git metadata changed during the run: before %s, after %s",
              before ? before : "none", after);
}

static enum ctl_step
on_git_archive(struct ctl_inv *inv, struct dk_response *r)
{
    char hex[65], v[300];
    struct err e;

    if (r->err != NULL) {
        /* The keeper is gone (daemon lost it, or drift removed it): the
         * evidence is missing, which the status says; cleanup goes on. */
        snprintf(v, sizeof(v), "unavailable: %s", r->err->msg);
        git_set(inv, "digestAfter", v);
        inv_event(inv, true, "GitUnverified",
                  "git metadata could not be read back: %s", r->err->msg);
    } else if (rc_workspace_tar_digest(r->body, r->len, ".git", hex, &e) ==
               -1) {
        snprintf(v, sizeof(v), "unavailable: %s", e.msg);
        git_set(inv, "digestAfter", v);
        inv_event(inv, true, "GitUnverified",
                  "git metadata could not be read back: %s", e.msg);
    } else {
        snprintf(v, sizeof(v), "sha256:%s", hex);
        compare(inv, v);
    }
    return CTL_STEP_DONE;
}

void
box_git_digests(const struct ctl_inv *inv, bool *before, bool *after)
{
    *before = git_str(inv, "digestBefore") != NULL;
    *after = git_str(inv, "digestAfter") != NULL;
}

enum ctl_step
box_git_read_back(struct ctl_inv *inv)
{
    const char *keeper = ctl_record_role_id(&inv->rec, RC_ROLE_KEEPER);
    const struct spec_invocation *s = inv->captured;
    size_t max_body;
    struct err e;
    /* the volume holds at most the workspace's bytes, plus tar framing */
    max_body = s != NULL ? (size_t)(s->workspace_bytes +
                                    s->workspace_inodes * 1536 + (1 << 20))
                         : 0;
    return try_step_request(
        inv, on_git_archive,
        dk_container_get_archive(inv->ctl->dk, keeper, RC_GIT_TARGET, max_body,
                                 try_step_answered, inv, &e),
        &e);
}
