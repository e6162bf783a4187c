/* px_request.c - incremental CONNECT request parser (see px_request.h).
 *
 * One byte at a time through a small state machine. The request line must
 * be "METHOD SP target SP HTTP/1.0|1.1", lines end in CRLF or a bare LF,
 * header fields are "token ':' value" and obsolete line folding is
 * refused (it has been used to smuggle fields past parsers).
 */
#include "px_request.h"

#include <string.h>

/* RFC 9110 tchar. */
static bool
px_is_tchar(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
        (c >= '0' && c <= '9'))
        return true;
    return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static enum px_req_state
px_req_fail(struct px_req *r, int status, const char *why)
{
    r->status = status;
    r->why = why;
    return PX_RS_FAIL;
}

static enum px_req_state
px_req_method(struct px_req *r, unsigned char c)
{
    if (c == ' ') {
        if (r->method_len == 0)
            return px_req_fail(r, 400, "empty method");
        if (strcmp(r->method, "CONNECT") != 0)
            return px_req_fail(r, 405, "method is not CONNECT");
        return PX_RS_TARGET;
    }
    if (!px_is_tchar(c))
        return px_req_fail(r, 400, "bad byte in method");
    if (r->method_len == PX_REQ_METHOD_MAX)
        return px_req_fail(r, 405, "method is not CONNECT");
    r->method[r->method_len++] = (char)c;
    r->method[r->method_len] = '\0';
    return PX_RS_METHOD;
}

static enum px_req_state
px_req_target(struct px_req *r, unsigned char c)
{
    if (c == ' ') {
        if (r->target_len == 0)
            return px_req_fail(r, 400, "empty target");
        return PX_RS_VERSION;
    }
    if (c < 0x21 || c > 0x7e)
        return px_req_fail(r, 400, "bad byte in target");
    if (r->target_len == PX_REQ_TARGET_MAX)
        return px_req_fail(r, 400, "target too long");
    r->target[r->target_len++] = (char)c;
    r->target[r->target_len] = '\0';
    return PX_RS_TARGET;
}

static enum px_req_state
px_req_version(struct px_req *r, unsigned char c)
{
    if (c == '\r' || c == '\n') {
        if (strcmp(r->version, "HTTP/1.1") != 0 &&
            strcmp(r->version, "HTTP/1.0") != 0)
            return px_req_fail(r, 400, "version must be HTTP/1.0 or 1.1");
        return c == '\r' ? PX_RS_REQ_CR : PX_RS_LINE_START;
    }
    if (r->version_len == sizeof(r->version) - 1)
        return px_req_fail(r, 400, "version must be HTTP/1.0 or 1.1");
    r->version[r->version_len++] = (char)c;
    r->version[r->version_len] = '\0';
    return PX_RS_VERSION;
}

static enum px_req_state
px_req_line_start(struct px_req *r, unsigned char c)
{
    if (c == '\r')
        return PX_RS_END_CR;
    if (c == '\n')
        return PX_RS_DONE;
    if (c == ' ' || c == '\t')
        return px_req_fail(r, 400, "folded header line");
    if (!px_is_tchar(c))
        return px_req_fail(r, 400, "bad byte in field name");
    return PX_RS_NAME;
}

/* Value bytes: visible ASCII, SP, HTAB and obs-text; no other controls. */
static enum px_req_state
px_req_value(struct px_req *r, unsigned char c)
{
    if (c == '\r')
        return PX_RS_LINE_CR;
    if (c == '\n')
        return PX_RS_LINE_START;
    if ((c < 0x20 && c != '\t') || c == 0x7f)
        return px_req_fail(r, 400, "control byte in field value");
    return PX_RS_VALUE;
}

static enum px_req_state
px_req_step(struct px_req *r, unsigned char c)
{
    switch (r->state) {
    case PX_RS_METHOD:
        return px_req_method(r, c);
    case PX_RS_TARGET:
        return px_req_target(r, c);
    case PX_RS_VERSION:
        return px_req_version(r, c);
    case PX_RS_REQ_CR:
    case PX_RS_LINE_CR:
        return c == '\n' ? PX_RS_LINE_START
                         : px_req_fail(r, 400, "CR without LF");
    case PX_RS_LINE_START:
        return px_req_line_start(r, c);
    case PX_RS_NAME:
        if (c == ':')
            return PX_RS_VALUE;
        return px_is_tchar(c) ? PX_RS_NAME
                              : px_req_fail(r, 400, "bad byte in field name");
    case PX_RS_VALUE:
        return px_req_value(r, c);
    case PX_RS_END_CR:
        return c == '\n' ? PX_RS_DONE : px_req_fail(r, 400, "CR without LF");
    case PX_RS_DONE:
    case PX_RS_FAIL:
        break;
    }
    return r->state;
}

void
px_req_init(struct px_req *r, size_t limit)
{
    memset(r, 0, sizeof(*r));
    r->state = PX_RS_METHOD;
    r->limit = limit;
}

enum px_req_result
px_req_feed(struct px_req *r, const char *p, size_t n, size_t *consumed)
{
    size_t i = 0;

    while (i < n && r->state != PX_RS_DONE && r->state != PX_RS_FAIL) {
        if (r->used == r->limit) {
            r->state = px_req_fail(r, 431, "header over the limit");
            break;
        }
        r->state = px_req_step(r, (unsigned char)p[i]);
        r->used++;
        i++;
    }
    if (consumed != NULL)
        *consumed = i;
    if (r->state == PX_RS_DONE)
        return PX_REQ_DONE;
    return r->state == PX_RS_FAIL ? PX_REQ_FAIL : PX_REQ_MORE;
}
