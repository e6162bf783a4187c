/* test_spec_validate.c - the CRD schema applied to documents: field paths,
 * positions and messages a user can act on; defaults; typed values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "spec_test_util.h"

#define HEAD                                                                \
    "apiVersion: agentctl.dev/v1alpha1\n"                                   \
    "kind: AgentInvocation\n"                                               \
    "metadata:\n"                                                           \
    "  name: x\n"                                                           \
    "spec:\n"                                                               \
    "  vendor: claude\n"                                                    \
    "  phase: execute\n"                                                    \
    "  image: a:1\n"                                                        \
    "  deadlineSeconds: 60\n"
/* HEAD is 9 lines; a line appended after it is line 10. */

struct vcase {
    const char *name;
    const char *text;
    unsigned line, col;
    const char *field;
    const char *needle;
};

static const struct vcase cases[] = {
    { "bad quantity",
      HEAD "  command: [x]\n  workspace: {source: w, size: lots}\n", 11, 32,
      "spec.workspace.size",
      "expected a quantity such as 512Mi, got \"lots\"" },
    { "overflowing quantity",
      HEAD "  command: [x]\n  scratch: {size: 99999999999999999999Gi}\n", 11,
      19, "spec.scratch.size", "too large" },
    { "quantity below minimum",
      HEAD "  command: [x]\n  resources: {memory: 1Ki}\n", 11, 23,
      "spec.resources.memory", "at least" },
    { "cpus as millis", HEAD "  command: [x]\n  resources: {cpus: 0m}\n", 11,
      21, "spec.resources.cpus", "expected a quantity such as 1.5 or 500m" },
    { "deadline zero", HEAD "  command: [x]\n", 9, 20, "spec.deadlineSeconds",
      NULL },
    { "unknown top-level field", HEAD "  command: [x]\nstatuz: {}\n", 11, 1,
      "statuz", "unknown field \"statuz\" (did you mean \"status\"?)" },
    { "unknown spec field", HEAD "  command: [x]\n  imagePullPolicy: Always\n",
      11, 3, "spec.imagePullPolicy", "unknown field \"imagePullPolicy\"" },
    { "unknown nested field",
      HEAD "  command: [x]\n  workspace: {source: w, sise: 1Gi}\n", 11, 26,
      "spec.workspace.sise", "(did you mean \"size\"?)" },
    { "both command and prompt", HEAD "  command: [x]\n  prompt: hi\n", 6, 3,
      "spec", "only one of command, prompt may be set" },
    { "neither command nor prompt", HEAD, 6, 3, "spec",
      "one of command, prompt is required" },
    { "wrong type int for string", HEAD "  command: [x]\n  attempt: 2\n", 11,
      12, "spec.attempt", "expected a string, got integer \"2\" (quote it)" },
    { "overflowing integer",
      HEAD "  command: [x]\n  resources: {pids: 99999999999999999999}\n", 11,
      21, "spec.resources.pids", "out of range" },
    { "enum", HEAD "  command: [x]\n  output: {maxBytes: 1}\n  cancel: yes\n",
      12, 11, "spec.cancel", "expected a boolean (true or false), got string" },
    { "reserved env", HEAD "  command: [x]\n  env: {HTTPS_PROXY: x}\n", 11, 9,
      "spec.env.HTTPS_PROXY", "set by the controller" },
    { "runner with command", HEAD "  command: [x]\n  runner: [make]\n", 11, 11,
      "spec.runner", "runner is for prompt specs" },
    { "empty command", HEAD "  command: []\n", 10, 12, "spec.command",
      "must have at least 1 item" },
    { "empty vendorBudget", HEAD "  command: [x]\n  vendorBudget: {}\n", 11, 17,
      "spec.vendorBudget",
      "must not be empty: set at least one of requests, tokens, bytes" },
    { "vendorBudget tokens zero",
      HEAD "  command: [x]\n  vendorBudget: {tokens: 0}\n", 11, 26,
      "spec.vendorBudget.tokens",
      "must be between 1 and 1000000000000000, got \"0\"" },
    { "vendorBudget tokens over agent-gateway's range",
      HEAD "  command: [x]\n  vendorBudget: {tokens: 1000000000000001}\n", 11,
      26, "spec.vendorBudget.tokens", "must be between 1 and" },
    { "vendorBudget tokens a quantity",
      HEAD "  command: [x]\n  vendorBudget: {tokens: 1M}\n", 11, 26,
      "spec.vendorBudget.tokens", "expected an integer, got string" },
    { "vendorBudget requests zero",
      HEAD "  command: [x]\n  vendorBudget: {requests: 0}\n", 11, 28,
      "spec.vendorBudget.requests",
      "must be between 1 and 1000000000000000, got \"0\"" },
    { "vendorBudget requests over agent-gateway's range",
      HEAD "  command: [x]\n  vendorBudget: {requests: 1000000000000001}\n", 11,
      28, "spec.vendorBudget.requests", "must be between 1 and" },
    { "vendorBudget requests a string",
      HEAD "  command: [x]\n  vendorBudget: {requests: \"10\"}\n", 11, 28,
      "spec.vendorBudget.requests", "expected an integer, got string" },
    { "vendorBudget bytes zero",
      HEAD "  command: [x]\n  vendorBudget: {bytes: 0}\n", 11, 25,
      "spec.vendorBudget.bytes",
      "must be between 1 and 1000000000000000000, got \"0\"" },
    { "vendorBudget bytes not a quantity",
      HEAD "  command: [x]\n  vendorBudget: {bytes: 1Pi}\n", 11, 25,
      "spec.vendorBudget.bytes", "expected a quantity such as 512Mi" },
    { "vendorBudget unknown field",
      HEAD "  command: [x]\n  vendorBudget: {request: 5}\n", 11, 18,
      "spec.vendorBudget.request", "(did you mean \"requests\"?)" },
    { "vendorBudget not a mapping",
      HEAD "  command: [x]\n  vendorBudget: 100\n", 11, 17, "spec.vendorBudget",
      "expected a mapping, got integer" },
    { "source escapes", HEAD "  command: [x]\n  workspace: {source: ../etc}\n",
      11, 23, "spec.workspace.source", "does not match" },
};

