/* test_rc_desired_warm.c - the waiting agent of a warm box
 * (plan/rc_desired_warm.c, docs/warm-pool.md "The waiting agent"): the
 * waiting body is the ordinary agent body with only the Entrypoint (the
 * launcher in wait mode), Env (none), WorkingDir and the nonce label
 * changed; the order holds exactly what the ordinary body ran and the
 * policy file its launcher read, and agent-launch's own parser (images/launch_order.c)
 * accepts it with that nonce and refuses it with another; a command spec
 * cannot wait; the key (credentialMode env) leaves the body for the
 * order, whose tar is the agent's, mode 0400. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "cfg.h"
#include "launch_order.h"
#include "rc_adapter.h"
#include "rc_desired.h"
#include "spec.h"

#define SECRET  "sk-WARM-TEST-0a1b2c3d4e5f"
#define NONCE   "00112233445566778899aabbccddeeff"
#define IMAGEID                                                                \
    "sha256:"                                                                  \
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static const char cfg_env[] =
    "vendors:\n"
    "  claude: {hosts: [\"llm.vendor.test:443\"],\n"
    "           credentialEnv: ANTHROPIC_API_KEY, credentialMode: env}\n";

#define SPEC_FMT                                                               \
    "apiVersion: agentctl.dev/v1alpha1\n"                                      \
    "kind: AgentInvocation\n"                                                  \
    "metadata: {name: demo}\n"                                                 \
    "spec:\n"                                                                  \
    "  vendor: claude\n"                                                       \
    "  phase: execute\n"                                                       \
    "  image: my-agent:1\n"                                                    \
    "  %s\n"                                                                   \
    "  credential: key\n"                                                      \
    "  env: {FOO: bar}\n"                                                      \
    "  scratch: {size: 64Mi, inodes: 10000}\n"                                 \
    "  resources: {memory: 1Gi, cpus: \"1\", pids: 256}\n"                     \
    "  deadlineSeconds: 600\n"                                                 \
    "  attempt: a1\n"

struct fx {
    struct cfg *cfg;
    struct spec_invocation *inv;
    struct rc_desired *d;
};

static struct rc_desired *
fx_build(struct fx *f, const char *what)
{
    char text[1024];
    struct spec_file sf;
    struct spec_errors es;
    struct rc_inputs in = { 0 };
    struct err e = { 0 };

    f->cfg = cfg_parse("c.yaml", cfg_env, strlen(cfg_env), &es);
    assert_non_null(f->cfg);
    snprintf(text, sizeof(text), SPEC_FMT, what);
    assert_int_equal(spec_load_buffer("s.yaml", text, strlen(text), &sf), 0);
    f->inv = spec_file_take(&sf, 0);
    spec_file_cleanup(&sf);
    in.controller_id = "ctl-a";
    in.uid = "0123abcd-ef45-6789-aaaa-bbbbccccdddd";
    in.image_id = IMAGEID;
    in.subnet_index = 3;
    in.credential = SECRET;
    for (int h = 0; h < RC_HELPER_COUNT; h++)
        in.helper_image_ids[h] = IMAGEID;
    in.helper_image_ids[RC_HELPER_GATEWAY] = NULL;
    f->d = rc_desired_build(f->inv, f->cfg, &in, &e);
    if (f->d == NULL)
        fail_msg("build: %s: %s", e.field, e.msg);
    return f->d;
}

static void
fx_free(struct fx *f)
{
    rc_desired_free(f->d);
    spec_invocation_free(f->inv);
    cfg_free(f->cfg);
}

static cJSON *
agent_body(const struct rc_desired *d)
{
    return rc_desired_object(d, RC_ROLE_AGENT)->body;
}

static void
assert_json_equal(const cJSON *a, const cJSON *b)
{
    char *x = cJSON_PrintUnformatted(a), *y = cJSON_PrintUnformatted(b);

    assert_non_null(x);
    assert_non_null(y);
    assert_string_equal(x, y);
    cJSON_free(x);
    cJSON_free(y);
}

/* Only the four fields change; the order is what the body ran. */
static void
test_waiting_body_and_order(void **state)
{
    struct fx plain, warm;
    struct err e = { 0 };
    cJSON *want, *entry, *labels;
    const cJSON *o;
    int n;

    (void)state;
    fx_build(&plain, "prompt: hello");
    fx_build(&warm, "prompt: hello");
    assert_int_equal(rc_desired_wait(warm.d, NONCE, 600, &e), 0);
    entry = cJSON_GetObjectItem(agent_body(plain.d), "Entrypoint");
    o = warm.d->order;
    /* the order */
    assert_int_equal(cJSON_GetObjectItem(o, "version")->valueint, 1);
    assert_string_equal(cJSON_GetObjectItem(o, "nonce")->valuestring, NONCE);
    assert_string_equal(cJSON_GetObjectItem(o, "workdir")->valuestring,
                        cJSON_GetObjectItem(agent_body(plain.d),
                                            "WorkingDir")->valuestring);
    assert_json_equal(cJSON_GetObjectItem(o, "env"),
                      cJSON_GetObjectItem(agent_body(plain.d), "Env"));
    /* the policy file the plain agent's launcher read, as uploaded */
    for (size_t i = 0; i < plain.d->adapter->n_files; i++)
        if (strcmp(plain.d->adapter->files[i].path, RC_LAUNCH_POLICY) == 0)
            assert_string_equal(cJSON_GetObjectItem(o, "policy")->valuestring,
                                plain.d->adapter->files[i].content);
    assert_non_null(strstr(cJSON_GetObjectItem(o, "policy")->valuestring,
                           "landlock "));
    n = cJSON_GetArraySize(entry);
    assert_string_equal(cJSON_GetArrayItem(entry, 3)->valuestring, "--");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "argv")), n - 4);
    for (int i = 4; i < n; i++)
        assert_string_equal(
            cJSON_GetArrayItem(cJSON_GetObjectItem(o, "argv"), i - 4)
                ->valuestring,
            cJSON_GetArrayItem(entry, i)->valuestring);
    /* the body: the plain one with the four fields changed, else equal */
    want = cJSON_Duplicate(agent_body(plain.d), 1);
    {
        const char *w[] = { RC_LAUNCH_BIN, "--wait",         RC_ORDER_FILE,
                            "--order-nonce", NONCE, "--wait-seconds", "600" };

        cJSON_ReplaceItemInObject(want, "Entrypoint",
                                  cJSON_CreateStringArray(w, 7));
    }
    cJSON_ReplaceItemInObject(want, "Env", cJSON_CreateArray());
    cJSON_ReplaceItemInObject(want, "WorkingDir", cJSON_CreateString("/tmp"));
    labels = cJSON_GetObjectItem(want, "Labels");
    cJSON_AddStringToObject(labels, RC_LABEL_ORDER_NONCE, NONCE);
    assert_json_equal(want, agent_body(warm.d));
    cJSON_Delete(want);
    /* the config volume, where the order goes, is read-only in the agent */
    {
        char *t = cJSON_PrintUnformatted(
            cJSON_GetObjectItem(agent_body(warm.d), "HostConfig"));

        assert_non_null(strstr(t, "\"Target\":\"" RC_ADAPTER_CONFIG_DIR
                                  "\",\"ReadOnly\":true"));
        cJSON_free(t);
    }
    /* once only */
    assert_int_equal(rc_desired_wait(warm.d, NONCE, 600, &e), -1);
    fx_free(&plain);
    fx_free(&warm);
}

