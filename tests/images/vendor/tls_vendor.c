/* tls_vendor.c - the TLS test vendor: a stand-in for api.anthropic.com and
 * api.openai.com that the real Claude Code and Codex CLIs talk to in the
 * end-to-end scenarios (tests/integration/vendors/). Test-only.
 *
 *   tls-vendor --cert FILE --key FILE [--port 443]
 *
 * It serves HTTPS/1.1 (the certificate is one the test made with its own
 * CA), one process per connection with keep-alive, and answers
 *   POST .../v1/messages               Anthropic Messages (SSE or JSON)
 *   POST .../v1/messages/count_tokens  a token count
 *   POST .../responses                 OpenAI Responses (SSE or JSON)
 *   anything else                      404
 * following the script in the prompt (tv_reply.h). Every request is
 * recorded as one JSON line on stdout (`docker logs`):
 *   {"method","path","headers":{name: value, secrets "<redacted>"},
 *    "api","model","stream","tools":[offered tool names],"results":N,
 *    "calls":[tool calls asked for],"answer":text,
 *    "secrets":["<name> sha256:<hex of the value>",...]}
 * The secrets list names every secret header as sent (one entry each, so
 * a duplicate shows) with a digest of its value: a test that knows the key
 * can tell which one arrived without the record holding it.
 *
 * With TV_RELEASE_FILE set, a request with the header "tv-hold: 1" gets
 * its answer chunked: the first SSE event, then nothing until that file
 * exists (bounded), then the rest. A test sees the first event arrive
 * while the stream is still open (tests/integration/gateway/).
 *
 * With TV_API_KEY set, a model request without that key gets a 401.
 *
 * "tv-chunk: N" sends the answer chunked in N-byte pieces, "tv-chunk:
 * close" without a length, ended by the close. Each model answer carries
 * usage ("USAGE in out cacheRead cacheWrite" in the prompt, else 10 10 0
 * 0), also in the record: "usage":{"input","output","cacheRead",
 * "cacheWrite"} (OpenAI: cacheRead is the cached part of input).
 */
#include "tv_json.h"
#include "tv_reply.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>

#define TV_MAX_HEAD (64 * 1024)
#define TV_MAX_BODY (32 * 1024 * 1024)

struct tv_req {
    char method[16];
    char path[2048];
    struct tvb head;     /* the raw header lines */
    struct tvb body;
    int keep_alive;
};

/* Header names whose values are secrets: never written to the record. */
static int
is_secret_header(const char *name)
{
    static const char *const words[] = {"authorization", "api-key", "apikey",
                                        "cookie", "token", "secret", NULL};

    for (int i = 0; words[i]; i++)
        if (strcasestr(name, words[i]))
            return 1;
    return 0;
}

/* Bytes from the TLS stream into b until it holds `want` bytes more than
 * `have`, or -1 on EOF/error. */
static int
fill(SSL *ssl, struct tvb *b, size_t want)
{
    char chunk[16384];

    while (b->len < want) {
        int n = SSL_read(ssl, chunk, sizeof(chunk));

        if (n <= 0)
            return -1;
        tvb_add(b, chunk, (size_t)n);
    }
    return 0;
}

/* The value of header `name` in the raw header block (first match), or
 * NULL; copied into out. */
static const char *
header(const struct tv_req *q, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    const char *p = q->head.p;

    while (p && *p) {
        const char *eol = strstr(p, "\r\n");
        size_t n = eol ? (size_t)(eol - p) : strlen(p);

        if (n > nl && !strncasecmp(p, name, nl) && p[nl] == ':') {
            const char *v = p + nl + 1;
            size_t vn = n - nl - 1;

            while (vn && (*v == ' ' || *v == '\t')) {
                v++;
                vn--;
            }
            if (vn >= cap)
                vn = cap - 1;
            memcpy(out, v, vn);
            out[vn] = '\0';
            return out;
        }
        p = eol ? eol + 2 : NULL;
    }
    return NULL;
}

