/* spec.h - the AgentInvocation resource as typed C, and loading it from
 * YAML files with every error a user can act on.
 *
 * Loading a file: libyaml -> spec_node trees (spec_yaml.c, hostile input
 * refused) -> ObjectMeta rules (spec_meta.c) -> the CRD schema with
 * defaults (spec_validate.c) -> this struct (spec_model.c), plus the
 * canonical JSON and the spec hash (spec_json.c).
 */
#ifndef SPEC_H
#define SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "spec_node.h"

enum spec_phase {
    SPEC_PHASE_PLANNING,
    SPEC_PHASE_QUESTIONS,
    SPEC_PHASE_REVIEW,
    SPEC_PHASE_EXECUTE,
    SPEC_PHASE_FIX,
};

struct spec_kv {
    char *key;
    char *value;
};

struct spec_kvlist {
    struct spec_kv *items; /* sorted by key */
    size_t n;
};

struct spec_argv {
    char **argv;
    size_t n; /* 0 = absent */
};

/* spec.output.maxResultBytes when the spec leaves it out (applied here,
 * not written into the spec: a spec hash stays what it was) */
#define SPEC_RESULT_DEFAULT (64u * 1024)

struct spec_invocation {
    /* metadata */
    char *name;
    struct spec_kvlist labels;
    struct spec_kvlist annotations;
    /* spec (defaults of the CRD applied) */
    char *vendor;
    enum spec_phase phase;
    char *image;
    struct spec_argv command; /* exactly one of command and prompt */
    char *prompt;             /* NULL when command is given */
    struct spec_argv runner;
    struct spec_kvlist env;
    char *credential; /* NULL when absent */
    bool has_workspace;
    char *workspace_source; /* relative to the controller's workspaceRoot */
    uint64_t workspace_bytes, workspace_inodes;
    uint64_t scratch_bytes, scratch_inodes;
    uint64_t memory_bytes;
    uint64_t millicpus; /* "1.5" -> 1500 */
    uint64_t pids;
    uint32_t deadline_seconds;
    uint64_t output_max_bytes;
    /* spec.output.schema as compact JSON (the subset of spec_jschema.h),
     * NULL when absent; spec.output.maxResultBytes (SPEC_RESULT_DEFAULT
     * when absent) */
    char *output_schema;
    uint64_t output_max_result_bytes;
    bool has_vendor_budget;
    uint64_t vendor_requests; /* spec.vendorBudget.requests; 0 = not set */
    uint64_t vendor_bytes; /* spec.vendorBudget.bytes (quantity); 0 = not set */
    uint64_t vendor_tokens; /* spec.vendorBudget.tokens; 0 = not set */
    char *attempt;
    bool cancel;
    /* derived */
    /* canonical {apiVersion,kind,metadata,spec} as compact JSON text
     * (keys sorted, integers exact); spec_resource() gives the tree. Text,
     * not a tree: a controller holds one per invocation it knows, and the
     * tree is four times the size (docs/bench-store.md, "Peak RSS") */
    char *resource_json;
    char spec_hash[65]; /* sha256 hex of the canonical spec */
    /* origin */
    char *file;
    unsigned line; /* where the document starts */
    /* holders besides the first (spec_invocation_ref); a checked spec is
     * never changed after the load, so holders share it */
    unsigned refs;
};

/* Everything in one file: the valid documents and every error. A file is
 * usable only when errors.n == 0 (apply is all-or-nothing per input). */
struct spec_file {
    char *path;
    struct spec_invocation **items;
    size_t n;
    struct spec_errors errors;
};

/* Load and check a file (at most SPEC_MAX_FILE_BYTES). Returns 0 when every
 * document is valid, -1 otherwise; out is filled either way and the caller
 * calls spec_file_cleanup(). */
int spec_load_file(const char *path, struct spec_file *out);

/* The same for bytes already in memory; `name` is used in messages. */
int spec_load_buffer(const char *name, const char *data, size_t len,
                     struct spec_file *out);

/* What agentctl's -f reads (validate, apply, diff): an input up to
 * SPEC_MAX_INPUT_BYTES. One of at most SPEC_MAX_FILE_BYTES is a file of
 * the watched directory (spec_load_buffer, the file's budgets across all
 * its documents); a bigger one is cut at its document markers ("---" at
 * a line's start) into at most SPEC_MAX_INPUT_DOCS documents, each
 * checked as such a file: at most 1 MiB, the node and depth budgets of
 * model/spec_node.h. So a generated file of 10,000 small specs is read,
 * and what it costs stays bounded by its size. Errors name lines of the
 * whole input. */
#define SPEC_MAX_INPUT_BYTES (64 * 1024 * 1024)
#define SPEC_MAX_INPUT_DOCS  100000
int spec_load_input(const char *name, const char *data, size_t len,
                    struct spec_file *out);
int spec_load_input_file(const char *path, struct spec_file *out);

void spec_file_cleanup(struct spec_file *f);

/* Take ownership of item i out of f (f keeps a NULL there). */
struct spec_invocation *spec_file_take(struct spec_file *f, size_t i);

/* Let go of inv: freed when its last holder lets go. */
void spec_invocation_free(struct spec_invocation *inv);

/* One more holder of inv, which stays as it is (a checked spec is never
 * changed): a cache that parsed a file once hands out the same spec to
 * every reader instead of a copy each (store/dir/store_dir_index.c). Returns
 * inv. Holders are on one thread. */
struct spec_invocation *spec_invocation_ref(struct spec_invocation *inv);

/* "planning", ... */
const char *spec_phase_name(enum spec_phase p);

/* execute and fix mount /work read-write; the others read-only. */
bool spec_phase_writable(enum spec_phase p);

/* The `spec` object of the canonical JSON as compact text (sorted keys,
 * defaults applied). Caller frees. NULL when out of memory. */
char *spec_canonical_spec(const struct spec_invocation *inv);

/* a and b are the same resource (canonical text: same text, same tree) */
bool spec_same_resource(const struct spec_invocation *a,
                        const struct spec_invocation *b);

/* The canonical resource as a tree, parsed again from resource_json (by
 * the spec parser, so integers stay exact). Caller deletes. NULL when out
 * of memory. */
cJSON *spec_resource(const struct spec_invocation *inv);

/* Print every error of f to the stream as "file:line:col: field: msg". */
void spec_file_print_errors(const struct spec_file *f, FILE *out);

/* Canonical JSON of a validated node tree: keys sorted, integers exact.
 * Caller deletes. NULL when out of memory. */
cJSON *spec_json_from_node(const struct spec_node *n);

/* sha256 of text as 64 lowercase hex digits plus NUL. */
void spec_sha256_hex(const void *data, size_t len, char out[65]);

#endif
