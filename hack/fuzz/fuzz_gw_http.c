/* fuzz_gw_http.c - libFuzzer target for the gateway's HTTP framing: the
 * request head parser, the head rebuilt from what it parsed, the path
 * rules, and the response and chunked-body trackers.
 *
 * The first byte picks a split point: the response tracker is fed whole
 * and in two pieces, and both runs must agree on the outcome and on the
 * bytes consumed (it is incremental: a split must never change it), and
 * so must the usage reader (gw_usage.h) it hands the body to.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_head.h"
#include "gw_http.h"
#include "gw_policy.h"
#include "gw_usage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_request(const char *p, size_t n)
{
    size_t end = gw_head_end(p, n);
    struct gw_req_head *h;
    struct gw_cred cred = { .kind = GW_AUTH_BEARER, .key = "k", .key_len = 1 };
    struct gw_policy pol = { 0 };
    struct buf out;
    int status;

    if (end == 0)
        return;
    h = malloc(sizeof(*h));
    if (h == NULL)
        return;
    if (gw_req_parse(p, end, h, &status, NULL) == 0) {
        gw_policy_add(&pol, "POST /v1/messages", NULL);
        (void)gw_policy_check(&pol, h->method, h->method_len, h->target,
                              h->path_len);
        buf_init(&out, 1 << 17);
        if (gw_head_build(h, "vendor.test", &cred, n % 2 == 0, &out, NULL) ==
                0 &&
            gw_head_end(out.data, out.len) != out.len)
            abort(); /* the rebuilt head must be one complete head */
        buf_cleanup(&out);
    }
    free(h);
}

/* The usage reader behind the tracker, set up at the body's first byte
 * (the head says whether it is a stream), as the gateway does. */
struct sink {
    const struct gw_resp *r;
    bool started;
    struct gw_usage u;
};

static void
on_data(void *arg, const char *p, size_t n)
{
    struct sink *s = arg;

    if (!s->started)
        gw_usage_init(&s->u, GW_API_ANTHROPIC, s->r->event_stream, s->r->coded);
    s->started = true;
    gw_usage_feed(&s->u, p, n);
}

static enum gw_feed
fuzz_resp(const char *p, size_t n, size_t split, size_t *used,
          struct gw_tokens *t)
{
    struct gw_resp r;
    struct sink s = { .r = &r };
    size_t a = 0, b = 0;
    enum gw_feed f;

    gw_resp_init(&r, false);
    r.on_data = on_data;
    r.data_arg = &s;
    f = gw_resp_feed(&r, p, split, &a);
    if (f == GW_FEED_MORE)
        f = gw_resp_feed(&r, p + split, n - split, &b);
    gw_resp_cleanup(&r);
    *used = a + b;
    memset(t, 0, sizeof(*t));
    if (s.started && !gw_usage_finish(&s.u, t))
        t->input = UINT64_MAX; /* "unknown", compared like a count */
    return f;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data + 1;
    size_t n, split, u1, u2;
    struct gw_tokens t1, t2;

    if (size < 1)
        return 0;
    n = size - 1;
    split = n == 0 ? 0 : data[0] % (n + 1);
    fuzz_request(p, n);
    if (fuzz_resp(p, n, n, &u1, &t1) != fuzz_resp(p, n, split, &u2, &t2) ||
        u1 != u2 || memcmp(&t1, &t2, sizeof(t1)) != 0)
        abort();
    return 0;
}
