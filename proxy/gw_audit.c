/* gw_audit.c - refusal answers and audit lines (see gw_audit.h). */
#include "gw_audit.h"

#include <stdio.h>
#include <string.h>

#include "px_answer.h"

/* Bytes of the well-formed UTF-8 sequence at s (RFC 3629: shortest form,
 * no surrogates, at most U+10FFFF), or 0 when s does not start one. */
static size_t
utf8_len(const unsigned char *s)
{
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4;
    else
        return 0; /* a continuation byte, 0xc0, 0xc1 or 0xf5-0xff */
    if (s[0] == 0xe0)
        lo = 0xa0; /* overlong */
    else if (s[0] == 0xed)
        hi = 0x9f; /* UTF-16 surrogates */
    else if (s[0] == 0xf0)
        lo = 0x90; /* overlong */
    else if (s[0] == 0xf4)
        hi = 0x8f; /* past U+10FFFF */
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

/* s as the inside of a JSON string, NUL-terminated in out: '"', '\\' and
 * controls escaped, well-formed UTF-8 kept, every byte of anything else
 * made U+FFFD ("\ufffd"). Cut at a character, never inside one or an
 * escape. Returns the length. The line is strict UTF-8 JSON whatever
 * bytes a field holds. */
static size_t
audit_escape(char *out, size_t size, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 0;

    if (size == 0)
        return 0;
    while (p != NULL && *p != '\0') {
        char tmp[8];
        size_t k = utf8_len(p);
        const char *src = tmp;

        if (k == 0) {
            memcpy(tmp, "\\ufffd", 6);
            k = 6;
            p++;
        } else if (*p == '"' || *p == '\\') {
            tmp[0] = '\\';
            tmp[1] = (char)*p++;
            k = 2;
        } else if (*p == '\n') {
            memcpy(tmp, "\\n", 2);
            k = 2;
            p++;
        } else if (*p < 0x20 || *p == 0x7f) {
            snprintf(tmp, sizeof(tmp), "\\u%04x", *p++);
            k = 6;
        } else {
            src = (const char *)p;
            p += k;
        }
        if (n + k >= size)
            break;
        memcpy(out + n, src, k);
        n += k;
    }
    out[n] = '\0';
    return n;
}

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

    audit_escape(details, sizeof(details), d->details);
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

size_t
gw_audit_format(char *buf, size_t size, const struct gw_audit *a)
{
    char time[64], client[128], method[64], path[600], reason[200];
    int n;

    audit_escape(time, sizeof(time), a->time);
    audit_escape(client, sizeof(client), a->client);
    audit_escape(method, sizeof(method), a->method);
    audit_escape(path, sizeof(path), a->path);
    audit_escape(reason, sizeof(reason), a->reason);
    n = snprintf(buf, size,
                 "{\"time\":\"%s\",\"msg\":\"request\",\"client\":\"%s\","
                 "\"method\":\"%s\",\"path\":\"%s\",\"status\":%d,"
                 "\"bytes_up\":%llu,\"bytes_down\":%llu,\"duration_ms\":%lld,"
                 "\"requests_left\":%lld,\"bytes_left\":%lld,"
                 "\"reason\":\"%s\"}\n",
                 time, client, method, path, a->status,
                 (unsigned long long)a->bytes_up,
                 (unsigned long long)a->bytes_down, (long long)a->duration_ms,
                 (long long)a->requests_left, (long long)a->bytes_left, reason);
    return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}
