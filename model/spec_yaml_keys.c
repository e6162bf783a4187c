/* spec_yaml_keys.c - duplicate keys of one mapping in O(n log n).
 *
 * Comparing each new key with every earlier one is n^2: a hostile 10,000
 * key mapping cost 50 million string compares per document. A hash set
 * would be linear on average, but a file can choose keys that collide;
 * sorting (key, position) pairs has the same bound for every input. Small
 * mappings, which are all a real spec holds, keep the pairwise scan: it
 * allocates nothing and is faster below a few dozen keys. */
#include "spec_yaml_keys.h"

#include <stdlib.h>
#include <string.h>

/* At or below this many keys the pairwise scan is cheaper than sorting. */
#define KEYS_PAIRWISE_MAX 16

struct key_ref {
    const char *key;
    size_t index; /* position in the mapping */
};

static int
key_ref_cmp(const void *a, const void *b)
{
    const struct key_ref *x = a, *y = b;
    int c = strcmp(x->key, y->key);

    if (c != 0)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The first repeat in file order is the first i that equals an earlier j. */
static int
find_pairwise(const struct spec_node *m, size_t *dup, size_t *first)
{
    for (size_t i = 1; i < m->n; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(m->pairs[i].key->value, m->pairs[j].key->value) == 0) {
                *dup = i;
                *first = j;
                return 1;
            }
    return 0;
}

/* After sorting, equal keys sit together in file order: in each run the
 * second entry is that key's first repeat and the first its original. */
static int
find_sorted(const struct spec_node *m, size_t *dup, size_t *first)
{
    struct key_ref *refs = malloc(m->n * sizeof(*refs));
    size_t best = m->n, orig = 0;

    if (refs == NULL)
        return -1;
    for (size_t i = 0; i < m->n; i++) {
        refs[i].key = m->pairs[i].key->value;
        refs[i].index = i;
    }
    qsort(refs, m->n, sizeof(*refs), key_ref_cmp);
    for (size_t i = 1; i < m->n; i++)
        if (strcmp(refs[i].key, refs[i - 1].key) == 0 &&
            refs[i].index < best &&
            (i < 2 || strcmp(refs[i - 1].key, refs[i - 2].key) != 0)) {
            best = refs[i].index;
            orig = refs[i - 1].index;
        }
    free(refs);
    if (best == m->n)
        return 0;
    *dup = best;
    *first = orig;
    return 1;
}

int
spec_yaml_find_duplicate_key(const struct spec_node *m, size_t *dup,
                             size_t *first)
{
    if (m->kind != SPEC_NODE_MAP || m->n < 2)
        return 0;
    if (m->n <= KEYS_PAIRWISE_MAX)
        return find_pairwise(m, dup, first);
    return find_sorted(m, dup, first);
}