/* A chunked body (RFC 9112 7.1) out of `raw` from offset `at`. */
static int
read_chunked(SSL *ssl, struct tvb *raw, size_t at, struct tvb *body)
{
    for (;;) {
        char *eol;
        unsigned long size;

        while (!(eol = strstr(raw->p + at, "\r\n")))
            if (raw->len - at > 64 || fill(ssl, raw, raw->len + 1) < 0)
                return -1;
        size = strtoul(raw->p + at, NULL, 16);
        at = (size_t)(eol + 2 - raw->p);
        if (body->len + size > TV_MAX_BODY ||
            fill(ssl, raw, at + size + 2) < 0)
            return -1;
        if (size == 0)
            return 0; /* no trailers from these clients */
        tvb_add(body, raw->p + at, size);
        at += size + 2;
    }
}

/* One request off the connection; -1 when the peer closed or sent junk.
 * `raw` carries bytes read past the previous request. */
static int
read_request(SSL *ssl, struct tvb *raw, struct tv_req *q)
{
    char *end, val[64], version[16];
    size_t head_len;

    while (!raw->p || !(end = strstr(raw->p, "\r\n\r\n"))) {
        if (raw->len > TV_MAX_HEAD || fill(ssl, raw, raw->len + 1) < 0)
            return -1;
    }
    head_len = (size_t)(end + 4 - raw->p);
    if (sscanf(raw->p, "%15s %2047s %15s", q->method, q->path, version) != 3)
        return -1;
    tvb_add(&q->head, raw->p, head_len - 2);
    q->keep_alive = !(header(q, "Connection", val, sizeof(val)) &&
                      !strcasecmp(val, "close"));
    if (header(q, "Transfer-Encoding", val, sizeof(val)) &&
        strcasestr(val, "chunked")) {
        if (read_chunked(ssl, raw, head_len, &q->body) < 0)
            return -1;
        q->keep_alive = 0; /* the consumed length is not tracked: close */
        raw->len = 0;
        raw->p[0] = '\0';
        return 0;
    }
    size_t clen = header(q, "Content-Length", val, sizeof(val))
                      ? strtoul(val, NULL, 10) : 0;
    if (clen > TV_MAX_BODY || fill(ssl, raw, head_len + clen) < 0)
        return -1;
    tvb_add(&q->body, raw->p + head_len, clen);
    memmove(raw->p, raw->p + head_len + clen, raw->len - head_len - clen);
    raw->len -= head_len + clen;
    raw->p[raw->len] = '\0';
    return 0;
}

/* The request's headers as a JSON object, secrets redacted. */
static void
record_headers(const struct tv_req *q, struct tvb *rec)
{
    const char *p = strstr(q->head.p, "\r\n");
    int first = 1;

    tvb_puts(rec, ",\"headers\":{");
    while (p && p[2]) {
        const char *line = p + 2, *colon, *eol = strstr(line, "\r\n");
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        char name[128], value[1024];

        p = eol;
        colon = memchr(line, ':', n);
        if (!colon || (size_t)(colon - line) >= sizeof(name))
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)(colon - line), line);
        for (char *c = name; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
        snprintf(value, sizeof(value), "%.*s",
                 (int)(n - (size_t)(colon + 1 - line)), colon + 1);
        tvb_puts(rec, first ? "" : ",");
        first = 0;
        tvb_json_str(rec, name);
        tvb_puts(rec, ":");
        tvb_json_str(rec, is_secret_header(name) ? "<redacted>"
                          : value + strspn(value, " \t"));
    }
    tvb_puts(rec, "}");
}

