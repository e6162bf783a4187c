/* test_rc_desired_storage.c - the storages in the desired
 * state, without Docker: the git metadata volume (/work/.git read-only in
 * the agent in every phase, writable only in the keeper that receives the
 * upload) and, for a prompt spec, the adapter's argv as the Entrypoint,
 * its env, and its config volume read-only at RC_ADAPTER_CONFIG_DIR.
 * Negative controls: no .git, no git volume; a command spec, no config
 * volume and the spec's argv untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfg.h"
#include "rc_desired.h"
#include "spec.h"

#define IMAGEID                                                                \
    "sha256:"                                                                  \
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static const char *const phases[] = { "planning", "questions", "review",
                                      "execute", "fix" };

static struct rc_desired *build_as(const char *vendor, const char *phase,
                                   const char *what, bool git,
                                   const char *agent_user);

static struct rc_desired *
build(const char *vendor, const char *phase, const char *what, bool git)
{
    return build_as(vendor, phase, what, git, NULL);
}

/* The same build with status.agentUser; NULL when it is refused. */
static struct rc_desired *
build_as_fails(const char *agent_user)
{
    static const char cfg_text[] = "vendors: {}\n";
    static const char spec_text[] =
        "apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n"
        "metadata: {name: demo}\nspec:\n  vendor: claude\n  phase: planning\n"
        "  image: a:1\n  command: [a]\n  deadlineSeconds: 60\n";
    struct spec_errors es;
    struct spec_file f;
    struct cfg *cfg = cfg_parse("c.yaml", cfg_text, strlen(cfg_text), &es);
    struct rc_inputs in = { .controller_id = "ctl-a",
                            .uid = "0123abcd-ef45-6789-aaaa-bbbbccccdddd",
                            .image_id = IMAGEID, .agent_user = agent_user };
    struct err e = { 0 };
    struct rc_desired *d;
    struct spec_invocation *inv;

    assert_int_equal(spec_load_buffer("s.yaml", spec_text, strlen(spec_text),
                                      &f),
                     0);
    inv = spec_file_take(&f, 0);
    spec_file_cleanup(&f);
    d = rc_desired_build(inv, cfg, &in, &e);
    if (d == NULL)
        assert_non_null(strstr(e.msg, "not a numeric uid:gid"));
    spec_invocation_free(inv);
    cfg_free(cfg);
    return d;
}

static struct rc_desired *
build_as(const char *vendor, const char *phase, const char *what, bool git,
         const char *agent_user)
{
    static const char cfg_text[] =
        "vendors:\n  acme: {hosts: [\"vendor.test:443\"]}\n";
    char text[2048];
    struct spec_errors es;
    struct spec_file f;
    struct spec_invocation *inv;
    struct cfg *cfg =
        cfg_parse("c.yaml", cfg_text, strlen(cfg_text), &es);
    struct rc_inputs in = { .controller_id = "ctl-a",
                            .uid = "0123abcd-ef45-6789-aaaa-bbbbccccdddd",
                            .image_id = IMAGEID,
                            .subnet_index = 1,
                            .git_metadata = git,
                            .agent_user = agent_user };
    struct err e = { 0 };
    struct rc_desired *d;

    assert_non_null(cfg);
    snprintf(text, sizeof(text),
             "apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n"
             "metadata: {name: demo}\nspec:\n  vendor: %s\n  phase: %s\n"
             "  image: a:1\n  %s\n  deadlineSeconds: 60\n"
             "  workspace: {source: repo, size: 8Mi, inodes: 500}\n",
             vendor, phase, what);
    if (spec_load_buffer("s.yaml", text, strlen(text), &f) != 0) {
        spec_file_print_errors(&f, stderr);
        fail_msg("spec does not load");
    }
    inv = spec_file_take(&f, 0);
    spec_file_cleanup(&f);
    d = rc_desired_build(inv, cfg, &in, &e);
    if (d == NULL)
        fail_msg("build: %s: %s", e.field, e.msg);
    spec_invocation_free(inv);
    cfg_free(cfg);
    return d;
}

