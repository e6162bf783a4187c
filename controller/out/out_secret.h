/* out_secret.h - the attempt's credential in memory (out_secret.c). */
#ifndef OUT_SECRET_H
#define OUT_SECRET_H

#include "ctl.h"

/* The credential the captured spec names (inv->credential), read from
 * the config's secretsDir when this process does not hold it yet (a
 * restart, in any phase: the redaction of the output and of the egress
 * audit needs it as much after the attempt as during it). Borrowed while
 * inv holds it. NULL with e->code ERR_NOTFOUND when the attempt has no
 * credential (or no captured spec), NULL with another code when it has
 * one that cannot be read. Never written to the status or a log. */
const char *out_inv_secret(struct ctl_inv *inv, struct err *e);

#endif
