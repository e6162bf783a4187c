/* fuzz_dk_events.c - libFuzzer target for Docker's event stream as the
 * controller reads it: the bytes go through curl's write callback of a
 * GET /events request (dk__on_write in line mode, docker/dk_req.c), and
 * every line it hands on through dk_event_parse (docker/dk_event.c), the
 * reader controller/loop/loop_events.c routes by.
 *
 * Byte 0 is the line cap (the request's max_line, small so the "line too
 * long" end is reached) and byte 1 seeds the split: the stream is fed
 * whole and in pieces of sizes 1..64 picked from it, and both runs must
 * hand on the same lines, read the same fields from each, and end the
 * same way (the transfer stopped or not). No crash, leak or UB in either.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "dk_event.h"
#include "dk_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What a run handed on, field by field, for the comparison. */
struct seen {
    struct buf log;
};

static void
note(struct seen *s, const char *v)
{
    /* each field and its end: NULL and "" differ */
    if (v == NULL)
        (void)buf_append(&s->log, "\001", 1, NULL);
    else
        (void)buf_append(&s->log, v, strlen(v) + 1, NULL);
}

static void
on_line(struct dk_req *req, const char *line, size_t len, void *arg)
{
    struct seen *s = arg;
    struct dk_event ev;

    (void)req;
    if (memchr(line, '\n', len) != NULL || line[len] != '\0')
        abort(); /* a line is handed on without its newline, terminated */
    if (dk_event_parse(line, len, &ev) == -1) {
        (void)buf_append(&s->log, "\002", 1, NULL);
        return;
    }
    note(s, ev.type);
    note(s, ev.action);
    note(s, ev.id);
    note(s, ev.uid);
    note(s, ev.role);
    note(s, ev.name);
    note(s, ev.container);
    (void)buf_append(&s->log, &ev.has_time, sizeof(ev.has_time), NULL);
    if (ev.has_time)
        (void)buf_append(&s->log, &ev.time, sizeof(ev.time), NULL);
    dk_event_cleanup(&ev);
}

/* Feed p in pieces whose sizes come from seed (0: whole). Returns 1 when
 * the transfer was stopped (a write callback took less than it got). */
static int
run(const char *p, size_t n, size_t max_line, uint8_t seed, struct seen *s)
{
    struct dk dk = { 0 };
    struct dk_req req = { 0 };
    uint32_t x = seed * 2654435761u + 1;
    size_t off = 0;
    int stopped = 0;

    req.dk = &dk;
    req.state = DK_REQ_ACTIVE;
    req.mode = DK_STREAM_LINES;
    req.status = 200;
    req.on_data = on_line;
    req.arg = s;
    req.what = "GET /events";
    buf_init(&req.line, max_line);
    buf_init(&req.body, 1 << 16);
    buf_init(&s->log, 1 << 22);
    while (off < n && !stopped) {
        size_t k = n - off;

        if (seed != 0) {
            x = x * 1103515245u + 12345u;
            k = k < 1 + (x >> 16) % 64 ? k : 1 + (x >> 16) % 64;
        }
        stopped = dk__on_write((char *)p + off, 1, k, &req) != k;
        off += k;
    }
    buf_cleanup(&req.line);
    buf_cleanup(&req.body);
    free(req.fail);
    return stopped;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct seen whole, split;
    size_t max_line;
    int a, b;

    if (size < 2)
        return 0;
    max_line = 16 + (size_t)data[0] * 16;
    a = run((const char *)data + 2, size - 2, max_line, 0, &whole);
    b = run((const char *)data + 2, size - 2, max_line, data[1] | 1, &split);
    if (a != b || whole.log.len != split.log.len ||
        (whole.log.len > 0 &&
         memcmp(whole.log.data, split.log.data, whole.log.len) != 0))
        abort(); /* a split changed what the controller would see */
    buf_cleanup(&whole.log);
    buf_cleanup(&split.log);
    return 0;
}
