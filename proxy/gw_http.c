/* gw_http.c - request head parsing and body/response framing (see
 * gw_http.h). */
#include "gw_http.h"

#include <string.h>
#include <strings.h>

static bool
is_tchar(unsigned char c)
{
    /* RFC 9110 5.6.2 token characters. */
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || (c != 0 && strchr("!#$%&'*+-.^_`|~", c));
}

static bool
is_value_char(unsigned char c)
{
    return c == ' ' || c == '\t' || (c >= 0x21 && c != 0x7f);
}

size_t
gw_head_end(const char *p, size_t n)
{
    for (size_t i = 0; i + 3 < n; i++)
        if (p[i] == '\r' && p[i + 1] == '\n' && p[i + 2] == '\r' &&
            p[i + 3] == '\n')
            return i + 4;
    return 0;
}

bool
gw_field_is(const struct gw_field *f, const char *lower)
{
    return strlen(lower) == f->name_len &&
           strncasecmp(f->name, lower, f->name_len) == 0;
}

bool
gw_list_has(const char *v, size_t n, const char *lower)
{
    size_t want = strlen(lower), i = 0;

    while (i < n) {
        size_t start, end;

        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        start = i;
        while (i < n && v[i] != ',')
            i++;
        end = i;
        while (end > start && (v[end - 1] == ' ' || v[end - 1] == '\t'))
            end--;
        if (end - start == want && strncasecmp(v + start, lower, want) == 0)
            return true;
    }
    return false;
}

/* RFC 3986 characters of a path and query (3.3, 3.4): unreserved,
 * sub-delims, ':', '@', '/', '?'; '%' is checked apart (pct-encoded). */
static bool
is_target_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') ||
           (c != 0 && strchr("-._~!$&'()*+,;=:@/?", c));
}

static bool
is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
}

/* The offset of the first byte of t[0..n) that is not RFC 3986 (a '#',
 * a raw 8-bit byte, '%' without two hex digits after it: "%u0041"), or
 * n when every byte is. A server may cut a path at '#', decode 8-bit
 * bytes or "%u" its own way, and then serve another path than the one
 * the rules admitted. */
static size_t
target_bad_at(const char *t, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (t[k] == '%') {
            if (k + 2 >= n || !is_hex(t[k + 1]) || !is_hex(t[k + 2]))
                return k;
            k += 2;
        } else if (!is_target_char((unsigned char)t[k])) {
            return k;
        }
    }
    return n;
}

/* "METHOD SP origin-form SP HTTP/1.x CRLF"; returns bytes or -1. */
static int
req_line(const char *p, size_t n, struct gw_req_head *h, int *status,
         struct err *e)
{
    size_t i = 0, t, bad;

    while (i < n && i <= 16 && is_tchar((unsigned char)p[i]))
        i++;
    if (i == 0 || i > 16 || i >= n || p[i] != ' ')
        return err_set(e, ERR_SYNTAX, "bad method");
    h->method = p;
    h->method_len = i;
    t = ++i;
    while (i < n && p[i] != ' ' && p[i] != '\r' && p[i] != '\n')
        i++;
    if (i == t || i >= n || p[i] != ' ')
        return err_set(e, ERR_SYNTAX, "bad request target");
    if (p[t] != '/')
        return err_set(e, ERR_SYNTAX, "request target is not a path");
    bad = target_bad_at(p + t, i - t);
    if (bad < i - t)
        return err_set(e, ERR_SYNTAX,
                       "request target: byte 0x%02x at %zu is not allowed "
                       "(RFC 3986)",
                       (unsigned char)p[t + bad], bad);
    h->target = p + t;
    h->target_len = i - t;
    h->path_len = h->target_len;
    for (size_t k = 0; k < h->target_len; k++) {
        if (h->target[k] == '?') {
            h->path_len = k;
            break;
        }
    }
    i++;
    if (n - i < 10 || memcmp(p + i, "HTTP/1.", 7) != 0 ||
        (p[i + 7] != '0' && p[i + 7] != '1') || p[i + 8] != '\r' ||
        p[i + 9] != '\n') {
        if (n - i >= 5 && memcmp(p + i, "HTTP/", 5) == 0)
            *status = 505;
        return err_set(e, ERR_SYNTAX, "bad HTTP version");
    }
    h->minor = p[i + 7] - '0';
    return (int)(i + 10);
}