/* The launcher's own parser takes the order the plan writes, with the
 * create-time nonce, and refuses it with another (the two halves agree). */
static void
test_launcher_accepts_the_order(void **state)
{
    struct fx f;
    struct err e = { 0 };
    struct launch_order lo;
    char why[256], *text;

    (void)state;
    fx_build(&f, "prompt: hello");
    assert_int_equal(rc_desired_wait(f.d, NONCE, 600, &e), 0);
    text = cJSON_PrintUnformatted(f.d->order);
    assert_int_equal(launch_order_parse(text, strlen(text), NONCE, &lo, why,
                                        sizeof(why)), 0);
    assert_string_equal(lo.argv[0], "claude");
    assert_string_equal(lo.workdir, "/tmp");
    assert_non_null(memmem(lo.policy, lo.policy_len, "landlock ", 9));
    launch_order_cleanup(&lo);
    assert_int_equal(launch_order_parse(text, strlen(text),
                                        "ffeeddccbbaa99887766554433221100",
                                        &lo, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "nonce: not the one"));
    cJSON_free(text);
    fx_free(&f);
}

static void
test_refusals(void **state)
{
    struct fx f;
    struct err e = { 0 };

    (void)state;
    fx_build(&f, "command: [/agent]");
    assert_int_equal(rc_desired_wait(f.d, NONCE, 600, &e), -1);
    assert_non_null(strstr(e.msg, "does not start in agent-launch"));
    assert_null(f.d->order);
    fx_free(&f);
    fx_build(&f, "prompt: hello");
    assert_int_equal(rc_desired_wait(f.d, "0011", 600, &e), -1);
    assert_non_null(strstr(e.msg, "order nonce"));
    assert_int_equal(rc_desired_wait(f.d, NONCE "X", 600, &e), -1);
    assert_int_equal(rc_desired_wait(f.d, NONCE, 0, &e), -1);
    assert_non_null(strstr(e.msg, "wait: 0 s"));
    assert_int_equal(rc_desired_wait(f.d, NONCE, 86401, &e), -1);
    assert_null(f.d->order);
    fx_free(&f);
}

