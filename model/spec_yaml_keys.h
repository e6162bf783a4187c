/* spec_yaml_keys.h - the duplicate-key check of one mapping, for the YAML
 * front end (spec_yaml.c) only. */
#ifndef SPEC_YAML_KEYS_H
#define SPEC_YAML_KEYS_H

#include <stddef.h>

#include "spec_node.h"

/* Look for a key that occurs twice in the mapping m. When several do,
 * pick the repeat that comes first in the file, which is the one a reader
 * scanning top-down would trip on. Returns 1 and sets *dup (index of that
 * repeat in m->pairs) and *first (index of the key's first occurrence), 0
 * when every key is unique, -1 when out of memory. O(n log n) in the
 * number of keys, whatever the keys are. */
int spec_yaml_find_duplicate_key(const struct spec_node *m, size_t *dup,
                                 size_t *first);

#endif