/* One "name: value CRLF" line at p; returns bytes or -1. */
static int
req_field(const char *p, size_t n, struct gw_field *f, struct err *e)
{
    size_t i = 0, v, end;

    while (i < n && is_tchar((unsigned char)p[i]))
        i++;
    if (i == 0 || i >= n || p[i] != ':')
        return err_set(e, ERR_SYNTAX, "bad header field name");
    f->name = p;
    f->name_len = i;
    i++;
    while (i < n && (p[i] == ' ' || p[i] == '\t'))
        i++;
    v = i;
    while (i < n && is_value_char((unsigned char)p[i]))
        i++;
    if (i + 1 >= n || p[i] != '\r' || p[i + 1] != '\n')
        return err_set(e, ERR_SYNTAX, "bad header field value");
    end = i;
    while (end > v && (p[end - 1] == ' ' || p[end - 1] == '\t'))
        end--;
    f->value = p + v;
    f->value_len = end - v;
    return (int)(i + 2);
}

static int
parse_length(const struct gw_field *f, uint64_t *out, struct err *e)
{
    uint64_t v = 0;

    if (f->value_len == 0 || f->value_len > 18)
        return err_set(e, ERR_SYNTAX, "bad Content-Length");
    for (size_t i = 0; i < f->value_len; i++) {
        if (f->value[i] < '0' || f->value[i] > '9')
            return err_set(e, ERR_SYNTAX, "bad Content-Length");
        v = v * 10 + (uint64_t)(f->value[i] - '0');
    }
    *out = v;
    return 0;
}

/* Framing, persistence and Expect from the fields (RFC 9112 6.3, 9.3). */
static int
req_semantics(struct gw_req_head *h, int *status, struct err *e)
{
    bool have_len = false, have_te = false, close = false, ka = false;

    for (size_t i = 0; i < h->nfields; i++) {
        const struct gw_field *f = &h->fields[i];
        uint64_t len = 0;

        if (gw_field_is(f, "content-length")) {
            if (parse_length(f, &len, e) == -1)
                return -1;
            if (have_len && len != h->length)
                return err_set(e, ERR_SYNTAX, "two Content-Length values");
            have_len = true;
            h->length = len;
        } else if (gw_field_is(f, "transfer-encoding")) {
            if (have_te || f->value_len != 7 ||
                strncasecmp(f->value, "chunked", 7) != 0) {
                *status = 501;
                return err_set(e, ERR_INVALID,
                               "transfer coding other than chunked");
            }
            have_te = true;
        } else if (gw_field_is(f, "connection")) {
            close |= gw_list_has(f->value, f->value_len, "close");
            ka |= gw_list_has(f->value, f->value_len, "keep-alive");
        } else if (gw_field_is(f, "expect")) {
            h->expect_continue = f->value_len == 12 &&
                                 strncasecmp(f->value, "100-continue", 12) == 0;
        }
    }
    if (have_len && have_te)
        return err_set(e, ERR_SYNTAX,
                       "both Content-Length and Transfer-Encoding");
    h->framing = have_te    ? GW_BODY_CHUNKED
                 : have_len ? GW_BODY_LENGTH
                            : GW_BODY_NONE;
    if (h->framing == GW_BODY_LENGTH && h->length == 0)
        h->framing = GW_BODY_NONE;
    h->keep_alive = h->minor == 1 ? !close : (ka && !close);
    return 0;
}

/* A request field name with '_' is refused: servers and the frameworks
 * in front of them fold '_' to '-' (CGI, WSGI, Rack: "X_Api_Key" and
 * "X-Api-Key" are both HTTP_X_API_KEY) or drop the field, so one name
 * would be judged here as one field (not a credential, not an override,
 * not the framing) and read there as another. No vendor API uses '_' in
 * a field name. */
static int
name_has_underscore(const struct gw_field *f, struct err *e)
{
    if (memchr(f->name, '_', f->name_len) == NULL)
        return 0;
    return err_set(e, ERR_INVALID,
                   "header field name \"%.*s%s\" has \"_\": refused, servers "
                   "read it as \"-\"",
                   (int)(f->name_len > 64 ? 64 : f->name_len), f->name,
                   f->name_len > 64 ? "..." : "");
}

int
gw_req_parse(const char *p, size_t n, struct gw_req_head *h, int *status,
             struct err *e)
{
    size_t i;
    int r;

    memset(h, 0, sizeof(*h));
    *status = 400;
    r = req_line(p, n, h, status, e);
    if (r == -1)
        return -1;
    i = (size_t)r;
    while (i + 1 < n && !(p[i] == '\r' && p[i + 1] == '\n')) {
        if (h->nfields == GW_FIELDS_MAX) {
            *status = 431;
            return err_set(e, ERR_LIMIT, "too many header fields");
        }
        r = req_field(p + i, n - i, &h->fields[h->nfields], e);
        if (r == -1)
            return -1;
        if (name_has_underscore(&h->fields[h->nfields], e) == -1)
            return -1;
        h->nfields++;
        i += (size_t)r;
    }
    if (i + 2 != n)
        return err_set(e, ERR_SYNTAX, "head does not end with a blank line");
    return req_semantics(h, status, e);
}