static void
test_spec_validate_reports_field_and_position(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct spec_file f;

        print_message("case: %s\n", cases[i].name);
        if (strcmp(cases[i].name, "deadline zero") == 0) {
            char text[1024];
            snprintf(text, sizeof(text), "%s", cases[i].text);
            memcpy(strstr(text, "60\n"), "0 \n", 3);
            assert_true(spec_test_load(text, &f) > 0);
            assert_true(spec_test_has_error(&f, cases[i].line, cases[i].col,
                                            cases[i].field,
                                            "must be between 1 and 86400"));
        } else {
            assert_true(spec_test_load(cases[i].text, &f) > 0);
            assert_true(spec_test_has_error(&f, cases[i].line, cases[i].col,
                                            cases[i].field, cases[i].needle));
        }
        assert_int_equal(f.n, 0);
        spec_file_cleanup(&f);
    }
}

static void
test_spec_validate_reports_every_error_not_only_the_first(void **state)
{
    const char *text = "apiVersion: agentctl.dev/v1\n"
                       "kind: Agent\n"
                       "metadata: {name: Bad_Name, labels: {a: \"b c\"}}\n"
                       "spec:\n"
                       "  vendor: claude\n"
                       "  phase: deploy\n"
                       "  image: a:1\n"
                       "  command: [x]\n"
                       "  deadlineSeconds: 86401\n";
    struct spec_file f;

    (void)state;
    assert_int_equal(spec_test_load(text, &f), 6);
    assert_true(spec_test_has_error(&f, 1, 13, "apiVersion",
                                    "must be one of agentctl.dev/v1alpha1"));
    assert_true(spec_test_has_error(&f, 2, 7, "kind", "AgentInvocation"));
    assert_true(spec_test_has_error(&f, 3, 18, "metadata.name",
                                    "expected a DNS-1123 label"));
    assert_true(spec_test_has_error(&f, 3, 40, "metadata.labels.a",
                                    "invalid label value"));
    assert_true(spec_test_has_error(&f, 6, 10, "spec.phase",
                                    "must be one of planning, questions, "
                                    "review, execute, fix; got \"deploy\""));
    assert_true(spec_test_has_error(&f, 9, 20, "spec.deadlineSeconds",
                                    "must be between 1 and 86400, got "
                                    "\"86401\""));
    /* reported in file order */
    for (size_t i = 1; i < f.errors.n; i++)
        assert_true(f.errors.items[i - 1].line < f.errors.items[i].line ||
                    (f.errors.items[i - 1].line == f.errors.items[i].line &&
                     f.errors.items[i - 1].col <= f.errors.items[i].col));
    spec_file_cleanup(&f);
}

static void
test_spec_validate_caps_errors_at_50(void **state)
{
    char *text = malloc(200000);
    size_t n = 0;
    struct spec_file f;

    (void)state;
    for (int i = 0; i < 60; i++)
        n += (size_t)sprintf(text + n, "---\nfoo: %d\n", i);
    spec_test_load(text, &f);
    assert_int_equal(f.errors.n, SPEC_MAX_ERRORS);
    assert_true(f.errors.dropped > 0);
    spec_file_cleanup(&f);
    free(text);
}

