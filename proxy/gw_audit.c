/* gw_audit.c - refusal answers and audit lines (see gw_audit.h). */
#include "gw_audit.h"

#include <stdio.h>
#include <string.h>

#include "log.h"
#include "px_answer.h"

/* s as the inside of an RFC 8941 sf-string (Proxy-Status details):
 * printable ASCII only, '"' and '\\' escaped, any other byte '?'. */
static void
sf_escape(char *out, size_t size, const char *s)
{
    size_t n = 0;

    for (; s != NULL && *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        size_t k = c == '"' || c == '\\' ? 2 : 1;

        if (n + k >= size)
            break;
        if (k == 2)
            out[n++] = '\\';
        out[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    out[n] = '\0';
}

size_t
gw_answer_format(char *buf, size_t size, const struct gw_denial *d)
{
    char body[256], details[160], sf[160];
    int bn, n;

    log_json_escape(details, sizeof(details), d->details);
    sf_escape(sf, sizeof(sf), d->details);
    bn = snprintf(body, sizeof(body),
                  "{\"type\":\"error\",\"error\":{\"type\":\"%s\","
                  "\"message\":\"" GW_PROXY_NAME ": %s\"}}",
                  d->error, details);
    if (bn < 0 || (size_t)bn >= sizeof(body))
        return 0;
    n = snprintf(buf, size,
                 "HTTP/1.1 %d %s\r\nProxy-Status: " GW_PROXY_NAME
                 "; error=%s; details=\"%s\"\r\n"
                 "Content-Type: application/json\r\nContent-Length: %d\r\n"
                 "Connection: close\r\n\r\n%s",
                 d->status, px_answer_reason(d->status), d->error, sf, bn,
                 body);
    return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}

/* ',"usage":{...}' (OpenAI's cached input is its cacheRead and stays
 * in its input), ',"usage":null', or nothing. */
static void
usage_format(char *out, size_t size, const struct gw_audit *a)
{
    const struct gw_tokens *t = a->usage;

    out[0] = '\0';
    if (!a->has_usage)
        return;
    if (t == NULL) {
        snprintf(out, size, ",\"usage\":null");
        return;
    }
    snprintf(out, size,
             ",\"usage\":{\"input\":%llu,\"output\":%llu,\"cacheRead\":%llu,"
             "\"cacheWrite\":%llu}",
             (unsigned long long)t->input, (unsigned long long)t->output,
             (unsigned long long)t->cache_read,
             (unsigned long long)t->cache_write);
}

size_t
gw_audit_format(char *buf, size_t size, const struct gw_audit *a)
{
    char time[64], client[128], method[64], path[600], reason[200];
    char usage[160];
    int n;

    log_json_escape(time, sizeof(time), a->time);
    log_json_escape(client, sizeof(client), a->client);
    log_json_escape(method, sizeof(method), a->method);
    log_json_escape(path, sizeof(path), a->path);
    log_json_escape(reason, sizeof(reason), a->reason);
    usage_format(usage, sizeof(usage), a);
    n = snprintf(buf, size,
                 "{\"time\":\"%s\",\"msg\":\"request\",\"client\":\"%s\","
                 "\"method\":\"%s\",\"path\":\"%s\",\"status\":%d,"
                 "\"bytes_up\":%llu,\"bytes_down\":%llu,\"duration_ms\":%lld,"
                 "\"requests_left\":%lld,\"bytes_left\":%lld,"
                 "\"tokens_left\":%lld%s,\"reason\":\"%s\"}\n",
                 time, client, method, path, a->status,
                 (unsigned long long)a->bytes_up,
                 (unsigned long long)a->bytes_down, (long long)a->duration_ms,
                 (long long)a->requests_left, (long long)a->bytes_left,
                 (long long)a->tokens_left, usage, reason);
    return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}
