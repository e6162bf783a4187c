/* test_rc_drift_ids.c - identity: the ID behind an object's
 * name is the recorded one. When the recorded ID answers 404 the
 * controller inspects the name and rc_drift_check_missing() judges it: a
 * stand-in with identical attributes (the captured fixture itself, only
 * its Id another) is network.id / container.id naming both IDs, and
 * nothing else is looked at; nothing under the name is object.gone; the
 * recorded object found by name after all is no finding. Each finding is
 * off with its rule in disabled_rules (the negative control of
 * tests/integration/drift/test_drift_standin.sh).
 *
 * The fixture is the one of test_rc_drift.c (drift_fixture.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drift_fixture.h"
#include "rc_drift.h"

#define Q "\""

static const char *
fixture_id(const struct drift_fx *fx, enum rc_role role)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(fx->obj[role], "Id");

    assert_true(cJSON_IsString(id));
    return id->valuestring;
}

/* What the controller passes for a missing object: its recorded ID. */
static void
recorded(const struct drift_fx *fx, enum rc_role role,
         struct rc_drift_expect *x)
{
    memset(x, 0, sizeof(*x));
    if (fx->obj[role] != NULL)
        x->id = fixture_id(fx, role);
}

/* The fixture with another Id: a stand-in identical in every attribute. */
static cJSON *
standin_of(const struct drift_fx *fx, enum rc_role role)
{
    cJSON *s = cJSON_Duplicate(fx->obj[role], true);

    assert_non_null(s);
    cJSON_ReplaceItemInObjectCaseSensitive(s, "Id",
                                           cJSON_CreateString(OTHER_ID));
    return s;
}

static void
assert_only(const struct rc_drift_report *r, const char *rule)
{
    int bit = rc_drift_rule_by_id(rule);

    assert_true(bit >= 0);
    assert_string_equal(r->rule, rule);
    assert_int_equal(r->count, 1);
    assert_true(rc_drift_set_has(&r->drifted, (size_t)bit));
}

/* ---- a stand-in under the name ----------------------------------------- */

static void
test_network_standin(void **state)
{
    struct drift_fx *fx = *state;
    struct rc_drift_expect x;
    struct rc_drift_report r;
    cJSON *s = standin_of(fx, RC_ROLE_NETWORK);

    recorded(fx, RC_ROLE_NETWORK, &x);
    assert_int_equal(rc_drift_check_missing(fx->d, RC_ROLE_NETWORK, s, &x, &r),
                     1);
    print_message("%s\n", r.message);
    assert_only(&r, "network.id");
    assert_int_equal(r.role, RC_ROLE_NETWORK);
    assert_string_equal(r.object, "agentctl-driftfx-5eedf00d-net");
    assert_string_equal(r.field, "Id");
    assert_string_equal(r.expected, Q NET_ID Q);
    assert_string_equal(r.observed, Q OTHER_ID Q);
    /* the message names the object, both IDs and what was done */
    assert_non_null(
        strstr(r.message, "network agentctl-driftfx-5eedf00d-net:"));
    assert_non_null(strstr(r.message, NET_ID));
    assert_non_null(strstr(r.message, OTHER_ID));
    assert_non_null(strstr(r.message, "stand-in"));
    assert_non_null(strstr(r.message, "left in place"));
    cJSON_Delete(s);
}

/* Every container role; a stand-in that differs elsewhere too is still
 * reported by its ID alone (it is not ours, whatever it copied), and no
 * image config is needed to say so. */
static void
test_container_standins(void **state)
{
    static const enum rc_role roles[] = { RC_ROLE_PROXY, RC_ROLE_KEEPER,
                                          RC_ROLE_AGENT };
    struct drift_fx *fx = *state;

    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
        struct rc_drift_expect x;
        struct rc_drift_report r;
        cJSON *s = standin_of(fx, roles[i]);
        cJSON *rp = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(s, "HostConfig"), "RestartPolicy");

        recorded(fx, roles[i], &x);
        assert_int_equal(rc_drift_check_missing(fx->d, roles[i], s, &x, &r), 1);
        assert_only(&r, "container.id");
        assert_int_equal(r.role, roles[i]);
        assert_non_null(strstr(r.message, fixture_id(fx, roles[i])));
        assert_non_null(strstr(r.message, OTHER_ID));
        assert_non_null(
            strstr(r.message, rc_desired_object(fx->d, roles[i])->name));
        assert_null(strstr(r.message, SECRET));
        cJSON_ReplaceItemInObjectCaseSensitive(rp, "Name",
                                               cJSON_CreateString("always"));
        assert_int_equal(rc_drift_check_missing(fx->d, roles[i], s, &x, &r), 1);
        assert_only(&r, "container.id");
        cJSON_Delete(s);
    }
}

