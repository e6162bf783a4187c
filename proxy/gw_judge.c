/* gw_judge.c - the body of a request to a model endpoint, read whole and
 * judged before any of it (or its head) reaches the vendor (gw_body.h,
 * docs/gateway.md "Request policy").
 *
 * Such a request must declare its length (a chunked body would have to be
 * decoded to be judged, and the CLIs send Content-Length) and carry no
 * content coding (a compressed body cannot be read as JSON; none of the
 * CLIs compresses its requests); its length is bounded by
 * GW_JUDGED_MAX, the gateway's memory being 64 MiB. Once the body is in
 * and passed, the vendor side relays it from the buffer
 * (gw_upstream.c), through the same framing and budget as any body.
 */
#include "gw_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

/* The largest body of a model request the gateway reads whole. */
#define GW_JUDGED_MAX (16u * 1024 * 1024)

static const struct gw_field *
field(const struct gw_req_head *h, const char *lower)
{
    for (size_t i = 0; i < h->nfields; i++)
        if (gw_field_is(&h->fields[i], lower))
            return &h->fields[i];
    return NULL;
}

int
gw__judge_head(struct gw_conn *c, const struct gw_req_head *h)
{
    const struct gw_body_policy *p = &c->gw->cfg->body;
    const struct gw_field *f;
    char why[256];

    c->judging = false;
    if (p->api == GW_API_NONE)
        return 0;
    if (gw_body_below(p, h->target, h->path_len)) {
        gw__conn_deny(c, 403, "http_request_denied",
                      "a path below a model endpoint: the request policy "
                      "judges the model endpoints themselves only");
        return -1;
    }
    if (!gw_body_judged(p, h->target, h->path_len))
        return 0;
    /* The beta flags, every field of the API's header, with a body or
     * without: a flag is the vendor's to read whatever the body says. */
    for (size_t i = 0; i < h->nfields; i++) {
        f = &h->fields[i];
        if (gw_field_is(f, gw_body_beta_header(p)) &&
            gw_body_check_betas(p, f->value, f->value_len, why, sizeof(why))) {
            gw__conn_deny(c, 403, "http_request_denied", why);
            return -1;
        }
    }
    /* no body, nothing more to judge (a WebSocket upgrade the head
     * rebuild drops; the path rules judged the request itself) */
    if (h->framing == GW_BODY_NONE)
        return 0;
    f = field(h, "content-encoding");
    if (f != NULL && !(f->value_len == 8 &&
                       strncasecmp(f->value, "identity", 8) == 0)) {
        gw__conn_deny(c, 415, "http_request_denied",
                      "a request to a model endpoint may not be compressed: "
                      "its body is read as JSON before it goes");
        return -1;
    }
    if (h->framing != GW_BODY_LENGTH) {
        gw__conn_deny(c, 411, "http_request_denied",
                      "a request to a model endpoint needs Content-Length: "
                      "its body is read whole before it goes");
        return -1;
    }
    if (h->length > GW_JUDGED_MAX) {
        snprintf(why, sizeof(why),
                 "a request to a model endpoint of more than %u bytes",
                 GW_JUDGED_MAX);
        gw__conn_deny(c, 413, "http_request_denied", why);
        return -1;
    }
    c->judging = true;
    c->judge_len = h->length;
    buf_cleanup(&c->judged);
    buf_init(&c->judged, (size_t)h->length + 1);
    c->judged_off = 0;
    return 0;
}

/* Take what cin holds of the body, then read the client until the body
 * is whole or the socket is drained. 1 once the body is whole, 0 for
 * more, -1 when the connection went (closed). */
static int
judge_read(struct gw_conn *c)
{
    for (;;) {
        size_t want = (size_t)(c->judge_len - c->judged.len);
        size_t take = c->cin_len < want ? c->cin_len : want;
        ssize_t n;

        if (take > 0) {
            if (buf_append(&c->judged, c->cin, take, NULL) == -1) {
                gw__conn_close(c, "out of memory");
                return -1;
            }
            memmove(c->cin, c->cin + take, c->cin_len - take);
            c->cin_len -= take;
            want -= take;
        }
        if (want == 0)
            return 1;
        if (c->client_eof) {
            gw__conn_close(c, "client left during the request body");
            return -1;
        }
        n = recv(c->cfd, c->cin, GW_BUF, 0);
        if (n == 0) {
            c->client_eof = true;
            continue; /* said above, once cin is taken */
        }
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                return 0;
            gw__conn_close(c, "client read failed");
            return -1;
        }
        c->cin_len = (size_t)n;
        c->last_active = ev_now(c->gw->loop);
    }
}

void
gw__judge_step(struct gw_conn *c)
{
    char why[256];
    const char *no;
    int r = judge_read(c), status = 403;

    if (r == -1)
        return;
    if (r == 0) {
        gw__conn_watch(c);
        return;
    }
    no = gw_body_check(&c->gw->cfg->body, c->judged.data, c->judged.len, why,
                       sizeof(why));
    /* counted once it passed: a refused request uses no budget */
    if (no == NULL)
        no = gw__conn_admit_budget(c, c->judge_len, &status);
    if (no != NULL) {
        /* the rebuilt head holds the key: it goes now, not at the close */
        explicit_bzero(c->uout.data, c->uout.len);
        buf_reset(&c->uout);
        gw__conn_deny(c, status, "http_request_denied", no);
        return;
    }
    c->judging = false; /* passed, and counted: relayed from c->judged */
    gw__up_start(c);
}
