/* test_spec_json.c - canonical JSON and the spec hash are stable under
 * formatting and change with meaning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "spec_test_util.h"

static void
hash_of(const char *text, char out[65])
{
    struct spec_file f;

    assert_int_equal(spec_test_load(text, &f), 0);
    memcpy(out, f.items[0]->spec_hash, 65);
    spec_file_cleanup(&f);
}

#define MINI(extra)                                                         \
    "apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n"            \
    "metadata: {name: m}\nspec:\n  vendor: claude\n  phase: review\n"       \
    "  image: a:1\n  command: [a, b]\n  deadlineSeconds: 60\n" extra

static void
test_spec_json_is_sorted_compact_and_exact(void **state)
{
    struct spec_file f;
    char *text;

    (void)state;
    assert_int_equal(spec_test_load(MINI("  env: {Z: '1', A: '2'}\n"), &f), 0);
    text = spec_canonical_spec(f.items[0]);
    assert_string_equal(
        text, "{\"attempt\":\"1\",\"cancel\":false,\"command\":[\"a\",\"b\"],"
              "\"deadlineSeconds\":60,\"env\":{\"A\":\"2\",\"Z\":\"1\"},"
              "\"image\":\"a:1\",\"output\":{\"maxBytes\":1048576},"
              "\"phase\":\"review\",\"resources\":{\"cpus\":\"1\","
              "\"memory\":\"1Gi\",\"pids\":256},\"scratch\":{\"inodes\":"
              "10000,\"size\":\"64Mi\"},\"vendor\":\"claude\"}");
    cJSON_free(text);
    spec_file_cleanup(&f);
}

static void
test_spec_json_hash_ignores_order_comments_and_spelled_defaults(void **state)
{
    char a[65], b[65], c[65];

    (void)state;
    hash_of(MINI(""), a);
    hash_of("# a comment\n"
            "kind: AgentInvocation\napiVersion: agentctl.dev/v1alpha1\n"
            "metadata: {name: m, labels: {x: y}}\nspec:\n"
            "  deadlineSeconds: 60\n  command: [\"a\", 'b']\n"
            "  image: a:1\n  phase: review\n  vendor: claude\n"
            "  attempt: \"1\"\n  cancel: false\n"
            "  output: {maxBytes: 1048576}\n",
            b);
    assert_string_equal(a, b);
    hash_of(MINI("  cancel: true\n"), c);
    assert_string_not_equal(a, c);
    assert_int_equal(strlen(a), 64);
}

static void
test_spec_json_resource_has_kubernetes_shape(void **state)
{
    struct spec_file f;
    cJSON *r;

    (void)state;
    assert_int_equal(spec_test_load(SPEC_TEST_FULL, &f), 0);
    r = spec_resource(f.items[0]);
    assert_string_equal(cJSON_GetObjectItem(r, "apiVersion")->valuestring,
                        "agentctl.dev/v1alpha1");
    assert_string_equal(cJSON_GetObjectItem(r, "kind")->valuestring,
                        "AgentInvocation");
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(r, "metadata"), "name")
            ->valuestring,
        "fix-login-bug");
    assert_non_null(cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(r, "metadata"), "labels"),
        "team"));
    cJSON_Delete(r);
    spec_file_cleanup(&f);
}

/* A spec keeps its resource as text; the tree made from it again prints
 * the same text: integers short enough for a double (cJSON's parser) and
 * longer ones (the spec parser: cJSON_Parse would print
 * 999999999999999999 as 1e+18). */
static void
test_spec_json_resource_tree_prints_its_text(void **state)
{
    static const char *const bytes[] = { "1Gi", "4294967296",
                                         "99999999999999",
                                         "999999999999999999" };
    const char *at = strstr(SPEC_TEST_FULL, "bytes: 1Gi");
    char text[2048], want[64];
    struct spec_file f;
    cJSON *r;
    char *again;

    (void)state;
    assert_non_null(at);
    for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++) {
        print_message("bytes: %s\n", bytes[i]);
        snprintf(text, sizeof(text), "%.*sbytes: %s%s",
                 (int)(at - SPEC_TEST_FULL), SPEC_TEST_FULL, bytes[i],
                 at + strlen("bytes: 1Gi"));
        assert_int_equal(spec_test_load(text, &f), 0);
        r = spec_resource(f.items[0]);
        assert_non_null(r);
        again = cJSON_PrintUnformatted(r);
        snprintf(want, sizeof(want), i == 0 ? "\"bytes\":\"%s\"" : "\"bytes\":%s",
                 bytes[i]);
        assert_non_null(strstr(again, want));
        assert_string_equal(again, f.items[0]->resource_json);
        cJSON_free(again);
        cJSON_Delete(r);
        spec_file_cleanup(&f);
    }
}

/* vendorBudget survives the JSON form a store keeps: the resource printed
 * as JSON loads again to the same values and the same hash, and the
 * canonical spec keeps a quantity as written. */
static void
test_spec_json_vendor_budget_round_trips(void **state)
{
    struct spec_file f, g;
    const struct spec_invocation *a, *b;
    char *json, *canon;

    (void)state;
    assert_int_equal(spec_test_load(SPEC_TEST_FULL, &f), 0);
    a = f.items[0];
    canon = spec_canonical_spec(a);
    assert_non_null(strstr(canon, "\"vendorBudget\":{\"bytes\":\"1Gi\","
                                  "\"requests\":100}"));
    json = strdup(a->resource_json);
    assert_int_equal(spec_test_load(json, &g), 0);
    b = g.items[0];
    assert_true(b->has_vendor_budget);
    assert_int_equal(b->vendor_requests, 100);
    assert_int_equal(b->vendor_bytes, 1ULL << 30);
    assert_string_equal(a->spec_hash, b->spec_hash);
    cJSON_free(canon);
    free(json);
    spec_file_cleanup(&f);
    spec_file_cleanup(&g);
}

static void
test_spec_json_sha256_known_vector(void **state)
{
    char out[65];

    (void)state;
    spec_sha256_hex("abc", 3, out);
    assert_string_equal(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9c"
                             "b410ff61f20015ad");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_json_is_sorted_compact_and_exact),
        cmocka_unit_test(
            test_spec_json_hash_ignores_order_comments_and_spelled_defaults),
        cmocka_unit_test(test_spec_json_resource_has_kubernetes_shape),
        cmocka_unit_test(test_spec_json_resource_tree_prints_its_text),
        cmocka_unit_test(test_spec_json_vendor_budget_round_trips),
        cmocka_unit_test(test_spec_json_sha256_known_vector),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
