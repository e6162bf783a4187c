/* gw_audit.h - the gateway's words: its own answers (a refusal with an RFC
 * 9209 Proxy-Status field) and the audit line it writes per request.
 *
 * Pure code. The audit line is one JSON object on one line with the time,
 * client, method, path (without the query: a query may carry a secret),
 * status, bytes each way, duration and what is left of the budget; never
 * a header or a body. Whatever bytes a field holds, the line is strict
 * UTF-8 JSON: '"', '\\' and controls are escaped, well-formed UTF-8 is
 * kept, every other byte becomes U+FFFD ("\ufffd"), and a field cut to
 * fit is cut between characters. Proxy-Status details are an RFC 8941
 * string: printable ASCII, any other byte '?'.
 */
#ifndef GW_AUDIT_H
#define GW_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_usage.h"

/* The name the gateway gives itself in Proxy-Status. */
#define GW_PROXY_NAME "agentctl-gateway"
/* The largest answer gw_answer_format() writes. */
#define GW_ANSWER_MAX 768
/* The largest audit line gw_audit_format() writes. */
#define GW_AUDIT_MAX 1536

/* One refusal: status, RFC 9209 error type, human details. */
struct gw_denial {
    int status;          /* 400, 403, 429, 431, 502, 504, ... */
    const char *error;   /* "http_request_denied", "tls_certificate_error" */
    const char *details; /* short text without quotes or backslashes */
};

/* Write the answer for d: status line, Proxy-Status, a JSON error body
 * in the vendors' shape ({"type":"error","error":{...}}), Content-Length,
 * and "Connection: close". Returns its length, 0 when size is too small. */
size_t gw_answer_format(char *buf, size_t size, const struct gw_denial *d);

struct gw_audit {
    const char *time;   /* RFC 3339 */
    const char *client; /* "ip:port" */
    const char *method; /* may be "" (no request line yet) */
    const char *path;   /* before '?'; may be "" */
    int status;         /* answered status, 0 when none */
    uint64_t bytes_up, bytes_down;
    int64_t duration_ms;
    int64_t requests_left, bytes_left, tokens_left; /* -1: unlimited */
    /* a model endpoint's answer: "usage":{...} with usage, or
     * "usage":null when the vendor's count could not be read */
    bool has_usage;
    const struct gw_tokens *usage; /* NULL: unknown */
    const char *reason;            /* "forwarded", a refusal's details, ... */
};

/* Write the audit line (with its newline). Returns its length; fields
 * are escaped and truncated to fit. */
size_t gw_audit_format(char *buf, size_t size, const struct gw_audit *a);

#endif
