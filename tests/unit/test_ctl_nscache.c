/* test_ctl_nscache.c - the neighbours' namespace-mode cache
 * (controller/drift/drift_nscache.h): what is put is found by its ID and only
 * by it, a mode Docker did not give stays NULL, the first answer for an
 * ID stands (the modes are create-time), and past CTL_NSCACHE_MAX the
 * cache starts over instead of growing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "drift_nscache.h"

static void
id_of(char out[65], unsigned n)
{
    snprintf(out, 65, "%064x", n);
}

static void
test_put_get(void **state)
{
    struct drift_nscache *c = NULL;
    const struct drift_ns_modes *m;
    char a[65], b[65];

    (void)state;
    id_of(a, 1);
    id_of(b, 2);
    assert_null(drift_nscache_get(c, a)); /* none made yet */
    assert_int_equal(drift_nscache_put(&c, a, "container:abc", "private"), 0);
    assert_int_equal(drift_nscache_put(&c, b, NULL, "shareable"), 0);
    m = drift_nscache_get(c, a);
    assert_non_null(m);
    assert_string_equal(m->pid_mode, "container:abc");
    assert_string_equal(m->ipc_mode, "private");
    m = drift_nscache_get(c, b);
    assert_non_null(m);
    assert_null(m->pid_mode);
    assert_string_equal(m->ipc_mode, "shareable");
    assert_null(drift_nscache_get(c, "0123")); /* a prefix is no ID */

    /* the first answer stands */
    assert_int_equal(drift_nscache_put(&c, a, "", ""), 0);
    assert_string_equal(drift_nscache_get(c, a)->pid_mode, "container:abc");
    drift_nscache_free(c);
}

static void
test_starts_over_past_max(void **state)
{
    struct drift_nscache *c = NULL;
    char id[65];

    (void)state;
    for (unsigned i = 0; i < CTL_NSCACHE_MAX; i++) {
        id_of(id, i);
        assert_int_equal(drift_nscache_put(&c, id, "", "private"), 0);
    }
    for (unsigned i = 0; i < CTL_NSCACHE_MAX; i++) {
        id_of(id, i);
        assert_non_null(drift_nscache_get(c, id));
    }
    id_of(id, CTL_NSCACHE_MAX);
    assert_int_equal(drift_nscache_put(&c, id, "host", NULL), 0);
    assert_string_equal(drift_nscache_get(c, id)->pid_mode, "host");
    id_of(id, 0);
    assert_null(drift_nscache_get(c, id)); /* the rest were dropped */
    drift_nscache_free(c);
    drift_nscache_free(NULL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get),
        cmocka_unit_test(test_starts_over_past_max),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
