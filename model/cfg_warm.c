/* cfg_warm.c - the warmPool key (docs/warm-pool.md "Configuration"): how
 * many boxes the pool keeps ready per vendor. The walk checks each count
 * and keeps the entries; which vendors exist is known only once the
 * whole file is read (warmPool may come before vendors), so the vendor
 * names are checked after the walk, at their keys' line:col.
 */
#include "cfg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
cfg_warm_cmp(const void *a, const void *b)
{
    const struct cfg_warm *x = a, *y = b;

    return strcmp(x->vendor, y->vendor);
}

/* The count at v: a plain decimal 0..CFG_MAX_WARM_PER_VENDOR (no sign,
 * no leading zero, as the config's other integers), or -1 after
 * reporting it. */
static int
cfg_warm_one_count(struct cfg_parse *p, const struct spec_node *v,
                   const char *field)
{
    const char *s = v->value;

    if (v->kind == SPEC_NODE_SCALAR && v->type == SPEC_SCALAR_INT &&
        s[0] >= '0' && s[0] <= '9') {
        int n = s[0] - '0';

        if (v->len == 1)
            return n;
        if (v->len == 2 && n != 0 && s[1] >= '0' && s[1] <= '9' &&
            n * 10 + (s[1] - '0') <= CFG_MAX_WARM_PER_VENDOR)
            return n * 10 + (s[1] - '0');
    }
    if (v->kind == SPEC_NODE_SCALAR && v->type == SPEC_SCALAR_STRING)
        return spec_errors_add(p->es, p->file, v, field,
                               "must be an integer 0..%d, got \"%s\"",
                               CFG_MAX_WARM_PER_VENDOR, s);
    if (v->kind == SPEC_NODE_SCALAR &&
        (v->type == SPEC_SCALAR_INT || v->type == SPEC_SCALAR_FLOAT))
        return spec_errors_add(p->es, p->file, v, field,
                               "must be an integer 0..%d, got %s",
                               CFG_MAX_WARM_PER_VENDOR, s);
    return spec_errors_add(p->es, p->file, v, field,
                           "must be an integer 0..%d, got %s",
                           CFG_MAX_WARM_PER_VENDOR, spec_node_type_name(v));
}

void
cfg__warm_pool(struct cfg_parse *p, void *dst, const struct spec_node *v,
               const char *field)
{
    struct cfg *cfg = p->cfg;
    char f[CFG_FIELD_MAX];

    (void)dst;
    if (v->kind != SPEC_NODE_MAP) {
        spec_errors_add(p->es, p->file, v, field,
                        "expected a mapping of vendor name to count, got %s",
                        spec_node_type_name(v));
        return;
    }
    /* Every name must be a vendor, and there are at most CFG_MAX_VENDORS:
     * a longer mapping is refused before anything is kept. */
    if (v->n > CFG_MAX_VENDORS) {
        spec_errors_add(p->es, p->file, v, field,
                        "more than %d entries (a config has at most %d "
                        "vendors)",
                        CFG_MAX_VENDORS, CFG_MAX_VENDORS);
        return;
    }
    if (v->n == 0)
        return;
    cfg->warm_pool = calloc(v->n, sizeof(*cfg->warm_pool));
    if (cfg->warm_pool == NULL) {
        cfg__nomem(p, v);
        return;
    }
    for (size_t i = 0; i < v->n; i++) {
        const struct spec_pair *kv = &v->pairs[i];
        struct cfg_warm *w = &cfg->warm_pool[cfg->n_warm_pool];
        int n;

        snprintf(f, sizeof(f), "%s.%s", field, kv->key->value);
        n = cfg_warm_one_count(p, kv->value, f);
        if (n <= 0) /* 0 is none: nothing to keep */
            continue;
        w->vendor = strdup(kv->key->value);
        if (w->vendor == NULL) {
            cfg__nomem(p, kv->key);
            return;
        }
        w->count = (unsigned)n;
        cfg->n_warm_pool++;
    }
    /* The parser refuses duplicate keys, so the names are distinct. */
    qsort(cfg->warm_pool, cfg->n_warm_pool, sizeof(*cfg->warm_pool),
          cfg_warm_cmp);
}

/* The vendors warmPool names, once the whole file is read: each must be a
 * vendor of the config (the file's or a built-in one). A name the file's
 * vendors mapping defines but the config lacks had errors in its profile,
 * reported there already. A vendor in credentialMode gateway has boxes
 * too: the gateway, which holds the key, is made at the hand-over
 * (docs/warm-pool.md). */
void
cfg__warm_check(struct cfg_parse *p, const struct spec_node *root)
{
    const struct spec_node *wp = spec_node_get(root, "warmPool");
    const struct spec_node *vendors = spec_node_get(root, "vendors");
    char f[CFG_FIELD_MAX];

    if (wp == NULL || wp->kind != SPEC_NODE_MAP || wp->n > CFG_MAX_VENDORS)
        return;
    for (size_t i = 0; i < wp->n; i++) {
        const struct spec_node *k = wp->pairs[i].key;
        const struct cfg_vendor *vd = cfg_find_vendor(p->cfg, k->value);

        snprintf(f, sizeof(f), "warmPool.%s", k->value);
        if (vd == NULL && spec_node_get(vendors, k->value) == NULL)
            spec_errors_add(p->es, p->file, k, f,
                            "vendor \"%s\" is not defined in vendors",
                            k->value);
    }
}

unsigned
cfg_warm_count(const struct cfg *cfg, const char *vendor)
{
    if (cfg == NULL || vendor == NULL)
        return 0;
    for (size_t i = 0; i < cfg->n_warm_pool; i++)
        if (strcmp(cfg->warm_pool[i].vendor, vendor) == 0)
            return cfg->warm_pool[i].count;
    return 0;
}
