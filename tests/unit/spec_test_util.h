/* spec_test_util.h - helpers for the specs/ unit tests. */
#ifndef SPEC_TEST_UTIL_H
#define SPEC_TEST_UTIL_H

#include <stdio.h>
#include <string.h>

#include "spec.h"

/* A complete valid spec that sets every optional field. */
#define SPEC_TEST_FULL                                                         \
    "apiVersion: agentctl.dev/v1alpha1\n"                                      \
    "kind: AgentInvocation\n"                                                  \
    "metadata:\n"                                                              \
    "  name: fix-login-bug\n"                                                  \
    "  labels: {team: web}\n"                                                  \
    "spec:\n"                                                                  \
    "  vendor: claude\n"                                                       \
    "  phase: execute\n"                                                       \
    "  image: my-agent:1\n"                                                    \
    "  command: [claude, -p, \"fix it\"]\n"                                    \
    "  env: {LOG_LEVEL: debug}\n"                                              \
    "  credential: anthropic\n"                                                \
    "  workspace:\n"                                                           \
    "    source: repos/web\n"                                                  \
    "    size: 512Mi\n"                                                        \
    "    inodes: 100000\n"                                                     \
    "  scratch: {size: 64Mi, inodes: 10000}\n"                                 \
    "  resources: {memory: 1Gi, cpus: \"1.5\", pids: 256}\n"                   \
    "  deadlineSeconds: 1800\n"                                                \
    "  output: {maxBytes: 1048576}\n"                                          \
    "  vendorBudget: {requests: 100, bytes: 1Gi}\n"                            \
    "  attempt: a1\n"                                                          \
    "  cancel: false\n"

/* Load text; return the number of errors. */
static inline size_t
spec_test_load(const char *text, struct spec_file *f)
{
    spec_load_buffer("t.yaml", text, strlen(text), f);
    return f->errors.n + f->errors.dropped;
}

/* True when f has an error at line:col (0 = any) whose field is `field`
 * (NULL = any) and whose message contains `needle` (NULL = any). */
static inline int
spec_test_has_error(const struct spec_file *f, unsigned line, unsigned col,
                    const char *field, const char *needle)
{
    for (size_t i = 0; i < f->errors.n; i++) {
        const struct err *e = &f->errors.items[i];

        if ((line == 0 || e->line == line) && (col == 0 || e->col == col) &&
            (field == NULL || strcmp(e->field, field) == 0) &&
            (needle == NULL || strstr(e->msg, needle) != NULL))
            return 1;
    }
    for (size_t i = 0; i < f->errors.n; i++) {
        char buf[600];
        fprintf(stderr, "  have: %s\n",
                err_format(&f->errors.items[i], buf, sizeof(buf)));
    }
    return 0;
}

#endif
