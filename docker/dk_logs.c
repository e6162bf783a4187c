/* dk_logs.c - incremental decoder of the multiplexed stdout/stderr stream
 * that /containers/{id}/logs and attach send for Tty:false containers.
 * Pure: bytes in, (stream, bytes) callbacks out; any chunking works.
 */
#include "dk.h"

#include <string.h>

void
dk_logs_demux_init(struct dk_logs_demux *d)
{
    memset(d, 0, sizeof(*d));
}

static int
dk_logs_header(struct dk_logs_demux *d, struct err *e)
{
    const unsigned char *h = d->hdr;

    /* [stream 0..2, 0, 0, 0, len:u32be]: anything else means this is not
     * a multiplexed stream, most likely a Tty:true container's raw log. */
    if (h[0] > 2 || h[1] != 0 || h[2] != 0 || h[3] != 0) {
        d->failed = 1;
        return err_set(e, ERR_SYNTAX,
                       "log stream is not multiplexed: frame header "
                       "%02x %02x %02x %02x (Tty container?)",
                       h[0], h[1], h[2], h[3]);
    }
    d->stream = h[0];
    d->left = (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 |
              (uint32_t)h[6] << 8 | (uint32_t)h[7];
    d->hdr_len = 0;
    return 0;
}

int
dk_logs_demux_feed(struct dk_logs_demux *d, const void *p, size_t n,
                   dk_logs_fn *cb, void *arg, struct err *e)
{
    const char *s = p;

    if (d->failed)
        return err_set(e, ERR_SYNTAX, "log stream decoder already failed");
    while (n > 0) {
        if (d->left == 0) {
            size_t take = sizeof(d->hdr) - d->hdr_len;

            if (take > n)
                take = n;
            memcpy(d->hdr + d->hdr_len, s, take);
            d->hdr_len += take;
            s += take;
            n -= take;
            if (d->hdr_len == sizeof(d->hdr) && dk_logs_header(d, e) == -1)
                return -1;
        } else {
            size_t take = d->left < n ? d->left : n;

            cb(d->stream, s, take, arg);
            d->left -= (uint32_t)take;
            s += take;
            n -= take;
        }
    }
    return 0;
}

int
dk_logs_demux_end(const struct dk_logs_demux *d, struct err *e)
{
    if (d->failed)
        return err_set(e, ERR_SYNTAX, "log stream decoder failed");
    if (d->hdr_len > 0 || d->left > 0)
        return err_set(e, ERR_SYNTAX,
                       "log stream ended inside a frame (%zu header bytes, "
                       "%u payload bytes missing)",
                       d->hdr_len > 0 ? sizeof(d->hdr) - d->hdr_len : 0,
                       (unsigned)d->left);
    return 0;
}
