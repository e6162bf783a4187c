/* test_store_terminating.c - store_terminating_list/get on the directory
 * store: a status whose name has no spec is a deleted invocation whose
 * cleanup is pending (Terminating), listed in name order among the specs,
 * with the spec its attempt was captured from when the status has one; a
 * status beside its spec, and a name with neither, are not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spec.h"
#include "store.h"
#include "store_dir_fixture.h"

static void
put_spec(struct store *s, const char *name)
{
    char *t = store_dir_fixture_spec(name, 60);

    assert_int_equal(store_put(s, name, t, strlen(t), NULL, NULL, NULL), 0);
    free(t);
}

static void
put_status(struct store *s, const char *name, const char *json)
{
    assert_int_equal(
        store_doc_put(s, STORE_DOC_STATUS, name, json, strlen(json), NULL), 0);
}

static void
terminating_are_statuses_without_a_spec(void **state)
{
    struct fixture *fx = *state;
    struct store_list l;
    struct store_spec sp;
    struct err e = { 0 };
    static const char captured[] =
        "{\"phase\":\"Running\",\"captured\":{\"apiVersion\":"
        "\"agentctl.dev/v1alpha1\",\"kind\":\"AgentInvocation\","
        "\"metadata\":{\"name\":\"d\"},\"spec\":{\"vendor\":\"fake\","
        "\"phase\":\"execute\",\"image\":\"a:1\",\"command\":[\"x\"],"
        "\"deadlineSeconds\":60}}}";

    put_spec(fx->s, "a");
    put_spec(fx->s, "e");
    put_status(fx->s, "a", "{\"phase\":\"Running\"}");
    put_status(fx->s, "c", "{\"phase\":\"Cancelled\"}");
    put_status(fx->s, "d", captured);
    assert_int_equal(store_list(fx->s, &l, NULL), 0);
    assert_int_equal(store_terminating_list(fx->s, &l, NULL), 0);
    assert_int_equal(l.n, 4);
    assert_string_equal(l.items[0].name, "a");
    assert_false(l.items[0].terminating); /* its spec is there */
    assert_string_equal(l.items[1].name, "c");
    assert_true(l.items[1].terminating);
    assert_null(l.items[1].inv); /* nothing captured */
    assert_null(l.items[1].key);
    assert_string_equal(l.items[2].name, "d");
    assert_true(l.items[2].terminating);
    assert_non_null(l.items[2].inv);
    assert_string_equal(l.items[2].inv->vendor, "fake");
    assert_string_equal(l.items[3].name, "e");
    assert_false(l.items[3].terminating);
    store_list_cleanup(&l);

    assert_int_equal(store_terminating_get(fx->s, "c", &sp, NULL), 0);
    assert_true(sp.terminating);
    store_spec_cleanup(&sp);
    assert_int_equal(store_terminating_get(fx->s, "a", &sp, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND); /* a status beside its spec */
    assert_int_equal(store_terminating_get(fx->s, "e", &sp, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND); /* a spec, no status */
    assert_int_equal(store_terminating_get(fx->s, "zz", &sp, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND); /* neither */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(terminating_are_statuses_without_a_spec,
                                        store_dir_fixture_setup,
                                        store_dir_fixture_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