/* ,"secrets":[...]: each secret header with a SHA-256 of its value. */
static void
record_secrets(const struct tv_req *q, struct tvb *rec)
{
    const char *p = strstr(q->head.p, "\r\n");
    int first = 1;

    tvb_puts(rec, ",\"secrets\":[");
    while (p && p[2]) {
        const char *line = p + 2, *colon, *eol = strstr(line, "\r\n");
        size_t n = eol ? (size_t)(eol - line) : strlen(line), vn;
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned mdn = 0;
        char name[128], entry[128 + 80];
        const char *v;

        p = eol;
        colon = memchr(line, ':', n);
        if (!colon || (size_t)(colon - line) >= sizeof(name))
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)(colon - line), line);
        for (char *c = name; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
        if (!is_secret_header(name))
            continue;
        v = colon + 1;
        vn = n - (size_t)(v - line);
        while (vn && (*v == ' ' || *v == '\t')) {
            v++;
            vn--;
        }
        while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
            vn--;
        EVP_Digest(v, vn, md, &mdn, EVP_sha256(), NULL);
        int k = snprintf(entry, sizeof(entry), "%s sha256:", name);
        for (unsigned i = 0; i < mdn && k + 3 < (int)sizeof(entry); i++)
            k += snprintf(entry + k, sizeof(entry) - (size_t)k, "%02x", md[i]);
        tvb_puts(rec, first ? "" : ",");
        first = 0;
        tvb_json_str(rec, entry);
    }
    tvb_puts(rec, "]");
}

/* "tv-hold: 1" with TV_RELEASE_FILE set: the answer as a chunked
 * stream, held after its first SSE event until the file exists (at most
 * two minutes). Returns 0 when sent. */
static int
send_held(SSL *ssl, const struct tv_req *q, const struct tv_reply *r)
{
    const char *rel = getenv("TV_RELEASE_FILE");
    const char *body = r->body.p ? r->body.p : "";
    const char *cut = strstr(body, "\n\n");
    size_t first = cut ? (size_t)(cut + 2 - body) : r->body.len;
    struct tvb out = {0};
    int ok;

    tvb_printf(&out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
                     "Transfer-Encoding: chunked\r\nConnection: %s\r\n\r\n"
                     "%zx\r\n",
               r->status, r->status == 200 ? "OK" : "Error", r->type,
               q->keep_alive ? "keep-alive" : "close", first);
    tvb_add(&out, body, first);
    tvb_puts(&out, "\r\n");
    ok = SSL_write(ssl, out.p, (int)out.len) == (int)out.len;
    for (int i = 0; ok && i < 1200 && access(rel, F_OK) != 0; i++)
        usleep(100 * 1000);
    out.len = 0;
    if (r->body.len > first) {
        tvb_printf(&out, "%zx\r\n", r->body.len - first);
        tvb_add(&out, body + first, r->body.len - first);
        tvb_puts(&out, "\r\n");
    }
    tvb_puts(&out, "0\r\n\r\n");
    ok = ok && SSL_write(ssl, out.p, (int)out.len) == (int)out.len;
    tvb_free(&out);
    return ok ? 0 : -1;
}

/* "tv-chunk: N": the answer chunked in pieces of N bytes; "tv-chunk:
 * close": no length, the end is the close. The gateway's usage reader
 * must read every framing (tests/integration/gateway/). */
static int
send_framed(SSL *ssl, const struct tv_req *q, const struct tv_reply *r,
            const char *how)
{
    const char *body = r->body.p ? r->body.p : "";
    long size = strtol(how, NULL, 10);
    int close_ = !strcmp(how, "close");
    struct tvb out = {0};
    int ok;

    tvb_printf(&out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n%s"
                     "Connection: %s\r\n\r\n",
               r->status, r->status == 200 ? "OK" : "Error", r->type,
               close_ ? "" : "Transfer-Encoding: chunked\r\n",
               close_ || !q->keep_alive ? "close" : "keep-alive");
    if (close_) {
        tvb_add(&out, body, r->body.len);
    } else {
        if (size < 1)
            size = 1;
        for (size_t off = 0; off < r->body.len; off += (size_t)size) {
            size_t k = r->body.len - off < (size_t)size ? r->body.len - off
                                                        : (size_t)size;

            tvb_printf(&out, "%zx\r\n", k);
            tvb_add(&out, body + off, k);
            tvb_puts(&out, "\r\n");
        }
        tvb_puts(&out, "0\r\n\r\n");
    }
    ok = SSL_write(ssl, out.p, (int)out.len) == (int)out.len;
    tvb_free(&out);
    return ok ? 0 : -1;
}

