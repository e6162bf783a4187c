/* test_store_kube_lease.c - the Lease JSON of the API server store's
 * claims (store_kube_lease_obj.c): MicroTime both ways, a controller's
 * Lease held, renewed and expired (renewTime + leaseDurationSeconds <
 * now), a term that moved on, and an invocation's claim taken, read back
 * and released, with its owner reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "store_kube_int.h"

#define T0 1796682600.25 /* 2026-12-07T22:30:00.25Z */

static void
test_microtime(void **state)
{
    char s[48];
    double t = 0;

    (void)state;
    assert_int_equal(store__kube_microtime(T0, s, sizeof(s)), 0);
    assert_string_equal(s, "2026-12-07T22:30:00.250000Z");
    assert_int_equal(store__kube_parse_time(s, &t), 0);
    assert_true(t > T0 - 1e-6 && t < T0 + 1e-6);
    assert_int_equal(store__kube_parse_time("2026-12-07T22:30:00Z", &t), 0);
    assert_true(t == 1796682600.0);
    assert_int_equal(store__kube_parse_time("2026-12-07T22:30:00+01:00", &t),
                     -1);
    assert_int_equal(store__kube_parse_time("yesterday", &t), -1);
    assert_int_equal(store__kube_parse_time(NULL, &t), -1);
    assert_int_equal(store__kube_microtime(T0, s, 10), -1);
}

static void
test_controller_lease(void **state)
{
    cJSON *l = store__kube_lease_new("agentctl-controller-a");
    const cJSON *spec;
    struct err e = { 0 };

    (void)state;
    assert_non_null(l);
    assert_int_equal(store__kube_lease_hold(l, "a", 6, 3, T0, true, &e), 0);
    spec = cJSON_GetObjectItemCaseSensitive(l, "spec");
    assert_string_equal(store__kube_str(l, "kind", NULL), "Lease");
    assert_string_equal(store__kube_str(l, "apiVersion", NULL),
                        "coordination.k8s.io/v1");
    assert_string_equal(store__kube_str(spec, "holderIdentity", NULL), "a");
    assert_string_equal(store__kube_str(spec, "acquireTime", NULL),
                        "2026-12-07T22:30:00.250000Z");
    assert_int_equal(store__kube_lease_term(l), 3);
    /* live up to renewTime + 6 s, for its holder and term only */
    assert_true(store__kube_lease_live(l, "a", 3, T0 + 6));
    assert_false(store__kube_lease_live(l, "a", 3, T0 + 6.5));
    assert_false(store__kube_lease_live(l, "b", 3, T0));
    assert_false(store__kube_lease_live(l, "a", 2, T0));
    /* a renewal moves renewTime, not acquireTime */
    assert_int_equal(store__kube_lease_hold(l, "a", 6, 3, T0 + 5, false, &e),
                     0);
    assert_true(store__kube_lease_live(l, "a", 3, T0 + 10));
    assert_string_equal(store__kube_str(spec, "acquireTime", NULL),
                        "2026-12-07T22:30:00.250000Z");
    /* no renewTime or duration: never live */
    cJSON_DeleteItemFromObjectCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(l, "spec"), "renewTime");
    assert_false(store__kube_lease_live(l, "a", 3, T0));
    cJSON_Delete(l);
}

static void
test_claim(void **state)
{
    cJSON *c = store__kube_lease_new("agentctl-claim-web");
    const cJSON *ref;
    struct err e = { 0 };
    int64_t term = -1;

    (void)state;
    assert_null(store__kube_claim_holder_of(c, &term)); /* new: nobody's */
    assert_int_equal(store__kube_claim_owner(c, "web", "uid-1", &e), 0);
    ref = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(c, "metadata"), "ownerReferences"),
        0);
    assert_string_equal(store__kube_str(ref, "kind", NULL), "AgentInvocation");
    assert_string_equal(store__kube_str(ref, "uid", NULL), "uid-1");
    assert_int_equal(store__kube_claim_set(c, "a", 7, T0, &e), 0);
    assert_string_equal(store__kube_claim_holder_of(c, &term), "a");
    assert_int_equal(term, 7);
    assert_string_equal(
        store__kube_str(cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetObjectItemCaseSensitive(c, "metadata"),
                            "annotations"),
                        STORE_KUBE_TERM_ANNOTATION, NULL),
        "7");
    /* taken over by another controller: holder and term replaced */
    assert_int_equal(store__kube_claim_set(c, "b", 2, T0 + 9, &e), 0);
    assert_string_equal(store__kube_claim_holder_of(c, &term), "b");
    assert_int_equal(term, 2);
    /* released: free, holderIdentity "" */
    assert_int_equal(store__kube_claim_set(c, NULL, 0, 0, &e), 0);
    assert_null(store__kube_claim_holder_of(c, &term));
    assert_string_equal(
        store__kube_str(cJSON_GetObjectItemCaseSensitive(c, "spec"),
                        "holderIdentity", NULL),
        "");
    cJSON_Delete(c);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_microtime),
        cmocka_unit_test(test_controller_lease),
        cmocka_unit_test(test_claim),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
