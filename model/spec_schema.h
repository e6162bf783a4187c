/* spec_schema.h - the CRD's openAPIV3Schema, compiled once, and the
 * validator that checks a document against it.
 *
 * The schema comes from crds/agentinvocations.agentctl.dev.yaml, embedded
 * at build time (spec_crd_yaml), so the CRD is the only statement of the
 * rules. Compiling refuses any schema keyword the validator does not
 * implement: a rule can never be written in the CRD and silently ignored.
 */
#ifndef SPEC_SCHEMA_H
#define SPEC_SCHEMA_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "spec_node.h"

enum spec_type {
    SPEC_T_ANY = 0, /* no `type` (preserve-unknown-fields, int-or-string) */
    SPEC_T_OBJECT,
    SPEC_T_ARRAY,
    SPEC_T_STRING,
    SPEC_T_INTEGER,
    SPEC_T_NUMBER,
    SPEC_T_BOOLEAN,
};

struct spec_schema;

struct spec_schema_prop {
    char *name;
    struct spec_schema *schema;
};

struct spec_schema {
    enum spec_type type;
    char *format; /* "dns1123-label" or NULL */
    char *pattern;
    regex_t re;
    bool has_re;
    const struct spec_node *enum_values; /* a sequence in the CRD tree */
    bool has_min, has_max, exclusive_min;
    double minimum, maximum;
    long min_length, max_length; /* -1 when absent */
    long min_items, max_items, min_properties, max_properties;
    struct spec_schema_prop *props;
    size_t nprops;
    char **required;
    size_t nrequired;
    struct spec_schema *additional; /* schema of map values, or NULL */
    struct spec_schema *items;
    struct spec_schema **one_of, **any_of;
    size_t n_one_of, n_any_of;
    bool int_or_string;
    bool preserve_unknown;
    const struct spec_node *dflt; /* `default`, in the CRD tree */
};

/* The CRD bytes embedded at build time. */
extern const char spec_crd_yaml[];
extern const unsigned long spec_crd_yaml_len;

/* The compiled CRD: the parsed tree (owns every node the schema points
 * into) and the root schema of the served version. */
struct spec_crd {
    struct spec_stream stream;
    struct spec_schema *root;
    char *api_version; /* "agentctl.dev/v1alpha1" */
    char *kind;        /* "AgentInvocation" */
};

/* Parse and compile a CRD from YAML text. NULL on failure with e filled
 * (file:line:col of the offending schema keyword). */
struct spec_crd *spec_crd_load(const char *file, const char *yaml, size_t len,
                               struct err *e);

/* The embedded CRD, compiled on first use and kept for the process. Not
 * thread-safe on first call; NULL with e filled if the embedded CRD is
 * broken (a build defect, caught by the unit tests). */
const struct spec_crd *spec_crd_builtin(struct err *e);

void spec_crd_free(struct spec_crd *crd);

/* Validate doc against s, applying `default` values for missing fields
 * (so the tree is changed), and append each problem to es with its field
 * path. Returns the number of errors added (0 = valid). */
size_t spec_schema_validate(const struct spec_schema *s, const char *file,
                            struct spec_node *doc, struct spec_errors *es);

/* The schema of a property path such as "spec.workspace.size", or NULL. */
const struct spec_schema *spec_schema_find(const struct spec_schema *root,
                                           const char *path);

#endif
