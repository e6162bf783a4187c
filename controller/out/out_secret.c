/* out_secret.c - the attempt's credential, held from the capture on and
 * read again after a restart whatever the phase (out_secret.h).
 *
 * Before, only a live attempt's pass (Preparing, Running) read it back,
 * so after a restart in a terminal phase the egress audit was written
 * with the redaction off. Every user of the secret now asks here. */
#include "out_secret.h"

#include "rc_credential.h"

const char *
out_inv_secret(struct ctl_inv *inv, struct err *e)
{
    const struct spec_invocation *s = inv->captured;

    if (inv->credential != NULL)
        return inv->credential;
    if (s == NULL || s->credential == NULL) {
        err_set(e, ERR_NOTFOUND, "the attempt has no credential");
        return NULL;
    }
    if (rc_credential_read(inv->ctl->cfg->secrets_dir, s->credential,
                           &inv->credential, e) == -1)
        return NULL;
    return inv->credential;
}
