/* gw_http.h - the gateway's HTTP/1.1 framing: a request head parsed whole,
 * a response head and both bodies tracked byte by byte.
 *
 * Pure code. The gateway rewrites only the request head; every body byte
 * and the response head pass through unchanged, so the body trackers only
 * find where a message ends (Content-Length, chunked, or the close), which
 * the gateway needs for keep-alive, the audit line and the budget. Inputs
 * are hostile: every count is capped, framing that two parties could read
 * two ways (Content-Length with Transfer-Encoding, two different lengths,
 * a coding other than chunked) is refused (RFC 9112 6.3).
 */
#ifndef GW_HTTP_H
#define GW_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

/* Most header fields in one request head. */
#define GW_FIELDS_MAX 128
/* Most bytes of chunk extensions, or of trailer lines, in one body. */
#define GW_CHUNK_META_MAX 4096
/* Most bytes of one response head (status line and fields). */
#define GW_RESP_HEAD_MAX (64 * 1024)

struct gw_field {
    const char *name; /* borrowed from the head buffer */
    size_t name_len;
    const char *value; /* without surrounding blanks */
    size_t value_len;
};

enum gw_framing {
    GW_BODY_NONE,    /* no body */
    GW_BODY_LENGTH,  /* Content-Length bytes */
    GW_BODY_CHUNKED, /* chunked transfer coding */
    GW_BODY_EOF,     /* until the sender closes (responses only) */
};

/* A parsed request head; every pointer borrows the parsed buffer. */
struct gw_req_head {
    const char *method;
    size_t method_len;
    const char *target; /* origin-form: "/" path ["?" query] */
    size_t target_len;
    size_t path_len; /* target bytes before '?' */
    int minor;       /* HTTP/1.minor, 0 or 1 */
    struct gw_field fields[GW_FIELDS_MAX];
    size_t nfields;
    enum gw_framing framing; /* NONE, LENGTH or CHUNKED */
    uint64_t length;         /* when LENGTH */
    bool keep_alive;         /* the client may send another request */
    bool expect_continue;    /* "Expect: 100-continue" */
};

/* Bytes of the head at the start of p (blank line included), or 0 when
 * p[0..n) holds no complete head yet. */
size_t gw_head_end(const char *p, size_t n);

/* Parse a complete request head (p, n as gw_head_end() measured). On
 * error returns -1, sets *status (400, 431, 501 or 505) and e's message.
 * The target must be origin-form of RFC 3986 characters only (ALPHA
 * DIGIT -._~!$&'()*+,;=:@/? and '%' with two hex digits): a '#', a raw
 * byte 0x80-0xFF, "%u..." or a bare '%' is refused with the byte and its
 * offset in the target ("request target: byte 0x23 at 12 is not allowed
 * (RFC 3986)"). A field name with '_' is refused (400): servers read
 * "X_Api_Key" as "X-Api-Key" or drop it, so one field would mean two
 * things (gw_http.c). */
int gw_req_parse(const char *p, size_t n, struct gw_req_head *h, int *status,
                 struct err *e);

/* True when the field name is the given lower-case name (any case). */
bool gw_field_is(const struct gw_field *f, const char *lower);

/* True when the comma-separated list (a Connection value) holds token. */
bool gw_list_has(const char *v, size_t n, const char *lower);

enum gw_feed {
    GW_FEED_MORE, /* the message goes on: feed more bytes */
    GW_FEED_DONE, /* the message ended; bytes after it were not consumed */
    GW_FEED_FAIL, /* broken framing */
};

enum gw_chunk_state {
    GW_CK_SIZE,       /* hex digits of a chunk size */
    GW_CK_EXT,        /* chunk extension, up to CR */
    GW_CK_SIZE_LF,    /* LF after the size line */
    GW_CK_DATA,       /* chunk data */
    GW_CK_DATA_CR,    /* CR after the data */
    GW_CK_DATA_LF,    /* LF after the data */
    GW_CK_LINE_START, /* after the last chunk: a trailer or the end */
    GW_CK_TRAILER,    /* a trailer line, up to CR */
    GW_CK_TRAILER_LF, /* LF after a trailer line */
    GW_CK_END_LF,     /* LF of the final blank line */
    GW_CK_DONE,
};

/* Where a body's data goes besides the wire: its bytes with the transfer
 * coding removed, as they are fed (a second reader, gw_usage.h). */
typedef void gw_data_fn(void *arg, const char *p, size_t n);

/* Where a body ends. Initialise with gw_body_init(). */
struct gw_body {
    enum gw_framing kind;
    uint64_t left; /* LENGTH: bytes to come; chunked: of this chunk */
    enum gw_chunk_state ck;
    unsigned digits;     /* hex digits of the current size */
    size_t meta;         /* extension and trailer bytes seen */
    bool no_trailers;    /* refuse trailer fields (requests) */
    const char *why;     /* static text when FAIL */
    uint64_t fed;        /* body bytes so far, chunk framing included */
    gw_data_fn *on_data; /* NULL, or given the data (not the framing) */
    void *data_arg;
};

void gw_body_init(struct gw_body *b, enum gw_framing kind, uint64_t length,
                  bool no_trailers);

/* Feed n bytes; *used is set to the bytes that belong to the body. */
enum gw_feed gw_body_feed(struct gw_body *b, const char *p, size_t n,
                          size_t *used);

/* The response to one request, tracked from its first byte. */
struct gw_resp {
    bool in_head;
    bool head_request; /* the request was HEAD: no body */
    struct buf head;   /* the head so far (capped at GW_RESP_HEAD_MAX) */
    int status;        /* of the final (non-1xx) head, 0 before */
    bool close;        /* the vendor will close after this response */
    struct gw_body body;
    const char *why;     /* static text when FAIL */
    bool event_stream;   /* Content-Type: text/event-stream */
    bool coded;          /* a Content-Encoding other than identity */
    gw_data_fn *on_data; /* set by the caller: the body's data, decoded */
    void *data_arg;
};

void gw_resp_init(struct gw_resp *r, bool head_request);
void gw_resp_cleanup(struct gw_resp *r);

/* Feed n bytes of the vendor's answer; *used as for gw_body_feed(). */
enum gw_feed gw_resp_feed(struct gw_resp *r, const char *p, size_t n,
                          size_t *used);

/* The vendor closed: true when that ends the response well (a body
 * delimited by the close), false when it cut the response short. */
bool gw_resp_eof_ok(const struct gw_resp *r);

#endif