void
gw_body_init(struct gw_body *b, enum gw_framing kind, uint64_t length,
             bool no_trailers)
{
    memset(b, 0, sizeof(*b));
    b->kind = kind;
    b->left = length;
    b->ck = GW_CK_SIZE;
    b->no_trailers = no_trailers;
}

static int
hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static enum gw_feed
chunk_fail(struct gw_body *b, const char *why)
{
    b->why = why;
    return GW_FEED_FAIL;
}

/* One byte of chunk framing (not data) in state b->ck. */
static enum gw_feed
chunk_byte(struct gw_body *b, char c)
{
    int d;

    switch (b->ck) {
    case GW_CK_SIZE:
        d = hex_value(c);
        if (d >= 0) {
            if (++b->digits > 15)
                return chunk_fail(b, "chunk size too large");
            b->left = b->left * 16 + (uint64_t)d;
        } else if (b->digits > 0 && (c == ';' || c == ' ' || c == '\t')) {
            b->ck = GW_CK_EXT;
        } else if (b->digits > 0 && c == '\r') {
            b->ck = GW_CK_SIZE_LF;
        } else {
            return chunk_fail(b, "bad chunk size");
        }
        break;
    case GW_CK_EXT:
    case GW_CK_TRAILER:
        if (++b->meta > GW_CHUNK_META_MAX)
            return chunk_fail(b, "chunk extensions or trailers too long");
        if (c == '\r')
            b->ck = b->ck == GW_CK_EXT ? GW_CK_SIZE_LF : GW_CK_TRAILER_LF;
        else if (c == '\n' || c == '\0')
            return chunk_fail(b, "bad chunk line");
        break;
    case GW_CK_SIZE_LF:
        if (c != '\n')
            return chunk_fail(b, "bad chunk size line");
        b->ck = b->left == 0 ? GW_CK_LINE_START : GW_CK_DATA;
        break;
    case GW_CK_DATA_CR:
        if (c != '\r')
            return chunk_fail(b, "chunk data longer than its size");
        b->ck = GW_CK_DATA_LF;
        break;
    case GW_CK_DATA_LF:
        if (c != '\n')
            return chunk_fail(b, "chunk data longer than its size");
        b->ck = GW_CK_SIZE;
        b->digits = 0;
        b->left = 0;
        break;
    case GW_CK_LINE_START:
        if (c == '\r') {
            b->ck = GW_CK_END_LF;
        } else if (b->no_trailers) {
            return chunk_fail(b, "trailer fields are not accepted");
        } else {
            b->ck = GW_CK_TRAILER;
            return chunk_byte(b, c);
        }
        break;
    case GW_CK_TRAILER_LF:
        if (c != '\n')
            return chunk_fail(b, "bad trailer line");
        b->ck = GW_CK_LINE_START;
        break;
    case GW_CK_END_LF:
        if (c != '\n')
            return chunk_fail(b, "bad end of chunked body");
        b->ck = GW_CK_DONE;
        return GW_FEED_DONE;
    case GW_CK_DATA:
    case GW_CK_DONE:
        break;
    }
    return GW_FEED_MORE;
}

static enum gw_feed
chunked_feed(struct gw_body *b, const char *p, size_t n, size_t *used)
{
    size_t i = 0;

    while (i < n && b->ck != GW_CK_DONE) {
        if (b->ck == GW_CK_DATA) {
            size_t take = n - i < b->left ? n - i : (size_t)b->left;

            if (b->on_data != NULL && take > 0)
                b->on_data(b->data_arg, p + i, take);
            i += take;
            b->left -= take;
            if (b->left == 0)
                b->ck = GW_CK_DATA_CR;
            continue;
        }
        if (chunk_byte(b, p[i++]) == GW_FEED_FAIL) {
            *used = i;
            return GW_FEED_FAIL;
        }
    }
    *used = i;
    return b->ck == GW_CK_DONE ? GW_FEED_DONE : GW_FEED_MORE;
}

static enum gw_feed
body_feed(struct gw_body *b, const char *p, size_t n, size_t *used)
{
    size_t take;

    switch (b->kind) {
    case GW_BODY_NONE:
        *used = 0;
        return GW_FEED_DONE;
    case GW_BODY_EOF:
        *used = n;
        if (b->on_data != NULL && n > 0)
            b->on_data(b->data_arg, p, n);
        return GW_FEED_MORE;
    case GW_BODY_LENGTH:
        take = n < b->left ? n : (size_t)b->left;
        b->left -= take;
        *used = take;
        if (b->on_data != NULL && take > 0)
            b->on_data(b->data_arg, p, take);
        return b->left == 0 ? GW_FEED_DONE : GW_FEED_MORE;
    case GW_BODY_CHUNKED:
        return chunked_feed(b, p, n, used);
    }
    *used = 0;
    return GW_FEED_FAIL;
}

