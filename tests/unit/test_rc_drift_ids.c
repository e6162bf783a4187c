/* test_rc_drift_ids.c - identity (issue 5): the ID behind an object's
 * name is the recorded one. When the recorded ID answers 404 the
 * controller inspects the name and rc_drift_check_missing() judges it: a
 * stand-in with identical attributes (the captured fixture itself, only
 * its Id another) is network.id / container.id naming both IDs, and
 * nothing else is looked at; nothing under the name is object.gone; the
 * recorded object found by name after all is no finding. Each finding is
 * off with its rule's bit in disabled_rules (the negative control of
 * tests/integration/drift/test_drift_standin.sh).
 *
 * The fixtures and the spec are those of test_rc_drift.c
 * (tests/unit/fixtures/drift/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctl_config.h"
#include "rc_desired.h"
#include "rc_drift.h"
#include "spec.h"

#define SECRET "FAKE-cred-not-a-secret-0000"
#define PROXY_ID                                                               \
    "2d0e76472d09ff85d80a488d6a29d600a11dd2217c13998c3033e269a5a67e99"
#define NET_ID                                                                 \
    "3a9063d4ead6c0dadeb89226b357190becabf3793a10365ff1fcccecc7eafb86"
#define OTHER_ID                                                               \
    "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
#define AGENT_IMAGE                                                            \
    "sha256:a2ba02a51fbc089b4c2be476972fd3b030f600740b70d8b8e99fd320140d8268"
#define Q "\""

static const char cfg_text[] =
    "vendors:\n"
    "  fake: {hosts: [\"vendor.test:443\"], credentialEnv: FAKE_API_KEY, "
    "allowPrivate: true}\n"
    "egressNetwork: agentctl-driftfx-egress\n"
    "subnetPool: 10.250.0.0/16\n";

static const char spec_text[] =
    "apiVersion: agentctl.dev/v1alpha1\n"
    "kind: AgentInvocation\n"
    "metadata: {name: driftfx}\n"
    "spec:\n"
    "  vendor: fake\n"
    "  phase: execute\n"
    "  image: agentctl/demo-agent:0.1.0\n"
    "  command: [/demo-agent, --write-work, --sleep, \"300\"]\n"
    "  env: {LOG_LEVEL: debug}\n"
    "  workspace: {source: repos/web, size: 8Mi, inodes: 1000}\n"
    "  credential: fk\n"
    "  scratch: {size: 16Mi, inodes: 1000}\n"
    "  resources: {memory: 256Mi, cpus: \"0.5\", pids: 64}\n"
    "  deadlineSeconds: 600\n"
    "  output: {maxBytes: 1048576}\n"
    "  attempt: a1\n";

static const char *const fixture_file[RC_ROLE_COUNT] = {
    [RC_ROLE_NETWORK] = "network.json",
    [RC_ROLE_PROXY] = "proxy.json",
    [RC_ROLE_KEEPER] = "keeper.json",
    [RC_ROLE_AGENT] = "agent.json",
};

struct fx {
    struct ctl_config *cfg;
    struct spec_invocation *inv;
    struct rc_desired *d;
    cJSON *obj[RC_ROLE_COUNT];
};

static cJSON *
read_fixture(const char *name)
{
    const char *root = getenv("AGENTCTL_SOURCE_DIR");
    char path[1024], *text;
    cJSON *j;
    FILE *f;
    long n;

    snprintf(path, sizeof(path), "%s/tests/unit/fixtures/drift/%s",
             root ? root : TEST_SOURCE_DIR, name);
    f = fopen(path, "rb");
    if (f == NULL)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    j = cJSON_Parse(text);
    free(text);
    if (j == NULL)
        fail_msg("%s is not JSON", path);
    return j;
}

static int
group_setup(void **state)
{
    struct fx *fx = calloc(1, sizeof(*fx));
    struct spec_errors es;
    struct spec_file f;
    struct err e = { 0 };
    struct rc_inputs in = {
        .controller_id = "ctl-fx",
        .uid = "5eedf00d-0000-4000-8000-000000000001",
        .image_id = AGENT_IMAGE,
        .subnet_index = 7,
        .credential = SECRET,
    };

    assert_non_null(fx);
    fx->cfg = ctl_config_parse("c.yaml", cfg_text, strlen(cfg_text), &es);
    assert_non_null(fx->cfg);
    if (spec_load_buffer("s.yaml", spec_text, strlen(spec_text), &f) != 0)
        fail_msg("fixture spec does not load");
    fx->inv = spec_file_take(&f, 0);
    spec_file_cleanup(&f);
    fx->d = rc_desired_build(fx->inv, fx->cfg, &in, &e);
    if (fx->d == NULL)
        fail_msg("build: %s: %s", e.field, e.msg);
    for (int r = 0; r < RC_ROLE_COUNT; r++)
        if (fixture_file[r] != NULL)
            fx->obj[r] = read_fixture(fixture_file[r]);
    *state = fx;
    return 0;
}

static int
group_teardown(void **state)
{
    struct fx *fx = *state;

    for (int r = 0; r < RC_ROLE_COUNT; r++)
        cJSON_Delete(fx->obj[r]);
    rc_desired_free(fx->d);
    spec_invocation_free(fx->inv);
    ctl_config_free(fx->cfg);
    free(fx);
    return 0;
}

static const char *
fixture_id(const struct fx *fx, enum rc_role role)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(fx->obj[role], "Id");

    assert_true(cJSON_IsString(id));
    return id->valuestring;
}

/* What the controller passes for a missing object: its recorded ID. */
static void
recorded(const struct fx *fx, enum rc_role role, struct rc_drift_expect *x)
{
    memset(x, 0, sizeof(*x));
    if (fx->obj[role] != NULL)
        x->id = fixture_id(fx, role);
}

/* The fixture with another Id: a stand-in identical in every attribute. */
static cJSON *
standin_of(const struct fx *fx, enum rc_role role)
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
    assert_true(r->drifted == (1ull << bit));
}

/* ---- a stand-in under the name ----------------------------------------- */

static void
test_network_standin(void **state)
{
    struct fx *fx = *state;
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
    struct fx *fx = *state;

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
    struct fx *fx = *state;
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
    struct fx *fx = *state;
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
    struct fx *fx = *state;
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
    struct fx *fx = *state;
    struct rc_drift_expect x;
    struct rc_drift_report r;
    cJSON *net = standin_of(fx, RC_ROLE_NETWORK);
    cJSON *ctr = standin_of(fx, RC_ROLE_PROXY);

    recorded(fx, RC_ROLE_NETWORK, &x);
    x.disabled_rules = 1ull << rc_drift_rule_by_id("network.id");
    assert_int_equal(
        rc_drift_check_missing(fx->d, RC_ROLE_NETWORK, net, &x, &r), 0);
    assert_int_equal(r.count, 0);
    /* ... and only that one: nothing there is still object.gone */
    assert_int_equal(
        rc_drift_check_missing(fx->d, RC_ROLE_NETWORK, NULL, &x, &r), 1);
    assert_only(&r, "object.gone");
    recorded(fx, RC_ROLE_PROXY, &x);
    x.disabled_rules = 1ull << rc_drift_rule_by_id("container.id");
    assert_int_equal(rc_drift_check_missing(fx->d, RC_ROLE_PROXY, ctr, &x, &r),
                     0);
    x.disabled_rules = 1ull << rc_drift_rule_by_id("object.gone");
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
    struct fx *fx = *state;
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
    assert_true((r.drifted & (1ull << gone)) == 0);
}

static void
test_bad_arguments(void **state)
{
    struct fx *fx = *state;
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

    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
