/* probe_http.c - the HTTP answers the boundary probe reads: the status
 * line of a reply head, and the gateway check (a request outside every
 * rule sent to the invocation's credential gateway, proxy/gw_*.c and
 * docs/gateway.md, and what its answer means). Apart from probe.c, which
 * holds main(), so the loopback unit test judges real exchanges. */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The gateway's name in its Proxy-Status header (GW_PROXY_NAME of
 * proxy/gw_audit.h; the probe is a standalone program and does not
 * include the gateway's headers). */
#define PROBE_GATEWAY_NAME "agentctl-gateway"

int
probe_status_code(const char *head)
{
    if (strncmp(head, "HTTP/1.", 7) != 0 || head[7] == '\0' || head[8] != ' ' ||
        head[9] < '1' || head[9] > '5' || head[10] < '0' || head[10] > '9' ||
        head[11] < '0' || head[11] > '9')
        return -1;
    return (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0');
}

int
probe_gateway_request(const char *gateway_arg, unsigned char *req, size_t cap)
{
    int n = snprintf((char *)req, cap,
                     "GET " PROBE_GATEWAY_PATH " HTTP/1.1\r\nHost: %s\r\n"
                     "Connection: close\r\n\r\n",
                     gateway_arg);

    return n < 0 || (size_t)n >= cap ? -1 : n;
}

/* One header line (without its line end): a Proxy-Status field whose
 * first proxy name is exactly the gateway's. The field name is
 * case-insensitive (RFC 9110), the name a token, so the byte after it
 * must end it. */
static bool
probe_line_signed(const char *line, size_t len)
{
    static const char field[] = "Proxy-Status:";
    size_t i = sizeof(field) - 1, n = sizeof(PROBE_GATEWAY_NAME) - 1;

    if (len < i || strncasecmp(line, field, i) != 0)
        return false;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (len - i < n || strncmp(line + i, PROBE_GATEWAY_NAME, n) != 0)
        return false;
    return i + n == len || strchr(";, \t", line[i + n]) != NULL;
}

/* Whether the head (NUL-terminated, status line first) carries the
 * gateway's Proxy-Status. Only the header block counts: it ends at the
 * first empty line, and whatever follows is body. */
static bool
probe_head_signed(const char *head)
{
    const char *line = strchr(head, '\n');

    while (line != NULL) {
        const char *end = strchr(++line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);

        if (len > 0 && line[len - 1] == '\r')
            len--;
        if (len == 0)
            return false;
        if (probe_line_signed(line, len))
            return true;
        line = end;
    }
    return false;
}

/* The exchange ended without a reply head: why, into c. Silence is
 * undecided (never read as the gateway's refusal); any other error means
 * nothing serves on the gateway's address. */
static void
probe_gateway_no_reply(int err, long waited_ms, struct probe_check *c)
{
    c->fail = PROBE_FAIL_BROKEN;
    if (err == ETIMEDOUT) {
        c->fail = PROBE_FAIL_UNDECIDED;
        snprintf(c->detail, sizeof(c->detail), "no answer in %ld ms",
                 waited_ms);
    } else if (err == ECONNREFUSED) {
        snprintf(c->detail, sizeof(c->detail), "refused");
    } else if (err == ECONNRESET) {
        snprintf(c->detail, sizeof(c->detail), "reset");
    } else if (err == EPIPE) {
        snprintf(c->detail, sizeof(c->detail), "closed before the request");
    } else {
        snprintf(c->detail, sizeof(c->detail), "%s", strerror(err));
    }
}

void
probe_gateway_judge(const struct probe_io *io, long waited_ms,
                    struct probe_check *c)
{
    int err = io->done ? io->err : ETIMEDOUT;
    int code;

    c->ok = false;
    if (err != 0) {
        probe_gateway_no_reply(err, waited_ms, c);
        return;
    }
    c->fail = PROBE_FAIL_BROKEN;
    if (io->reply_len == 0) {
        snprintf(c->detail, sizeof(c->detail), "closed without an answer");
        return;
    }
    code = probe_status_code((const char *)io->reply);
    if (code == -1) {
        snprintf(c->detail, sizeof(c->detail), "not an HTTP answer");
        return;
    }
    if (code == 403 && probe_head_signed((const char *)io->reply)) {
        c->ok = true;
        snprintf(c->detail, sizeof(c->detail), "403");
        return;
    }
    /* A real answer that is not the gateway's refusal: whatever answers
     * on its address does not enforce the rules (a 200 forwarded the
     * request; a bare 403 is some other server). */
    c->fail = PROBE_FAIL_BREACH;
    if (code == 403)
        snprintf(c->detail, sizeof(c->detail),
                 "403 without Proxy-Status " PROBE_GATEWAY_NAME);
    else
        snprintf(c->detail, sizeof(c->detail), "%d", code);
}
