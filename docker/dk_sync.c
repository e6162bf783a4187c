/* dk_sync.c - blocking wrappers for tools and tests: start a request, run
 * the client's (private) loop until it finished, hand back an owned copy.
 * Never used inside the controller's loop, which must not block.
 */
#include "dk_int.h"

#include <stdlib.h>
#include <string.h>

struct dk_sync {
    int done;
    int rc;
    struct dk_sync_result *out;
    struct err *e;
};

static void
dk_sync_on_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct dk_sync *s = arg;

    (void)req;
    s->done = 1;
    s->rc = r->err != NULL ? -1 : 0;
    if (r->err != NULL && s->e != NULL)
        *s->e = *r->err;
    if (s->out == NULL)
        return;
    s->out->status = r->status;
    s->out->body = malloc(r->len + 1);
    if (s->out->body == NULL) {
        s->rc = err_set(s->e, ERR_NOMEM, "out of memory");
        return;
    }
    memcpy(s->out->body, r->body, r->len + 1);
    s->out->len = r->len;
    s->out->json = r->json; /* taken: see struct dk_response */
    r->json = NULL;
}

static int
dk_sync_run(struct dk *dk, struct dk_sync *s)
{
    struct ev_loop *loop = dk->loop;

    while (!s->done) {
        if (!ev_run(loop, EVRUN_ONCE) && !s->done)
            return err_set(s->e, ERR_IO, "event loop has nothing to wait for");
    }
    return s->rc;
}

int
dk_sync_request(struct dk *dk, const struct dk_request_opts *o,
                struct dk_sync_result *out, struct err *e)
{
    struct dk_sync s = { .out = out, .e = e };

    memset(out, 0, sizeof(*out));
    if (dk_request(dk, o, dk_sync_on_done, &s, e) == NULL)
        return -1;
    return dk_sync_run(dk, &s);
}

int
dk_sync_negotiate(struct dk *dk, struct err *e)
{
    struct dk_sync s = { .e = e };

    if (dk_negotiate(dk, dk_sync_on_done, &s, e) == -1)
        return -1;
    return dk_sync_run(dk, &s);
}

void
dk_sync_cleanup(struct dk_sync_result *r)
{
    if (r == NULL)
        return;
    free(r->body);
    cJSON_Delete(r->json);
    memset(r, 0, sizeof(*r));
}
