/* spec_quantity.h - Kubernetes resource quantities ("512Mi", "1Gi", "100k",
 * "1.5", "500m") as exact integers, with overflow checks.
 *
 * Supported: an unsigned decimal with an optional fraction, then an
 * optional suffix: binary Ki Mi Gi Ti Pi Ei, decimal k M G T P E, or m
 * (thousandths). Signs and exponents (1e3) are not accepted: no field of
 * an AgentInvocation needs them and refusing them keeps values exact.
 */
#ifndef SPEC_QUANTITY_H
#define SPEC_QUANTITY_H

#include <stdint.h>

#include "err.h"

/* Parse s into thousandths of a unit (milli): "1.5" -> 1500, "500m" -> 500,
 * "1Ki" -> 1024000. Fails with ERR_INVALID on bad syntax and ERR_LIMIT when
 * the value does not fit in 64 bits of thousandths. */
int spec_quantity_parse_milli(const char *s, uint64_t *milli, struct err *e);

/* Parse s into whole units, rounding a fraction up as Kubernetes does
 * ("1.5k" -> 1500, "0.5" -> 1). Same errors as above. */
int spec_quantity_parse(const char *s, uint64_t *value, struct err *e);

#endif