static int
ends_with(const char *path, const char *suffix)
{
    char clean[2048];
    size_t n, sn = strlen(suffix);

    snprintf(clean, sizeof(clean), "%s", path);
    clean[strcspn(clean, "?")] = '\0';
    n = strlen(clean);
    return n >= sn && !strcmp(clean + n - sn, suffix);
}

/* With TV_DUMP_DIR set, each request body also goes to a file there
 * (<pid>-<n>.json): for finding out what a new CLI version sends. */
static void
dump_body(const struct tv_req *q)
{
    static int n;
    const char *dir = getenv("TV_DUMP_DIR");
    char path[512];
    FILE *f;

    if (!dir || !q->body.len)
        return;
    snprintf(path, sizeof(path), "%s/%d-%d.json", dir, (int)getpid(), ++n);
    if ((f = fopen(path, "w"))) {
        fwrite(q->body.p, 1, q->body.len, f);
        fclose(f);
    }
}

/* With TV_API_KEY set, a model request must carry that key (x-api-key,
 * or in authorization): anything else gets a 401, as the real APIs answer
 * a wrong key (agentctl check vendor's test). */
static int
key_refused(const struct tv_req *q)
{
    const char *want = getenv("TV_API_KEY");
    char v[1024];

    if (want == NULL || want[0] == '\0' || strcmp(q->method, "POST") != 0)
        return 0;
    if (header(q, "x-api-key", v, sizeof(v)) && !strcmp(v, want))
        return 0;
    if (header(q, "authorization", v, sizeof(v)) && strstr(v, want))
        return 0;
    return 1;
}

/* Route one request, send the answer, write its record. */
static int
serve(SSL *ssl, struct tv_req *q)
{
    struct tv_reply r = {0};
    struct tvj *body = NULL;
    struct tvb out = {0}, rec = {0};
    char hold[8], chunk[16];
    int ok;

    if (!strcmp(q->method, "POST"))
        body = tvj_parse(q->body.p ? q->body.p : "", q->body.len);
    dump_body(q);
    if (key_refused(q)) {
        r.status = 401;
        r.type = "application/json";
        tvb_puts(&r.body, "{\"type\":\"error\",\"error\":{\"type\":"
                          "\"authentication_error\",\"message\":"
                          "\"invalid x-api-key\"}}");
        tvb_puts(&r.record, ",\"api\":\"refused-key\"");
    } else if (!strcmp(q->method, "POST") && ends_with(q->path, "/messages/count_tokens")) {
        r.status = 200;
        r.type = "application/json";
        tvb_puts(&r.body, "{\"input_tokens\":10}");
        tvb_puts(&r.record, ",\"api\":\"anthropic-count\"");
    } else if (!strcmp(q->method, "POST") && ends_with(q->path, "/messages")) {
        tv_reply_anthropic(body, &r);
    } else if (!strcmp(q->method, "POST") && ends_with(q->path, "/responses")) {
        tv_reply_openai(body, &r);
    } else {
        r.status = 404;
        r.type = "application/json";
        tvb_puts(&r.body, "{\"error\":{\"type\":\"not_found_error\","
                          "\"message\":\"not served by the test vendor\"}}");
        tvb_puts(&r.record, ",\"api\":\"none\"");
    }
    if (getenv("TV_RELEASE_FILE") &&
        header(q, "tv-hold", hold, sizeof(hold)) && !strcmp(hold, "1")) {
        ok = send_held(ssl, q, &r) == 0;
    } else if (header(q, "tv-chunk", chunk, sizeof(chunk))) {
        ok = send_framed(ssl, q, &r, chunk) == 0;
        if (!strcmp(chunk, "close"))
            ok = 0; /* the close ends the answer */
    } else {
        tvb_printf(&out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
                         "Content-Length: %zu\r\nrequest-id: req_vendor\r\n"
                         "x-request-id: req_vendor\r\nConnection: %s\r\n\r\n",
                   r.status, r.status == 200 ? "OK" : "Error", r.type,
                   r.body.len, q->keep_alive ? "keep-alive" : "close");
        tvb_add(&out, r.body.p ? r.body.p : "", r.body.len);
        ok = SSL_write(ssl, out.p, (int)out.len) == (int)out.len;
    }

    tvb_puts(&rec, "{\"method\":");
    tvb_json_str(&rec, q->method);
    tvb_puts(&rec, ",\"path\":");
    tvb_json_str(&rec, q->path);
    record_headers(q, &rec);
    record_secrets(q, &rec);
    tvb_printf(&rec, ",\"status\":%d,\"bodyBytes\":%zu", r.status, q->body.len);
    tvb_add(&rec, r.record.p ? r.record.p : "", r.record.len);
    tvb_puts(&rec, "}\n");
    if (write(STDOUT_FILENO, rec.p, rec.len) < 0)
        perror("tls-vendor: record");
    tvj_free(body);
    tv_reply_free(&r);
    tvb_free(&out);
    tvb_free(&rec);
    return ok ? 0 : -1;
}

