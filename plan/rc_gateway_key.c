/* rc_gateway_key.c - the credential gateway's key file as the tar archive
 * the controller uploads through the keeper into the key volume
 * (docs/gateway.md "The key"): one ustar entry, owned by the gateway's
 * user, mode 0400.
 *
 * Written by hand rather than with libarchive: the archive holds the
 * credential (and a waiting agent's order may: rc_desired_order_tar),
 * and libarchive copies what it writes through block buffers
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

/* Bytes one entry of len data bytes takes: its header and the data
 * padded to a block. */
static size_t
entry_size(size_t len)
{
    return TAR_BLOCK + len + (TAR_BLOCK - len % TAR_BLOCK) % TAR_BLOCK;
}

/* One entry, within out's preallocated room (the data never moves). */
static int
put_entry(struct buf *out, const char *name, unsigned uid, unsigned mode,
          const char *data, size_t len, struct err *e)
{
    static const unsigned char zeros[TAR_BLOCK];
    unsigned char h[TAR_BLOCK];

    tar_header(h, name, uid, mode, len);
    if (buf_append(out, h, TAR_BLOCK, e) == -1 ||
        buf_append(out, data, len, e) == -1 ||
        buf_append(out, zeros, (TAR_BLOCK - len % TAR_BLOCK) % TAR_BLOCK,
                   e) == -1)
        return -1;
    return 0;
}

int
rc_desired_key_tar(const struct rc_desired *d, struct buf *out, struct err *e)
{
    static const unsigned char zeros[2 * TAR_BLOCK];
    size_t len, ca_len, total;

    if (rc_desired_object(d, RC_ROLE_KEY) == NULL)
        return err_set(e, ERR_INVALID, "this attempt has no gateway");
    /* a spec without a credential has a gateway without a key */
    len = d->secret != NULL ? strlen(d->secret) : 0;
    ca_len = d->gateway_ca != NULL ? strlen(d->gateway_ca) : 0;
    /* the key if any, the CA if any, two zero blocks at the end */
    total = (d->secret ? entry_size(len) : 0) +
            (ca_len ? entry_size(ca_len) : 0) + 2 * TAR_BLOCK;
    if (len > RC_GATEWAY_KEY_BYTES)
        return err_set(e, ERR_LIMIT, "the credential is too long");
    if (total > RC_GATEWAY_KEY_BYTES)
        return err_set(e, ERR_LIMIT, "the credential and the vendor's CA "
                                     "bundle do not fit the key volume");
    if (buf_preallocate(out, total, e) == -1 ||
        (d->secret != NULL && put_entry(out, RC_GATEWAY_KEY_FILE,
                                        RC_GATEWAY_UID, 0400, d->secret, len,
                                        e) == -1) ||
        (ca_len > 0 && put_entry(out, RC_GATEWAY_CA_FILE, RC_GATEWAY_UID, 0444,
                                 d->gateway_ca, ca_len, e) == -1) ||
        buf_append(out, zeros, sizeof(zeros), e) == -1)
        return -1;
    return 0;
}

int
rc_desired_order_tar(const struct rc_desired *d, struct buf *out,
                     struct err *e)
{
    static const unsigned char zeros[2 * TAR_BLOCK];
    char *text;
    size_t len;
    int rc;

    if (d->order == NULL)
        return err_set(e, ERR_INVALID, "this attempt has no waiting agent");
    if ((text = cJSON_PrintUnformatted(d->order)) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    len = strlen(text);
    if (len > RC_ORDER_MAX)
        rc = err_set(e, ERR_LIMIT, "the order is %zu bytes, over %u", len,
                     (unsigned)RC_ORDER_MAX);
    else
        rc = buf_preallocate(out, entry_size(len) + sizeof(zeros), e) == -1 ||
                     put_entry(out, RC_ORDER_FILE_NAME, d->agent_uid, 0400,
                               text, len, e) == -1 ||
                     buf_append(out, zeros, sizeof(zeros), e) == -1
                 ? -1
                 : 0;
    explicit_bzero(text, len); /* it may hold the credential (env mode) */
    cJSON_free(text);
    return rc;
}
