/* fuzz_etcd_watch.c - libFuzzer target for the etcd watch stream parser
 * (store/etcd/store_etcd_wparse.c): newline-delimited JSON messages from the
 * gateway's watch, any of which may arrive split across reads.
 *
 * The first byte picks a split point; the stream is fed whole and in two
 * pieces, and both runs must take the same messages (kind, revision,
 * changes by kind and name) in the same order, and fail the same way. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store_etcd_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
    char log[8192];
    size_t len;
    int failed;
};

static void
note(struct seen *s, const char *text, size_t n)
{
    if (s->len + n < sizeof(s->log)) {
        memcpy(s->log + s->len, text, n);
        s->len += n;
    }
}

/* Take every complete message; -1 when the parser refused one. */
static int
drain(struct store_etcd_wparse *p, struct seen *s)
{
    struct store_change ch[8];
    enum store_etcd_wmsg k;
    int64_t rev;
    size_t n;
    bool over;

    /* every complete message: each call takes one line, so this ends */
    for (;;) {
        /* out is in and out (the caller merges a batch): one message
         * each here, so that a split cannot change what is compared */
        n = 0;
        over = false;
        if (store__etcd_wparse_next(p, &k, &rev, ch, 8, &n, &over, NULL) ==
            -1)
            return -1;
        if (k == STORE_ETCD_WMSG_NONE)
            return 0;
        note(s, (const char *)&k, sizeof(k));
        note(s, (const char *)&rev, sizeof(rev));
        for (size_t i = 0; k == STORE_ETCD_WMSG_EVENTS && i < n; i++) {
            note(s, (const char *)&ch[i].kind, sizeof(ch[i].kind));
            note(s, ch[i].name, strlen(ch[i].name) + 1);
        }
        note(s, over ? "+" : "-", 1);
    }
}

static void
run(const char *p, size_t n, size_t cut, struct seen *s)
{
    struct store_etcd_wparse w;

    memset(s, 0, sizeof(*s));
    store__etcd_wparse_init(&w, "/agentctl/specs/");
    if (store__etcd_wparse_feed(&w, p, cut, NULL) == -1 || drain(&w, s) == -1 ||
        store__etcd_wparse_feed(&w, p + cut, n - cut, NULL) == -1 ||
        drain(&w, s) == -1)
        s->failed = 1;
    store__etcd_wparse_cleanup(&w);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct seen whole, split;
    size_t cut;

    if (size < 1)
        return 0;
    cut = size > 1 ? data[0] % (size - 1) : 0;
    run((const char *)data + 1, size - 1, size - 1, &whole);
    run((const char *)data + 1, size - 1, cut, &split);
    /* a refusal may come at another message when split (what was taken
     * before it differs), so only runs that both succeed must agree */
    if (!whole.failed && !split.failed &&
        (whole.len != split.len || memcmp(whole.log, split.log, whole.len)))
        abort();
    return 0;
}
