/* gw_head.c - rebuild a request head for the vendor (see gw_head.h). */
#include "gw_head.h"

#include <string.h>
#include <strings.h>

static const char *const dropped[] = {
    /* hop-by-hop (RFC 9110 7.6.1) and what the gateway sets itself */
    "host",
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "upgrade",
    "expect",
    /* credentials: the vendor sees only the gateway's */
    "authorization",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
    "cookie",
    /* a method the rules did not see */
    "x-http-method-override",
    "x-http-method",
    "x-method-override",
    /* another path than the rules saw: front ends that rewrite the URL
     * (IIS, some frameworks) serve these instead of the request line's */
    "x-original-url",
    "x-rewrite-url",
    /* who the client is: the gateway is the vendor's client, and these
     * are what an agent would forge to pass as another (every
     * X-Forwarded-* field is dropped below, like Proxy-*) */
    "forwarded",
    "x-real-ip",
    /* which OpenAI organization and project the operator's key bills:
     * the operator's choice, not the agent's */
    "openai-organization",
    "openai-project",
    NULL,
};

/* Dropped with every name they start (any case). */
static const char *const dropped_prefixes[] = {
    "proxy-",
    "x-forwarded-",
    NULL,
};

bool
gw_head_drops(const struct gw_req_head *h, const char *name, size_t name_len)
{
    struct gw_field f = { .name = name, .name_len = name_len };
    char lower[64];

    for (size_t i = 0; dropped_prefixes[i] != NULL; i++) {
        size_t pl = strlen(dropped_prefixes[i]);

        if (name_len >= pl && strncasecmp(name, dropped_prefixes[i], pl) == 0)
            return true;
    }
    for (size_t i = 0; dropped[i] != NULL; i++)
        if (gw_field_is(&f, dropped[i]))
            return true;
    /* The framing fields stay whatever Connection says: the body is
     * forwarded as framed, and a vendor that saw it unframed would read
     * it as a request of its own (past the rules). */
    if (gw_field_is(&f, "content-length") ||
        gw_field_is(&f, "transfer-encoding"))
        return false;
    if (name_len >= sizeof(lower))
        return false;
    for (size_t i = 0; i < name_len; i++)
        lower[i] =
            (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    lower[name_len] = '\0';
    /* A field the client's Connection names is hop-by-hop too. */
    for (size_t i = 0; i < h->nfields; i++) {
        const struct gw_field *c = &h->fields[i];

        if (gw_field_is(c, "connection") &&
            gw_list_has(c->value, c->value_len, lower))
            return true;
    }
    return false;
}

int
gw_head_build(const struct gw_req_head *h, const char *host,
              const struct gw_cred *cred, bool identity, struct buf *out,
              struct err *e)
{
    if (buf_printf(out, e, "%.*s %.*s HTTP/1.1\r\nHost: %s\r\n",
                   (int)h->method_len, h->method, (int)h->target_len, h->target,
                   host) == -1)
        return -1;
    for (size_t i = 0; i < h->nfields; i++) {
        const struct gw_field *f = &h->fields[i];

        if (gw_head_drops(h, f->name, f->name_len) ||
            (identity && gw_field_is(f, "accept-encoding")))
            continue;
        if (buf_printf(out, e, "%.*s: %.*s\r\n", (int)f->name_len, f->name,
                       (int)f->value_len, f->value) == -1)
            return -1;
    }
    if (identity && buf_puts(out, "Accept-Encoding: identity\r\n", e) == -1)
        return -1;
    if (cred->org != NULL &&
        buf_printf(out, e, "OpenAI-Organization: %s\r\n", cred->org) == -1)
        return -1;
    if (cred->project != NULL &&
        buf_printf(out, e, "OpenAI-Project: %s\r\n", cred->project) == -1)
        return -1;
    switch (cred->kind) {
    case GW_AUTH_API_KEY:
        if (buf_puts(out, "x-api-key: ", e) == -1)
            return -1;
        break;
    case GW_AUTH_BEARER:
        if (buf_puts(out, "Authorization: Bearer ", e) == -1)
            return -1;
        break;
    case GW_AUTH_NONE:
        return buf_puts(out, "\r\n", e);
    }
    if (buf_append(out, cred->key, cred->key_len, e) == -1)
        return -1;
    return buf_puts(out, "\r\n\r\n", e);
}