/* The mount of `target` in role's body; NULL when there is none. */
static const cJSON *
mount_at(const struct rc_desired *d, enum rc_role role, const char *target)
{
    const cJSON *m;

    cJSON_ArrayForEach(m, rc_json_at(rc_desired_object(d, role)->body,
                                     "/HostConfig/Mounts"))
    {
        if (strcmp(rc_json_at(m, "/Target")->valuestring, target) == 0)
            return m;
    }
    return NULL;
}

static void
test_git_volume_read_only_in_every_phase(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++) {
        struct rc_desired *d = build("acme", phases[i], "command: [a]", true);
        const struct rc_object *g = rc_desired_object(d, RC_ROLE_GIT);
        const cJSON *am = mount_at(d, RC_ROLE_AGENT, RC_GIT_TARGET);
        const cJSON *km = mount_at(d, RC_ROLE_KEEPER, RC_GIT_TARGET);

        assert_non_null(g);
        assert_string_equal(g->name, "agentctl-demo-0123abcd-git");
        assert_int_equal(g->kind, RC_KIND_VOLUME);
        /* the workspace's limits */
        assert_non_null(strstr(rc_json_at(g->body, "/DriverOpts/o")->valuestring,
                               "size=8388608,nr_inodes=500,"));
        assert_non_null(am);
        assert_string_equal(rc_json_at(am, "/Source")->valuestring, g->name);
        assert_true(cJSON_IsTrue(rc_json_at(am, "/ReadOnly")));
        assert_non_null(km);
        assert_true(cJSON_IsFalse(rc_json_at(km, "/ReadOnly")));
        /* /work itself follows the phase */
        assert_int_equal(
            cJSON_IsTrue(rc_json_at(mount_at(d, RC_ROLE_AGENT, "/work"),
                                    "/ReadOnly")),
            strcmp(phases[i], "execute") != 0 && strcmp(phases[i], "fix") != 0);
        rc_desired_free(d);
    }
}

static void
test_no_git_no_volume(void **state)
{
    struct rc_desired *d = build("acme", "execute", "command: [a]", false);

    (void)state;
    assert_null(rc_desired_object(d, RC_ROLE_GIT));
    assert_null(mount_at(d, RC_ROLE_AGENT, RC_GIT_TARGET));
    assert_null(mount_at(d, RC_ROLE_KEEPER, RC_GIT_TARGET));
    assert_null(rc_desired_object(d, RC_ROLE_CONFIG));
    assert_null(d->adapter);
    assert_string_equal(
        rc_json_at(rc_desired_object(d, RC_ROLE_AGENT)->body, "/Entrypoint/0")
            ->valuestring,
        "a");
    rc_desired_free(d);
}

/* Per attempt: the uid that goes with the subnet (agentUidBase + the
 * /24's network bits), so two live boxes never share one; a fixed
 * agentUser for every box when the config sets it. */
static void
test_agent_user_per_attempt(void **state)
{
    static const char dflt[] = "vendors: {}\n";
    static const char fixed[] = "agentUser: \"2000:3000\"\n";
    static const char base[] = "agentUidBase: 70000\nsubnetPool: 10.0.0.0/8\n";
    struct spec_errors es;
    struct cfg *c = cfg_parse("c.yaml", dflt, strlen(dflt), &es);
    char u[RC_USER_MAX], v[RC_USER_MAX];

    (void)state;
    assert_non_null(c);
    assert_int_equal(rc_agent_user_for(c, 5, u, NULL), 0);
    /* 10.213.5.0/24: (10 << 16) + (213 << 8) + 5 = 709893 */
    assert_string_equal(u, "809893:809893");
    assert_int_equal(rc_agent_user_for(c, 6, v, NULL), 0);
    assert_string_not_equal(u, v);
    assert_int_equal(rc_agent_user_for(c, 256, u, NULL), -1); /* past /16 */
    cfg_free(c);
    c = cfg_parse("c.yaml", fixed, strlen(fixed), &es);
    assert_non_null(c);
    assert_int_equal(rc_agent_user_for(c, 5, u, NULL), 0);
    assert_string_equal(u, "2000:3000");
    cfg_free(c);
    c = cfg_parse("c.yaml", base, strlen(base), &es);
    assert_non_null(c);
    assert_int_equal(rc_agent_user_for(c, 65535, u, NULL), 0);
    assert_string_equal(u, "790895:790895"); /* 10.255.255.0: 70000 + 720895 */
    cfg_free(c);
}

