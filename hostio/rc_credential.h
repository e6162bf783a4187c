/* rc_credential.h - read one credential from the controller's secrets
 * directory (docs/design.md, spec.credential: a file name in the
 * controller's secrets dir).
 *
 * A credential file is trusted only when nobody but its owner could have
 * read or replaced it: a regular file (not a symlink), owned by the
 * controller's effective user or root, mode 0600 or tighter. Anything else
 * is refused with a message that says how to fix it. The value itself never
 * appears in a message, log or status.
 */
#ifndef RC_CREDENTIAL_H
#define RC_CREDENTIAL_H

#include "err.h"

/* Largest credential file accepted, in bytes (API keys are < 1 KiB). */
#define RC_CREDENTIAL_MAX_BYTES (64u * 1024)

/* Read <secrets_dir>/<name> into *value (NUL-terminated, trailing "\n" and
 * "\r\n" removed). name must be a plain file name: not empty, no '/', not
 * starting with '.', at most 255 bytes, printable ASCII. The file is opened
 * relative to the directory with O_NOFOLLOW, so a symlink is refused.
 *
 * Errors: ERR_INVALID for a bad name, a file that is not a regular file,
 * has the wrong owner or mode, is empty, holds a NUL or a line break
 * before its end; ERR_NOTFOUND when the file does not exist; ERR_LIMIT
 * over RC_CREDENTIAL_MAX_BYTES; ERR_IO for other system errors.
 * On success *value is the caller's: release it with rc_credential_free().
 * On failure *value is untouched. */
int rc_credential_read(const char *secrets_dir, const char *name, char **value,
                       struct err *e);

/* Zero the value (explicit_bzero, so the compiler keeps it) and free it.
 * NULL is a no-op. */
void rc_credential_free(char *value);

#endif
