/* fuzz_dk_logs.c - libFuzzer target for the Docker log frame decoder
 * (dk_logs_demux, docker/dk_logs.c): the multiplexed stream of a
 * container's logs, as the output capture, the boundary probe's verdict
 * and the egress audit read it.
 *
 * The first byte picks a split point; the stream is fed whole and in two
 * pieces, and both runs must agree on the outcome and on every payload
 * byte per stream (the decoder is incremental: a split must never change
 * what it hands on). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "dk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct out {
    struct buf bytes[3];
};

static void
on_frame(int stream, const char *data, size_t len, void *arg)
{
    struct out *o = arg;

    if (stream < 0 || stream > 2)
        abort(); /* the decoder hands on only 0, 1 or 2 */
    (void)buf_append(&o->bytes[stream], data, len, NULL);
}

static int
run(const uint8_t *p, size_t n, size_t cut, struct out *o)
{
    struct dk_logs_demux d;
    int rc;

    for (int i = 0; i < 3; i++)
        buf_init(&o->bytes[i], 1 << 20);
    dk_logs_demux_init(&d);
    rc = dk_logs_demux_feed(&d, p, cut, on_frame, o, NULL);
    if (rc == 0)
        rc = dk_logs_demux_feed(&d, p + cut, n - cut, on_frame, o, NULL);
    if (rc == 0)
        rc = dk_logs_demux_end(&d, NULL);
    return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct out whole, split;
    size_t cut;
    int a, b;

    if (size < 1)
        return 0;
    cut = size > 1 ? data[0] % (size - 1) : 0;
    a = run(data + 1, size - 1, size - 1, &whole);
    b = run(data + 1, size - 1, cut, &split);
    if (a != b)
        abort();
    for (int i = 0; i < 3; i++) {
        if (whole.bytes[i].len != split.bytes[i].len ||
            (whole.bytes[i].len > 0 &&
             memcmp(whole.bytes[i].data, split.bytes[i].data,
                    whole.bytes[i].len) != 0))
            abort();
        buf_cleanup(&whole.bytes[i]);
        buf_cleanup(&split.bytes[i]);
    }
    return 0;
}
