/* cfg_int.h - what the files of the config loader share: the state of
 * one load, the defaults a load starts from (cfg_defaults.c), the key
 * walk that checks and applies a file and its typed readers
 * (cfg_validate.c), the vendor profiles (cfg_vendor.c), the warm pool
 * (cfg_warm.c), and the sorted vendor list they fill. Not for other
 * modules. */
#ifndef CFG_INT_H
#define CFG_INT_H

#include "cfg.h"
#include "spec_node.h"

/* Longest field path in a message ("vendors.x.hosts[3]"). */
#define CFG_FIELD_MAX 300

/* One load of one file: where errors go and the config being filled. */
struct cfg_parse {
    const char *file;
    struct spec_errors *es;
    struct cfg *cfg;
    int nomem;
};

/* The built-in config (the one an empty file or no file gives), or NULL
 * with the reason in es: out of memory, or a built-in vendor profile the
 * rules refuse, named like a file's error ("built-in vendors:LINE:COL:
 * field: problem"). Free with cfg_free(). */
struct cfg *cfg__defaults(struct spec_errors *es);

/* Read the vendor profiles of yaml (a `vendors` mapping's value) into
 * cfg with the rules a file's obey, each problem into es under the file
 * name "built-in vendors". 0, or -1 with es holding why. What
 * cfg__defaults() reads its table with; a test feeds it a bad one. */
int cfg__builtin_vendors_read(struct cfg *cfg, const char *yaml, size_t len,
                              struct spec_errors *es);

/* A key's handler: check the value node and store it at dst. */
typedef void cfg_key_fn(struct cfg_parse *p, void *dst,
                        const struct spec_node *v, const char *field);

/* One known key: its handler gets ctx + off, or, for a nested mapping,
 * the walker descends into `sub` with ctx + off. */
struct cfg_key {
    const char *name;
    cfg_key_fn *fn;
    size_t off;
    const struct cfg_key *sub;
};

/* Walk mapping m at path ("vendors.x"), calling each known key's handler
 * with ctx; unknown keys are errors at the key with a suggestion. */
void cfg__walk(struct cfg_parse *p, void *ctx, const struct spec_node *m,
               const char *path, const struct cfg_key *keys);

/* Report "out of memory" once per load. */
void cfg__nomem(struct cfg_parse *p, const struct spec_node *at);

/* True for a non-empty string; else reports why not at v. */
bool cfg__is_string(struct cfg_parse *p, const struct spec_node *v,
                    const char *field);

/* Replace *dst with a copy of v's text. */
void cfg__set_str(struct cfg_parse *p, const struct spec_node *v, char **dst);

/* A boolean key (bool at dst). */
cfg_key_fn cfg__bool;

/* The `vendors` mapping (cfg_vendor.c). */
cfg_key_fn cfg__vendors;

/* The `warmPool` mapping (cfg_warm.c): checks each count and keeps the
 * entries over 0, sorted; the vendor names are cfg__warm_check()'s. */
cfg_key_fn cfg__warm_pool;

/* Once every key of root is applied: check that each vendor warmPool
 * names is in p->cfg and not in credentialMode gateway, reporting at the
 * name's key in the file. */
void cfg__warm_check(struct cfg_parse *p, const struct spec_node *root);

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
