/* test_dk_fake.h - a fake Docker Engine API server for the dk unit tests:
 * a unix socket in a temp directory, served from the test's own ev_loop,
 * answering each request through a handler the test supplies.
 */
#ifndef TEST_DK_FAKE_H
#define TEST_DK_FAKE_H

#include <stddef.h>

#include <ev.h>

struct fake_srv;
struct fake_conn;

/* One parsed request. Strings are NUL-terminated and live until the
 * handler returns. */
struct fake_http {
    char method[16];
    char path[512];
    char content_type[128];
    const char *body;
    size_t body_len;
};

typedef void fake_handler_fn(struct fake_conn *c, const struct fake_http *h,
                             void *arg);

/* Listen on a fresh socket; NULL on failure. */
struct fake_srv *fake_start(struct ev_loop *loop, fake_handler_fn *handler,
                            void *arg);
/* Close every connection, remove the socket and its directory. */
void fake_stop(struct fake_srv *srv);
/* "unix:///tmp/dkfake.XXXXXX/docker.sock" (borrowed). */
const char *fake_url(const struct fake_srv *srv);
/* Requests seen so far. */
int fake_requests(const struct fake_srv *srv);
/* Connections currently open. */
int fake_open_conns(const struct fake_srv *srv);

/* A whole reply with Content-Length, then close. content_type may be
 * NULL (no header). */
void fake_reply(struct fake_conn *c, int status, const char *reason,
                const char *content_type, const char *body, size_t len);

/* Chunked 200 reply: headers now, then one chunk per loop step. A NULL
 * chunk ends the list; end = 1 sends the final chunk and closes, end = 0
 * keeps the stream open. lens may be NULL (strlen of each chunk). Chunks
 * are borrowed until sent. */
void fake_stream(struct fake_conn *c, const char *content_type,
                 const char *const *chunks, const size_t *lens, int end);

/* Raw bytes on the connection (for malformed replies). */
void fake_write(struct fake_conn *c, const char *p, size_t n);

/* Let the loop run 0.2 s: time for a request that may go to reach the
 * fake daemon, or for a client without a cap to misbehave (not a timed
 * assertion: a correct client passes however slow the machine). */
void fake_pause(struct ev_loop *loop);

#endif