static void
test_spec_validate_applies_crd_defaults(void **state)
{
    struct spec_file f;
    const struct spec_invocation *inv;

    (void)state;
    assert_int_equal(spec_test_load(HEAD "  command: [x]\n", &f), 0);
    assert_int_equal(f.n, 1);
    inv = f.items[0];
    assert_int_equal(inv->scratch_bytes, 64ULL << 20);
    assert_int_equal(inv->scratch_inodes, 10000);
    assert_int_equal(inv->memory_bytes, 1ULL << 30);
    assert_int_equal(inv->millicpus, 1000);
    assert_int_equal(inv->pids, 256);
    assert_int_equal(inv->output_max_bytes, 1048576);
    assert_string_equal(inv->attempt, "1");
    assert_false(inv->cancel);
    assert_false(inv->has_workspace);
    assert_false(inv->has_vendor_budget); /* no default: the config's */
    spec_file_cleanup(&f);
}

static void
test_spec_validate_builds_typed_invocation(void **state)
{
    struct spec_file f;
    const struct spec_invocation *inv;

    (void)state;
    assert_int_equal(spec_test_load(SPEC_TEST_FULL, &f), 0);
    inv = f.items[0];
    assert_string_equal(inv->name, "fix-login-bug");
    assert_string_equal(inv->labels.items[0].key, "team");
    assert_int_equal(inv->phase, SPEC_PHASE_EXECUTE);
    assert_true(spec_phase_writable(inv->phase));
    assert_int_equal(inv->command.n, 3);
    assert_string_equal(inv->command.argv[2], "fix it");
    assert_null(inv->command.argv[3]);
    assert_null(inv->prompt);
    assert_string_equal(inv->env.items[0].value, "debug");
    assert_string_equal(inv->credential, "anthropic");
    assert_string_equal(inv->workspace_source, "repos/web");
    assert_int_equal(inv->workspace_bytes, 512ULL << 20);
    assert_int_equal(inv->millicpus, 1500);
    assert_int_equal(inv->deadline_seconds, 1800);
    assert_true(inv->has_vendor_budget);
    assert_int_equal(inv->vendor_requests, 100);
    assert_int_equal(inv->vendor_bytes, 1ULL << 30);
    assert_string_equal(inv->attempt, "a1");
    spec_file_cleanup(&f);
}

/* vendorBudget: either part alone, a quantity rounded up like any other;
 * absent, nothing is set (the controller's limits apply). */
static void
test_spec_validate_vendor_budget_parts(void **state)
{
    static const struct {
        const char *budget;
        bool has;
        uint64_t requests, bytes;
    } budgets[] = {
        { "", false, 0, 0 },
        { "  vendorBudget: {requests: 5}\n", true, 5, 0 },
        { "  vendorBudget: {bytes: 1.5Ki}\n", true, 0, 1536 },
        { "  vendorBudget: {bytes: \"1.5\"}\n", true, 0, 2 },
        { "  vendorBudget:\n    requests: 1000000000000000\n"
          "    bytes: 1000000000000000000\n",
          true, 1000000000000000ull, 1000000000000000000ull },
    };
    char text[1024];

    (void)state;
    for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
        struct spec_file f;

        snprintf(text, sizeof(text), HEAD "  command: [x]\n%s",
                 budgets[i].budget);
        if (spec_test_load(text, &f) != 0) {
            spec_file_print_errors(&f, stderr);
            fail_msg("case %zu does not load", i);
        }
        assert_int_equal(f.items[0]->has_vendor_budget, budgets[i].has);
        assert_int_equal(f.items[0]->vendor_requests, budgets[i].requests);
        assert_int_equal(f.items[0]->vendor_bytes, budgets[i].bytes);
        spec_file_cleanup(&f);
    }
}

/* Fractions of a CPU, in both spellings; zero is refused. */
static void
test_spec_validate_cpus_fractions(void **state)
{
    struct spec_file f;

    (void)state;
    assert_int_equal(spec_test_load(HEAD "  command: [x]\n"
                                         "  resources: {cpus: \"0.5\"}\n",
                                    &f),
                     0);
    assert_int_equal(f.items[0]->millicpus, 500);
    spec_file_cleanup(&f);
    assert_int_equal(spec_test_load(HEAD "  command: [x]\n"
                                         "  resources: {cpus: 250m}\n",
                                    &f),
                     0);
    assert_int_equal(f.items[0]->millicpus, 250);
    spec_file_cleanup(&f);
    assert_int_equal(spec_test_load(HEAD "  command: [x]\n"
                                         "  resources: {cpus: 2}\n",
                                    &f),
                     0);
    assert_int_equal(f.items[0]->millicpus, 2000);
    spec_file_cleanup(&f);
    assert_int_equal(spec_test_load(HEAD "  command: [x]\n"
                                         "  resources: {cpus: 0}\n",
                                    &f),
                     1);
    assert_true(spec_test_has_error(&f, 11, 21, "spec.resources.cpus",
                                    "must be more than 0"));
    spec_file_cleanup(&f);
}