/* credentialMode env: the key was in the plain body (the negative
 * control of the search), it is in the order only once waiting, and the
 * order's tar is the agent's, 0400. */
static void
test_key_moves_to_the_order(void **state)
{
    struct fx f;
    struct err e = { 0 };
    struct buf tar;
    char *body;

    (void)state;
    buf_init(&tar, 1 << 20);
    fx_build(&f, "prompt: hello");
    body = cJSON_PrintUnformatted(agent_body(f.d));
    assert_non_null(strstr(body, SECRET));
    assert_true(rc_desired_object(f.d, RC_ROLE_AGENT)->sensitive);
    cJSON_free(body);
    assert_int_equal(rc_desired_order_tar(f.d, &tar, &e), -1); /* no order */
    assert_int_equal(rc_desired_wait(f.d, NONCE, 60, &e), 0);
    body = cJSON_PrintUnformatted(agent_body(f.d));
    assert_null(strstr(body, SECRET));
    assert_false(rc_desired_object(f.d, RC_ROLE_AGENT)->sensitive);
    cJSON_free(body);
    assert_int_equal(rc_desired_order_tar(f.d, &tar, &e), 0);
    assert_true(tar.len % 512 == 0 && tar.len >= 3 * 512);
    assert_string_equal(tar.data, RC_ORDER_FILE_NAME);
    assert_memory_equal(tar.data + 100, "0000400", 7); /* mode */
    {
        char uid[8];

        snprintf(uid, sizeof(uid), "%07o", (unsigned)f.d->agent_uid);
        assert_memory_equal(tar.data + 108, uid, 7);
    }
    assert_non_null(memmem(tar.data + 512, tar.len - 512, SECRET,
                           strlen(SECRET)));
    explicit_bzero(tar.data, tar.len);
    buf_cleanup(&tar);
    fx_free(&f);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waiting_body_and_order),
        cmocka_unit_test(test_launcher_accepts_the_order),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_key_moves_to_the_order),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