/* The name answers with the recorded ID after all (the 404 was a race):
 * nothing to report here, the caller checks it like any inspect. */
static void
test_recorded_after_all(void **state)
{
    struct drift_fx *fx = *state;
    struct rc_drift_expect x;
    struct rc_drift_report r;

    recorded(fx, RC_ROLE_PROXY, &x);
    assert_int_equal(rc_drift_check_missing(fx->d, RC_ROLE_PROXY,
                                            fx->obj[RC_ROLE_PROXY], &x, &r),
                     0);
    assert_int_equal(r.count, 0);
    assert_null(r.rule);
}

/* ---- nothing under the name -------------------------------------------- */

static void
test_gone(void **state)
{
    struct drift_fx *fx = *state;
    struct rc_drift_expect x;
    struct rc_drift_report r;

    recorded(fx, RC_ROLE_KEEPER, &x);
    assert_int_equal(
        rc_drift_check_missing(fx->d, RC_ROLE_KEEPER, NULL, &x, &r), 1);
    print_message("%s\n", r.message);
    assert_only(&r, "object.gone");
    assert_string_equal(r.field, "Id");
    assert_string_equal(r.observed, "null");
    assert_non_null(strstr(r.message,
                           "keeper agentctl-driftfx-5eedf00d-keeper: "
                           "removed behind the controller's back"));
    /* the recorded ID, short */
    assert_non_null(strstr(r.message, "(recorded ID 968347883e13 is gone"));
    recorded(fx, RC_ROLE_NETWORK, &x);
    assert_int_equal(
        rc_drift_check_missing(fx->d, RC_ROLE_NETWORK, NULL, &x, &r), 1);
    assert_only(&r, "object.gone");
    assert_non_null(strstr(r.message, "3a9063d4ead6"));
}

/* A volume has no ID: it is inspected by name, and a 404 is object.gone. */
static void
test_volume_gone(void **state)
{
    struct drift_fx *fx = *state;
    struct rc_drift_expect x;
    struct rc_drift_report r;

    memset(&x, 0, sizeof(x));
    assert_int_equal(
        rc_drift_check_missing(fx->d, RC_ROLE_WORKSPACE, NULL, &x, &r), 1);
    assert_only(&r, "object.gone");
    assert_string_equal(r.field, "Name");
    assert_string_equal(r.expected, "\"agentctl-driftfx-5eedf00d-ws\"");
    assert_string_equal(
        r.message, "workspace agentctl-driftfx-5eedf00d-ws: removed behind "
                   "the controller's back (nothing is under its name)");
}

/* ---- the test-only switches -------------------------------------------- */

static void
test_switched_off(void **state)
{
    struct drift_fx *fx = *state;
    struct rc_drift_expect x;
    struct rc_drift_report r;
    cJSON *net = standin_of(fx, RC_ROLE_NETWORK);
    cJSON *ctr = standin_of(fx, RC_ROLE_PROXY);

    recorded(fx, RC_ROLE_NETWORK, &x);
    memset(&x.disabled_rules, 0, sizeof(x.disabled_rules));
    rc_drift_set_add(&x.disabled_rules, (size_t)rc_drift_rule_by_id("network.id"));
    assert_int_equal(
        rc_drift_check_missing(fx->d, RC_ROLE_NETWORK, net, &x, &r), 0);
    assert_int_equal(r.count, 0);
    /* ... and only that one: nothing there is still object.gone */
    assert_int_equal(
        rc_drift_check_missing(fx->d, RC_ROLE_NETWORK, NULL, &x, &r), 1);
    assert_only(&r, "object.gone");
    recorded(fx, RC_ROLE_PROXY, &x);
    memset(&x.disabled_rules, 0, sizeof(x.disabled_rules));
    rc_drift_set_add(&x.disabled_rules,
                     (size_t)rc_drift_rule_by_id("container.id"));
    assert_int_equal(rc_drift_check_missing(fx->d, RC_ROLE_PROXY, ctr, &x, &r),
                     0);
    memset(&x.disabled_rules, 0, sizeof(x.disabled_rules));
    rc_drift_set_add(&x.disabled_rules,
                     (size_t)rc_drift_rule_by_id("object.gone"));
    assert_int_equal(rc_drift_check_missing(fx->d, RC_ROLE_PROXY, NULL, &x, &r),
                     0);
    assert_int_equal(rc_drift_check_missing(fx->d, RC_ROLE_PROXY, ctr, &x, &r),
                     1);
    assert_only(&r, "container.id");
    cJSON_Delete(net);
    cJSON_Delete(ctr);
}