/* Docker refuses NanoCpus under 10^7: 0.01 (10m) is the least a spec may
 * ask for, in both spellings. */
static void
test_spec_validate_cpus_at_least_10m(void **state)
{
    static const struct {
        const char *cpus;
        uint64_t milli; /* 0 = refused */
    } cpus_cases[] = {
        { "\"0.01\"", 10 }, { "10m", 10 },       { "\"0.011\"", 11 },
        { "\"0.1\"", 100 }, { "\"0.001\"", 0 }, { "\"0.009\"", 0 },
        { "1m", 0 },        { "9m", 0 },
    };
    char text[512];

    (void)state;
    for (size_t i = 0; i < sizeof(cpus_cases) / sizeof(cpus_cases[0]); i++) {
        struct spec_file f;

        print_message("cpus: %s\n", cpus_cases[i].cpus);
        snprintf(text, sizeof(text),
                 HEAD "  command: [x]\n  resources: {cpus: %s}\n",
                 cpus_cases[i].cpus);
        if (cpus_cases[i].milli == 0) {
            assert_int_equal(spec_test_load(text, &f), 1);
            assert_true(spec_test_has_error(&f, 11, 21, "spec.resources.cpus",
                                            "at least 0.01 = 10m"));
        } else {
            assert_int_equal(spec_test_load(text, &f), 0);
            assert_int_equal(f.items[0]->millicpus, cpus_cases[i].milli);
        }
        spec_file_cleanup(&f);
    }
}

/* Every spelling that validates as a boolean reads as that boolean, in the
 * typed invocation (what the controller acts on) and in the canonical JSON
 * (what `get -o json` shows) alike: `cancel: True` must cancel. */
static void
test_spec_validate_cancel_reads_every_boolean_spelling(void **state)
{
    static const struct {
        const char *text;
        bool want;
    } spellings[] = {
        { "true", true },   { "True", true },   { "TRUE", true },
        { "false", false }, { "False", false }, { "FALSE", false },
    };
    char text[512];

    (void)state;
    for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
        struct spec_file f;
        cJSON *resource;
        const cJSON *spec, *cancel;

        print_message("cancel: %s\n", spellings[i].text);
        snprintf(text, sizeof(text), HEAD "  command: [x]\n  cancel: %s\n",
                 spellings[i].text);
        assert_int_equal(spec_test_load(text, &f), 0);
        assert_int_equal(f.items[0]->cancel, spellings[i].want);
        resource = spec_resource(f.items[0]);
        spec = cJSON_GetObjectItemCaseSensitive(resource, "spec");
        cancel = cJSON_GetObjectItemCaseSensitive(spec, "cancel");
        assert_int_equal(cJSON_IsTrue(cancel), spellings[i].want);
        cJSON_Delete(resource);
        spec_file_cleanup(&f);
    }
}

static void
test_spec_validate_multi_document_and_duplicate_names(void **state)
{
    struct spec_file f;

    (void)state;
    assert_int_equal(spec_test_load(HEAD "  command: [x]\n---\n" HEAD
                                         "  command: [y]\n",
                                    &f),
                     1);
    assert_true(spec_test_has_error(&f, 11, 1, "metadata.name",
                                    "duplicate name \"x\" (also at line 1)"));
    spec_file_cleanup(&f);
}

static void
test_spec_validate_runner_refused_in_planning(void **state)
{
    const char *text = "apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n"
                       "metadata: {name: p}\nspec:\n  vendor: claude\n"
                       "  phase: planning\n  image: a:1\n  deadlineSeconds: 5\n"
                       "  prompt: \"--help\"\n  runner: [make, test]\n";
    struct spec_file f;

    (void)state;
    assert_int_equal(spec_test_load(text, &f), 1);
    assert_true(spec_test_has_error(&f, 10, 11, "spec.runner",
                                    "phase planning has no runner"));
    spec_file_cleanup(&f);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_validate_reports_field_and_position),
        cmocka_unit_test(
            test_spec_validate_reports_every_error_not_only_the_first),
        cmocka_unit_test(test_spec_validate_caps_errors_at_50),
        cmocka_unit_test(test_spec_validate_applies_crd_defaults),
        cmocka_unit_test(test_spec_validate_builds_typed_invocation),
        cmocka_unit_test(test_spec_validate_cpus_fractions),
        cmocka_unit_test(test_spec_validate_cpus_at_least_10m),
        cmocka_unit_test(
            test_spec_validate_cancel_reads_every_boolean_spelling),
        cmocka_unit_test(test_spec_validate_multi_document_and_duplicate_names),
        cmocka_unit_test(test_spec_validate_runner_refused_in_planning),
        cmocka_unit_test(test_spec_validate_vendor_budget_parts),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
