/* test_store_claims.c - the claim seam without an etcd: the directory
 * store has no claims (every call a no-op, so one controller owns all, as
 * before), and the etcd store tells "cannot reach etcd" (ERR_UNAVAIL) apart
 * from "the lease expired" (ERR_NOTFOUND): only the second may make a
 * controller stop its agents. The live behaviour is in
 * tests/integration/scaleout/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"

static void
test_dir_has_no_claims(void **state)
{
    char dir[64] = "/tmp/test_store_claims.XXXXXX", holder[64];
    struct store *s;
    int64_t lease = 7;
    struct err e;

    (void)state;
    assert_non_null(mkdtemp(dir));
    s = store_dir_open(dir, NULL, &e);
    assert_non_null(s);
    assert_false(store_has_claims(s));
    assert_int_equal(store_lease_grant(s, 5, &lease, &e), 0);
    assert_int_equal(lease, 0);
    assert_int_equal(store_lease_keepalive(s, lease, &e), 0);
    assert_int_equal(store_claim(s, "a", "ctl-a", lease, &e), 0);
    assert_int_equal(store_claim(s, "a", "ctl-b", lease, &e), 0);
    assert_int_equal(store_release(s, "a", lease, &e), 0);
    assert_int_equal(store_claim_holder(s, "a", holder, sizeof(holder), &e),
                     -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
    /* a name that is not a DNS-1123 label never becomes a key */
    assert_int_equal(store_claim(s, "../x", "ctl-a", lease, &e), -1);
    assert_int_equal(e.code, ERR_INVALID);
    {
        struct store_claim_item it[] = { { .name = "a" },
                                         { .name = "../x" },
                                         { .name = "b", .release = true } };

        store_claim_many(s, "ctl-a", lease, it, 3);
        assert_int_equal(it[0].rc, 0);
        assert_true(it[0].was_free);
        assert_int_equal(it[1].rc, -1); /* that item alone */
        assert_int_equal(it[1].err.code, ERR_INVALID);
        assert_int_equal(it[2].rc, 0);
    }
    store_close(s);
    {
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        assert_int_equal(system(cmd), 0);
    }
}

/* Port 1 on loopback: nothing listens there. */
static void
test_etcd_unreachable_is_not_expiry(void **state)
{
    struct store *s;
    char holder[64];
    int64_t lease = 0;
    struct err e;

    (void)state;
    s = store_etcd_open("http://127.0.0.1:1", "/t", "/tmp", &e);
    assert_non_null(s);
    assert_true(store_has_claims(s));
    assert_int_equal(store_lease_grant(s, 5, &lease, &e), -1);
    assert_int_equal(e.code, ERR_UNAVAIL);
    assert_int_equal(store_lease_keepalive(s, 42, &e), -1);
    assert_int_equal(e.code, ERR_UNAVAIL); /* not ERR_NOTFOUND */
    assert_int_equal(store_claim(s, "a", "ctl-a", 42, &e), -1);
    assert_int_equal(e.code, ERR_UNAVAIL); /* not ERR_CONFLICT */
    assert_int_equal(store_claim_holder(s, "a", holder, sizeof(holder), &e),
                     -1);
    assert_int_equal(e.code, ERR_UNAVAIL); /* not "nobody holds it" */
    assert_int_equal(store_release(s, "a", 42, &e), -1);
    assert_int_equal(store_claim(s, "Bad_Name", "ctl-a", 42, &e), -1);
    assert_int_equal(e.code, ERR_INVALID);
    {
        struct store_claim_item it[] = { { .name = "a" },
                                         { .name = "b", .release = true } };

        store_claim_many(s, "ctl-a", 42, it, 2);
        for (size_t i = 0; i < 2; i++) { /* each told, none a conflict */
            assert_int_equal(it[i].rc, -1);
            assert_int_equal(it[i].err.code, ERR_UNAVAIL);
        }
    }
    store_close(s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dir_has_no_claims),
        cmocka_unit_test(test_etcd_unreachable_is_not_expiry),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
