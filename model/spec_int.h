/* spec_int.h - helpers shared inside specs/ only. */
#ifndef SPEC_INT_H
#define SPEC_INT_H

#include "spec.h"
#include "spec_schema.h"

/* Take labels and annotations out of doc's metadata (the CRD cannot
 * describe them), drop server-managed fields, and check both maps with
 * the API server's ObjectMeta rules. Each out-node is NULL when absent and
 * otherwise owned by the caller. */
void spec_meta_split(const char *file, struct spec_node *doc,
                     struct spec_node **labels, struct spec_node **annotations,
                     struct spec_errors *es);

#endif