/* The recorded user is the agent's and the keeper's, and owns the
 * volumes; a user that is not numeric, or root's, is refused. */
static void
test_agent_user_recorded(void **state)
{
    struct rc_desired *d = build_as("acme", "execute", "command: [a]", false,
                                    "154533:154533");
    const cJSON *ws = rc_desired_object(d, RC_ROLE_WORKSPACE)->body;

    (void)state;
    assert_string_equal(d->agent_user, "154533:154533");
    assert_int_equal(d->agent_uid, 154533);
    assert_string_equal(
        rc_json_at(rc_desired_object(d, RC_ROLE_AGENT)->body, "/User")
            ->valuestring,
        "154533:154533");
    assert_string_equal(
        rc_json_at(rc_desired_object(d, RC_ROLE_KEEPER)->body, "/User")
            ->valuestring,
        "154533:154533");
    assert_non_null(strstr(rc_json_at(ws, "/DriverOpts/o")->valuestring,
                           "uid=154533,gid=154533"));
    rc_desired_free(d);
    assert_null(build_as_fails("0:0"));
    assert_null(build_as_fails("x:1"));
    assert_null(build_as_fails("5"));
}

static void
test_prompt_spec_uses_the_adapter(void **state)
{
    struct rc_desired *d = build("claude", "review",
                                 "prompt: \"--help me\"\n  runner: [make, test]",
                                 false);
    const cJSON *agent = rc_desired_object(d, RC_ROLE_AGENT)->body;
    const cJSON *ep = rc_json_at(agent, "/Entrypoint");
    const cJSON *cm = mount_at(d, RC_ROLE_AGENT, RC_ADAPTER_CONFIG_DIR);
    int n = cJSON_GetArraySize(ep);
    const char *pol;
    char *env;

    (void)state;
    assert_non_null(d->adapter);
    assert_int_equal((size_t)n, d->adapter->argc);
    /* the launcher first, then the CLI */
    assert_string_equal(cJSON_GetArrayItem(ep, 0)->valuestring, RC_LAUNCH_BIN);
    assert_string_equal(cJSON_GetArrayItem(ep, 4)->valuestring, "claude");
    /* the option-like prompt is the last argument, after "--" */
    assert_string_equal(cJSON_GetArrayItem(ep, n - 1)->valuestring, "--help me");
    assert_string_equal(cJSON_GetArrayItem(ep, n - 2)->valuestring, "--");
    assert_null(rc_json_at(agent, "/Cmd"));
    /* the adapter's env reaches the agent */
    env = cJSON_PrintUnformatted(rc_json_at(agent, "/Env"));
    assert_non_null(strstr(env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"));
    free(env);
    /* its config files live on a read-only volume of their own */
    assert_non_null(rc_desired_object(d, RC_ROLE_CONFIG));
    assert_non_null(cm);
    assert_true(cJSON_IsTrue(rc_json_at(cm, "/ReadOnly")));
    assert_true(cJSON_IsFalse(rc_json_at(
        mount_at(d, RC_ROLE_KEEPER, RC_ADAPTER_CONFIG_DIR), "/ReadOnly")));
    assert_non_null(strstr(d->adapter->summary, "make test"));
    /* the launcher's policy has the config's proxy port and runner bounds */
    pol = d->adapter->files[d->adapter->n_files - 1].content;
    assert_non_null(strstr(pol, "\nconnect 3128\n"));
    assert_non_null(strstr(pol, "\nrunner-timeout 600\n"));
    assert_non_null(strstr(pol, "\nrunner-max-bytes 1048576\n"));
    assert_non_null(strstr(pol, "\nlandlock required\n"));
    rc_desired_free(d);

    /* generic adapter: the launcher's policy alone needs the volume */
    d = build("acme", "planning", "prompt: fix it", false);
    assert_non_null(rc_desired_object(d, RC_ROLE_CONFIG));
    assert_string_equal(d->adapter->adapter, "generic");
    rc_desired_free(d);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_git_volume_read_only_in_every_phase),
        cmocka_unit_test(test_no_git_no_volume),
        cmocka_unit_test(test_agent_user_per_attempt),
        cmocka_unit_test(test_agent_user_recorded),
        cmocka_unit_test(test_prompt_spec_uses_the_adapter),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
