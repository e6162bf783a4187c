/* gw_head.h - the request head the gateway sends to the vendor.
 *
 * Pure code. The client's head is rebuilt, not patched: the request line
 * (always HTTP/1.1), "Host: <vendor>", every field that is neither
 * hop-by-hop nor a credential, then the gateway's own credential field.
 * Dropped (any case): Host (replaced), Connection and every field it
 * names (except Content-Length and Transfer-Encoding: the body is
 * forwarded as framed, so its framing must reach the vendor), Keep-Alive, TE,
 * Trailer, Upgrade, Expect (the gateway answers 100-continue itself), every
 * Proxy-* field, and the credential fields Authorization, X-Api-Key, Api-Key,
 * X-Goog-Api-Key, Cookie, and the method overrides (X-HTTP-Method-Override,
 * X-HTTP-Method, X-Method-Override: the rules judge the request line's method):
 * whatever the agent sends there (a placeholder, another account's key) never
 * reaches the vendor. Also dropped: the URL rewrites X-Original-URL and
 * X-Rewrite-URL (the rules judge the request line's path), Forwarded,
 * X-Real-IP and every X-Forwarded-* field (the agent does not say who the
 * client is), and OpenAI-Organization and OpenAI-Project (the agent does
 * not pick which organization or project the operator's key bills; the
 * operator's own are sent instead when set: struct gw_cred).
 */
#ifndef GW_HEAD_H
#define GW_HEAD_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "err.h"
#include "gw_http.h"

enum gw_auth {
    GW_AUTH_NONE,    /* no credential is added (--no-credential) */
    GW_AUTH_API_KEY, /* "x-api-key: KEY" (Anthropic) */
    GW_AUTH_BEARER,  /* "Authorization: Bearer KEY" (OpenAI) */
};

/* What the gateway adds for the operator: the credential, and OpenAI's
 * organization and project when the operator set them (the agent's own
 * OpenAI-Organization and OpenAI-Project are dropped either way). */
struct gw_cred {
    enum gw_auth kind;
    const char *key; /* borrowed; no CR, LF or NUL */
    size_t key_len;
    const char *org;     /* OpenAI-Organization, or NULL; http_header_id_check */
    const char *project; /* OpenAI-Project, or NULL; http_header_id_check */
};

/* True when the gateway drops the field named name (see above); h gives
 * the Connection field's list. */
bool gw_head_drops(const struct gw_req_head *h, const char *name,
                   size_t name_len);

/* Append the vendor's head for h to out: host is the Host value. The
 * credential's bytes end up in out: the caller wipes out after use. With
 * identity (a model endpoint, whose response the gateway reads for its
 * usage, gw_usage.h), the client's Accept-Encoding is dropped and
 * "Accept-Encoding: identity" sent: a compressed answer could not be
 * read, and a request without the field accepts any coding (RFC 9110
 * 12.5.3). */
int gw_head_build(const struct gw_req_head *h, const char *host,
                  const struct gw_cred *cred, bool identity, struct buf *out,
                  struct err *e);

#endif
