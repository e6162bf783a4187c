/* px_request.h - a strictly bounded, incremental CONNECT request parser.
 *
 * Pure code with no allocation: the parser keeps only the method, the
 * target (at most PX_REQ_TARGET_MAX bytes) and a few counters, and skips
 * header fields after checking their syntax. Bytes may arrive in pieces of
 * any size, down to one at a time. Only header bytes count towards the
 * limit: px_req_feed() reports how many bytes it consumed, and the bytes
 * after the blank line are the caller's (tunnel payload).
 */
#ifndef PX_REQUEST_H
#define PX_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

/* Room for "[" + 253-byte name or IPv6 literal + "]:65535" with slack. */
#define PX_REQ_TARGET_MAX 300
#define PX_REQ_METHOD_MAX 16

enum px_req_result {
    PX_REQ_MORE, /* header not complete yet: feed more bytes */
    PX_REQ_DONE, /* blank line seen: method is CONNECT, target is set */
    PX_REQ_FAIL, /* refuse with status (400, 405, 431) */
};

enum px_req_state {
    PX_RS_METHOD,     /* reading the method token */
    PX_RS_TARGET,     /* reading the request target */
    PX_RS_VERSION,    /* reading "HTTP/1.x" */
    PX_RS_REQ_CR,     /* saw CR after the version */
    PX_RS_LINE_START, /* at the start of a header line */
    PX_RS_NAME,       /* in a field name */
    PX_RS_VALUE,      /* in a field value */
    PX_RS_LINE_CR,    /* saw CR after a field value */
    PX_RS_END_CR,     /* saw CR of the blank line */
    PX_RS_DONE,       /* header complete */
    PX_RS_FAIL,       /* refused; status and why are set */
};

struct px_req {
    enum px_req_state state;
    size_t limit; /* most header bytes accepted */
    size_t used;  /* header bytes consumed so far */
    char method[PX_REQ_METHOD_MAX + 1];
    size_t method_len;
    char target[PX_REQ_TARGET_MAX + 1]; /* NUL-terminated when DONE */
    size_t target_len;
    char version[9];
    size_t version_len;
    int status;      /* HTTP status when FAIL */
    const char *why; /* static text when FAIL */
};

/* Start a request whose header may take at most limit bytes. */
void px_req_init(struct px_req *r, size_t limit);

/* Feed n bytes. *consumed (may be NULL) is set to the bytes that belong
 * to the header; on DONE the rest of p is payload. Once DONE or FAIL,
 * further calls consume nothing and return the same result. */
enum px_req_result px_req_feed(struct px_req *r, const char *p, size_t n,
                               size_t *consumed);

#endif
