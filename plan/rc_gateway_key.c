/* rc_gateway_key.c - the credential gateway's key file as the tar archive
 * the controller uploads through the keeper into the key volume
 * (docs/gateway.md "The key"): one ustar entry, owned by the gateway's
 * user, mode 0400.
 *
 * Written by hand rather than with libarchive: the archive holds the
 * credential, and libarchive copies what it writes through block buffers
 * of its own that nobody wipes. Here the archive's one copy is the
 * caller's buffer, allocated once at its full size (never moved by a
 * realloc), so one explicit_bzero() clears it (the Docker client wipes
 * its copy of the body; libcurl's send buffer is beyond reach). */
#include "rc_desired.h"

#include <stdio.h>
#include <string.h>

#include "buf.h"

#define TAR_BLOCK 512

/* A number as NUL-terminated octal filling a field of `size` bytes (the
 * values here - mode, uid, a size up to 64 KiB - always fit; the low
 * digits are kept if one did not). */
static void
tar_octal(char *field, size_t size, unsigned long long v)
{
    char digits[32];
    int n = snprintf(digits, sizeof(digits), "%0*llo", (int)size - 1, v);

    memcpy(field, digits + n - ((int)size - 1), size - 1);
    field[size - 1] = '\0';
}

/* The 512-byte ustar header of a regular file. */
static void
tar_header(unsigned char h[TAR_BLOCK], const char *name, unsigned uid,
           unsigned mode, size_t size)
{
    unsigned sum = 0;

    memset(h, 0, TAR_BLOCK);
    snprintf((char *)h, 100, "%s", name); /* name */
    tar_octal((char *)h + 100, 8, mode);  /* mode */
    tar_octal((char *)h + 108, 8, uid);   /* uid */
    tar_octal((char *)h + 116, 8, uid);   /* gid: the user's own */
    tar_octal((char *)h + 124, 12, size); /* size */
    tar_octal((char *)h + 136, 12, 0);    /* mtime */
    h[156] = '0';                         /* typeflag: regular */
    memcpy(h + 257, "ustar", 6);          /* magic, NUL included */
    memcpy(h + 263, "00", 2);             /* version */
    memset(h + 148, ' ', 8);              /* chksum counts as blanks */
    for (size_t i = 0; i < TAR_BLOCK; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum); /* six digits, NUL, */
    h[155] = ' ';                              /* and a blank */
}

int
rc_desired_key_tar(const struct rc_desired *d, struct buf *out, struct err *e)
{
    static const unsigned char zeros[3 * TAR_BLOCK];
    unsigned char h[TAR_BLOCK];
    size_t len, pad, total;

    if (rc_desired_object(d, RC_ROLE_KEY) == NULL || d->secret == NULL)
        return err_set(e, ERR_INVALID, "this attempt has no gateway key");
    len = strlen(d->secret);
    /* header, the data padded to a block, two zero blocks at the end */
    pad = (TAR_BLOCK - len % TAR_BLOCK) % TAR_BLOCK + 2 * TAR_BLOCK;
    total = TAR_BLOCK + len + pad;
    tar_header(h, RC_GATEWAY_KEY_FILE, RC_GATEWAY_UID, 0400, len);
    if (len > RC_GATEWAY_KEY_BYTES || buf_preallocate(out, total, e) == -1)
        return len > RC_GATEWAY_KEY_BYTES
                   ? err_set(e, ERR_LIMIT, "the credential is too long")
                   : -1;
    /* within the preallocated room: the data never moves */
    if (buf_append(out, h, TAR_BLOCK, e) == -1 ||
        buf_append(out, d->secret, len, e) == -1 ||
        buf_append(out, zeros, pad, e) == -1)
        return -1;
    return 0;
}
