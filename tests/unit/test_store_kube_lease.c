/* test_store_kube_lease.c - the Lease JSON of the API server store's
 * claims (store_kube_lease_obj.c): MicroTime both ways, a controller's
 * Lease held, renewed and expired (renewTime + leaseDurationSeconds <
 * now), a term that moved on, and an invocation's claim taken, read back
 * and released, with its owner reference; the rules the blocking and
 * the non-blocking claims share (store_kube_claim_async.c): a grant's
 * term, a claim's verdict (take, fence, held; was_free for NodeLost),
 * the fence of an expired holder's Lease, a release of ours only. */
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
        store__kube_str(
            cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(c, "metadata"), "annotations"),
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

/* The Lease of holder "a", term 3, renewed at T0 for 6 s. */
static cJSON *
held_lease(void)
{
    cJSON *l = store__kube_lease_new("agentctl-controller-a");
    struct err e = { 0 };

    assert_non_null(l);
    assert_int_equal(store__kube_lease_hold(l, "a", 6, 3, T0, true, &e), 0);
    return l;
}

static void
test_grant_next(void **state)
{
    cJSON *read = held_lease(), *l;
    struct err e = { 0 };
    int64_t term = 0;
    bool create = false;

    (void)state;
    /* none yet: created, term 1 */
    l = store__kube_grant_next(NULL, "a", 6, T0, &term, &create, &e);
    assert_non_null(l);
    assert_true(create);
    assert_int_equal(term, 1);
    assert_string_equal(store__kube_str(l, "metadata", "name"),
                        "agentctl-controller-a");
    assert_true(store__kube_lease_live(l, "a", 1, T0));
    cJSON_Delete(l);
    /* still live (a restart within the TTL): the same term, its claims */
    l = store__kube_grant_next(read, "a", 6, T0 + 5, &term, &create, &e);
    assert_false(create);
    assert_int_equal(term, 3);
    assert_true(store__kube_lease_live(l, "a", 3, T0 + 10));
    cJSON_Delete(l);
    /* expired: the next term, every claim of term 3 is free */
    l = store__kube_grant_next(read, "a", 6, T0 + 7, &term, &create, &e);
    assert_int_equal(term, 4);
    assert_true(store__kube_lease_live(l, "a", 4, T0 + 7));
    cJSON_Delete(l);
    /* the read is left as it was (the caller's) */
    assert_int_equal(store__kube_lease_term(read), 3);
    cJSON_Delete(read);
}

static void
test_claim_verdict(void **state)
{
    /* a claim held by who under term, asked for by asker at T0 + dt, with
     * a's Lease (term 3, renewed at T0 for 6 s) or none */
    static const struct {
        bool lease;
        const char *who;
        int64_t term;
        const char *asker;
        bool check;
        double dt;
        enum store_kube_verdict want;
        bool was_free;
    } cases[] = {
        /* nobody's: taken, was free */
        { false, NULL, 0, "b", true, 0, STORE_KUBE_CLAIM_TAKE, true },
        /* a's Lease lives: held, whoever asks but a */
        { true, "a", 3, "b", true, 1, STORE_KUBE_CLAIM_HELD, false },
        /* a itself (restarted within its TTL): its own, not free */
        { true, "a", 3, "a", true, 1, STORE_KUBE_CLAIM_TAKE, false },
        /* expired, or of an older term: fence a's Lease first, was free */
        { true, "a", 3, "b", true, 7, STORE_KUBE_CLAIM_FENCE, true },
        { true, "a", 2, "b", true, 1, STORE_KUBE_CLAIM_FENCE, true },
        /* a's Lease gone: fence (nothing there to PUT), free */
        { false, "a", 3, "b", true, 0, STORE_KUBE_CLAIM_FENCE, true },
        /* the negative control: holders not checked, every claim free */
        { true, "a", 3, "b", false, 1, STORE_KUBE_CLAIM_TAKE, true },
    };
    cJSON *hl = held_lease();

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool was_free = !cases[i].was_free;

        assert_int_equal(store__kube_claim_verdict(
                             cases[i].lease ? hl : NULL, cases[i].who,
                             cases[i].term, cases[i].asker, cases[i].check,
                             T0 + cases[i].dt, &was_free),
                         cases[i].want);
        assert_true(was_free == cases[i].was_free);
    }
    cJSON_Delete(hl);
}

static void
test_fence(void **state)
{
    cJSON *hl = held_lease();
    struct err e = { 0 };

    (void)state;
    /* renewed (lives): not fenced, the claim is not taken */
    assert_int_equal(store__kube_fence_lease(hl, "a", 3, T0 + 1, &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
    /* another term by now: nothing of term 2 to fence */
    assert_int_equal(store__kube_fence_lease(hl, "a", 2, T0 + 7, &e), 0);
    /* expired: holderIdentity "", so a's renewal in flight gets 409 */
    assert_int_equal(store__kube_fence_lease(hl, "a", 3, T0 + 7, &e), 1);
    assert_string_equal(
        store__kube_str(cJSON_GetObjectItemCaseSensitive(hl, "spec"),
                        "holderIdentity", NULL),
        "");
    assert_false(store__kube_lease_live(hl, "a", 3, T0));
    /* fenced already: nothing left */
    assert_int_equal(store__kube_fence_lease(hl, "a", 3, T0 + 7, &e), 0);
    cJSON_Delete(hl);
}

static void
test_claim_ours(void **state)
{
    cJSON *c = store__kube_lease_new("agentctl-claim-web");
    struct err e = { 0 };

    (void)state;
    assert_false(store__kube_claim_ours(c, "a", 3)); /* nobody's */
    assert_int_equal(store__kube_claim_set(c, "a", 3, T0, &e), 0);
    assert_true(store__kube_claim_ours(c, "a", 3));
    assert_false(store__kube_claim_ours(c, "a", 4)); /* an older term's */
    assert_false(store__kube_claim_ours(c, "b", 3)); /* another's */
    cJSON_Delete(c);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_microtime),
        cmocka_unit_test(test_controller_lease),
        cmocka_unit_test(test_claim),
        cmocka_unit_test(test_grant_next),
        cmocka_unit_test(test_claim_verdict),
        cmocka_unit_test(test_fence),
        cmocka_unit_test(test_claim_ours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