enum gw_feed
gw_body_feed(struct gw_body *b, const char *p, size_t n, size_t *used)
{
    enum gw_feed f = body_feed(b, p, n, used);

    b->fed += *used;
    return f;
}

void
gw_resp_init(struct gw_resp *r, bool head_request)
{
    memset(r, 0, sizeof(*r));
    r->in_head = true;
    r->head_request = head_request;
    buf_init(&r->head, GW_RESP_HEAD_MAX);
}

void
gw_resp_cleanup(struct gw_resp *r)
{
    buf_cleanup(&r->head);
}

/* The head is complete in r->head: status and framing. */
static enum gw_feed
resp_head_done(struct gw_resp *r)
{
    const char *p = r->head.data, *eol = strstr(p, "\r\n");
    bool have_len = false, chunked = false;
    uint64_t len = 0;
    int status = 0;

    if (strncmp(p, "HTTP/1.", 7) != 0 || r->head.len < 12 || p[8] != ' ')
        return r->why = "bad status line", GW_FEED_FAIL;
    for (int i = 9; i < 12; i++) {
        if (p[i] < '0' || p[i] > '9')
            return r->why = "bad status code", GW_FEED_FAIL;
        status = status * 10 + (p[i] - '0');
    }
    r->close = p[7] == '0';
    while (eol != NULL && eol[2] != '\r') {
        struct gw_field f;
        struct err e;
        const char *line = eol + 2;
        int n = req_field(line, r->head.len - (size_t)(line - p), &f, &e);

        if (n == -1)
            return r->why = "bad response header field", GW_FEED_FAIL;
        if (gw_field_is(&f, "content-length")) {
            if (parse_length(&f, &len, &e) == -1)
                return r->why = "bad response Content-Length", GW_FEED_FAIL;
            have_len = true;
        } else if (gw_field_is(&f, "transfer-encoding")) {
            chunked = gw_list_has(f.value, f.value_len, "chunked");
        } else if (gw_field_is(&f, "connection")) {
            r->close |= gw_list_has(f.value, f.value_len, "close");
        } else if (gw_field_is(&f, "content-type")) {
            r->event_stream =
                f.value_len >= 17 &&
                strncasecmp(f.value, "text/event-stream", 17) == 0;
        } else if (gw_field_is(&f, "content-encoding")) {
            r->coded =
                !(f.value_len == 8 && strncasecmp(f.value, "identity", 8) == 0);
        }
        eol = line + n - 2;
    }
    if (status >= 100 && status < 200) {
        if (status == 101)
            return r->why = "vendor switched protocols", GW_FEED_FAIL;
        buf_reset(&r->head); /* an interim answer: the real one follows */
        r->event_stream = r->coded = false;
        return GW_FEED_MORE;
    }
    r->status = status;
    r->in_head = false;
    if (r->head_request || status == 204 || status == 304)
        gw_body_init(&r->body, GW_BODY_NONE, 0, false);
    else if (chunked)
        gw_body_init(&r->body, GW_BODY_CHUNKED, 0, false);
    else if (have_len)
        gw_body_init(&r->body, GW_BODY_LENGTH, len, false);
    else
        gw_body_init(&r->body, GW_BODY_EOF, 0, false);
    if (r->body.kind == GW_BODY_LENGTH && len == 0)
        r->body.kind = GW_BODY_NONE;
    r->body.on_data = r->on_data;
    r->body.data_arg = r->data_arg;
    return GW_FEED_MORE;
}

enum gw_feed
gw_resp_feed(struct gw_resp *r, const char *p, size_t n, size_t *used)
{
    size_t i = 0;

    while (r->in_head && i < n) {
        size_t old = r->head.len, scan, end;

        if (buf_append(&r->head, p + i, 1, NULL) == -1) {
            *used = i;
            return r->why = "response head too large", GW_FEED_FAIL;
        }
        i++;
        scan = old >= 3 ? old - 3 : 0;
        end = gw_head_end(r->head.data + scan, r->head.len - scan);
        if (end != 0 && resp_head_done(r) == GW_FEED_FAIL) {
            *used = i;
            return GW_FEED_FAIL;
        }
    }
    if (r->in_head) {
        *used = i;
        return GW_FEED_MORE;
    }
    {
        size_t body_used = 0;
        enum gw_feed f = gw_body_feed(&r->body, p + i, n - i, &body_used);

        *used = i + body_used;
        if (f == GW_FEED_FAIL)
            r->why = r->body.why;
        return f;
    }
}

bool
gw_resp_eof_ok(const struct gw_resp *r)
{
    return !r->in_head && r->body.kind == GW_BODY_EOF;
}