/* One connection, in its own process: requests until the peer closes. */
static void
connection(SSL_CTX *ctx, int fd)
{
    SSL *ssl = SSL_new(ctx);
    struct tvb raw = {0};

    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) != 1) {
        fprintf(stderr, "tls-vendor: handshake failed: %s\n",
                ERR_reason_error_string(ERR_get_error()));
        _exit(0);
    }
    for (;;) {
        struct tv_req q = {0};
        int again = read_request(ssl, &raw, &q) == 0 && serve(ssl, &q) == 0 &&
                    q.keep_alive;

        tvb_free(&q.head);
        tvb_free(&q.body);
        if (!again)
            break;
    }
    SSL_shutdown(ssl);
    _exit(0);
}

int
main(int argc, char **argv)
{
    const char *cert = NULL, *key = NULL;
    int port = 443, one = 1, lfd;
    struct sockaddr_in sa = {.sin_family = AF_INET};
    SSL_CTX *ctx;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--cert"))
            cert = argv[i + 1];
        else if (!strcmp(argv[i], "--key"))
            key = argv[i + 1];
        else if (!strcmp(argv[i], "--port"))
            port = atoi(argv[i + 1]);
    }
    if (!cert || !key || port <= 0 || port > 65535) {
        fprintf(stderr, "usage: tls-vendor --cert FILE --key FILE [--port N]\n");
        return 2;
    }
    ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx || SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
        fprintf(stderr, "tls-vendor: cannot load %s / %s: %s\n", cert, key,
                ERR_reason_error_string(ERR_get_error()));
        return 1;
    }
    signal(SIGCHLD, SIG_IGN); /* children are reaped by the kernel */
    signal(SIGPIPE, SIG_IGN);
    sa.sin_port = htons((unsigned short)port);
    lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one,
                              sizeof(one)) < 0 ||
        bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(lfd, 64) < 0) {
        perror("tls-vendor: listen");
        return 1;
    }
    fprintf(stderr, "tls-vendor: listening on %d\n", port);
    for (;;) {
        int fd = accept(lfd, NULL, NULL);

        if (fd < 0) {
            if (errno != EINTR)
                perror("tls-vendor: accept");
            continue;
        }
        if (fork() == 0) {
            close(lfd);
            connection(ctx, fd);
        }
        close(fd);
    }
}