/* ---- the rule table and the arguments ---------------------------------- */

/* object.gone applies to every object and never fires on an inspect that
 * answered; the ID rules are the only rules of comparison "Id". */
static void
test_table(void **state)
{
    struct drift_fx *fx = *state;
    int gone = rc_drift_rule_by_id("object.gone");
    struct rc_drift_expect x;
    struct rc_drift_report r;

    assert_true(gone >= 0 && gone < 64);
    for (int role = 0; role < RC_ROLE_COUNT; role++)
        assert_true(rc_drift_rule_at((size_t)gone)->roles &
                    RC_DRIFT_ROLE(role));
    assert_true(rc_drift_rule_by_id("network.id") >= 0);
    assert_true(rc_drift_rule_by_id("container.id") >= 0);
    recorded(fx, RC_ROLE_PROXY, &x);
    x.id = PROXY_ID;
    x.image_id = "sha256:x";
    x.image_config =
        cJSON_GetObjectItemCaseSensitive(fx->obj[RC_ROLE_PROXY], "Config");
    /* rc_drift_check on an object that answered: object.gone never fires */
    rc_drift_check(fx->d, RC_ROLE_PROXY, fx->obj[RC_ROLE_PROXY], &x, &r);
    assert_false(rc_drift_set_has(&r.drifted, (size_t)gone));
}

static void
test_bad_arguments(void **state)
{
    struct drift_fx *fx = *state;
    struct rc_drift_expect x;
    struct rc_drift_report r;
    cJSON *arr = cJSON_CreateArray();
    const cJSON *net = fx->obj[RC_ROLE_NETWORK];

    recorded(fx, RC_ROLE_NETWORK, &x);
    assert_int_equal(rc_drift_check_missing(NULL, RC_ROLE_NETWORK, net, &x, &r),
                     -1);
    assert_int_equal(
        rc_drift_check_missing(fx->d, RC_ROLE_NETWORK, net, NULL, &r), -1);
    assert_int_equal(
        rc_drift_check_missing(fx->d, RC_ROLE_NETWORK, net, &x, NULL), -1);
    assert_int_equal(
        rc_drift_check_missing(fx->d, RC_ROLE_NETWORK, arr, &x, &r), -1);
    assert_int_equal(rc_drift_check_missing(fx->d, (enum rc_role)RC_ROLE_COUNT,
                                            NULL, &x, &r),
                     -1);
    /* the fixture spec has no .git: no git volume */
    assert_int_equal(rc_drift_check_missing(fx->d, RC_ROLE_GIT, NULL, &x, &r),
                     -1);
    /* a volume is inspected by name already */
    assert_int_equal(
        rc_drift_check_missing(fx->d, RC_ROLE_WORKSPACE, net, &x, &r), -1);
    /* a container or network needs its recorded ID */
    x.id = NULL;
    assert_int_equal(
        rc_drift_check_missing(fx->d, RC_ROLE_NETWORK, NULL, &x, &r), -1);
    assert_int_equal(rc_drift_check_missing(fx->d, RC_ROLE_PROXY, NULL, &x, &r),
                     -1);
    cJSON_Delete(arr);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_network_standin),
        cmocka_unit_test(test_container_standins),
        cmocka_unit_test(test_recorded_after_all),
        cmocka_unit_test(test_gone),
        cmocka_unit_test(test_volume_gone),
        cmocka_unit_test(test_switched_off),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_bad_arguments),
    };

    return cmocka_run_group_tests(tests, drift_fx_setup, drift_fx_teardown);
}
