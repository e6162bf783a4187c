/* cfg_int.h - what the files of the config loader share: the state of
 * one load, the defaults a load starts from (cfg_defaults.c), the key
 * walk that checks and applies a file (cfg_validate.c), and the sorted
 * vendor list both fill. Not for other modules. */
#ifndef CFG_INT_H
#define CFG_INT_H

#include "cfg.h"
#include "spec_node.h"

/* One load of one file: where errors go and the config being filled. */
struct cfg_parse {
    const char *file;
    struct spec_errors *es;
    struct cfg *cfg;
    int nomem;
};

/* The built-in config (the one an empty file or no file gives), or NULL
 * when out of memory. Free with cfg_free(). */
struct cfg *cfg__defaults(void);

/* Check every key of root, the file's top-level node, and apply the good
 * ones to p->cfg; each problem goes to p->es (unknown keys with a
 * suggestion, bad values with the rule they break). */
void cfg__apply(struct cfg_parse *p, const struct spec_node *root);

/* Put vd into cfg, replacing a vendor of the same name and keeping the
 * list sorted by name; takes vd's contents. -1 past CFG_MAX_VENDORS or
 * out of memory (vd is left to the caller then). */
int cfg__vendor_put(struct cfg *cfg, struct cfg_vendor *vd);

/* Free what v holds and zero it. */
void cfg__vendor_cleanup(struct cfg_vendor *v);

#endif
