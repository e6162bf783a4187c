/* fuzz_gw_script.h - what fuzz_gw_conn's script needs besides bytes: whole
 * requests and answers of the shapes the CLIs and the vendors send (a
 * mutated byte rarely makes a valid one), and the vendor-side checks of a
 * forwarded request. */
#ifndef FUZZ_GW_SCRIPT_H
#define FUZZ_GW_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#include "gw_body.h"
#include "gw_head.h"
#include "gw_http.h"

/* Canned request i (any i; taken modulo the table), *n its length. */
const char *gw_script_request(unsigned i, size_t *n);

/* Canned vendor answer i (any i), *n its length. */
const char *gw_script_answer(unsigned i, size_t *n);

/* The credential fields of a forwarded head (x-api-key, authorization
 * and the others gw_head.h drops): how many there are, or 0 when one of
 * them is not the gateway's own (auth and key). */
size_t gw_script_cred_count(const struct gw_req_head *h, enum gw_auth auth,
                            const char *key);

/* True when the body policy refuses the body (its bytes as forwarded). */
bool gw_script_body_refused(const struct gw_body_policy *p, const char *body,
                            size_t n);

#endif
