/* test_rc_desired_gateway.c - the desired state of an attempt whose vendor
 * is in credentialMode gateway (docs/gateway.md "The controller's side"):
 * the gateway's create body (flags, user, address, the key volume
 * read-only, the proxy's hardening), the key volume (0500 for 65534) in
 * the keeper only, the proxy's --deny-all, the agent's environment (a
 * placeholder, the base URL, NO_PROXY) and no body holding the key, the
 * budget from the spec or the config, codex's base URL flag, and the key
 * tar byte for byte. Negative control: the same spec in env mode puts the
 * key in the agent's Env, where the "no body holds the key" search finds
 * it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "cfg.h"
#include "rc_desired.h"
#include "spec.h"

#define SECRET "sk-GATEWAY-TEST-0a1b2c3d4e5f"
#define IMAGEID                                                                \
    "sha256:"                                                                  \
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define GWIMAGE                                                                \
    "sha256:"                                                                  \
    "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define UID "0123abcd-ef45-6789-aaaa-bbbbccccdddd"
#define PFX "agentctl-demo-0123abcd"

static const char cfg_gateway[] =
    "vendors:\n"
    "  claude:\n"
    "    hosts: [\"llm.vendor.test:443\"]\n"
    "    credentialEnv: ANTHROPIC_API_KEY\n"
    "    allowPrivate: true\n"
    "    credentialMode: gateway\n"
    "    gateway: {authHeader: x-api-key, allow: [\"POST /v1/messages\"],\n"
    "              baseUrlEnv: ANTHROPIC_BASE_URL}\n"
    "  codex:\n"
    "    hosts: [\"api.openai.com:443\"]\n"
    "    credentialEnv: CODEX_API_KEY\n"
    "    credentialMode: gateway\n"
    "    gateway: {authHeader: bearer, allow: [\"POST /v1/responses\"],\n"
    "              allowServerTools: [web_search], allowBetas: [b1]}\n"
    "limits: {maxVendorRequests: 500, maxVendorBytes: 1Gi}\n";

static const char cfg_env[] =
    "vendors:\n"
    "  claude: {hosts: [\"llm.vendor.test:443\"],\n"
    "           credentialEnv: ANTHROPIC_API_KEY, credentialMode: env,"
    "           allowPrivate: true}\n";

#define SPEC_FMT                                                               \
    "apiVersion: agentctl.dev/v1alpha1\n"                                      \
    "kind: AgentInvocation\n"                                                  \
    "metadata: {name: demo}\n"                                                 \
    "spec:\n"                                                                  \
    "  vendor: %s\n"                                                           \
    "  phase: execute\n"                                                       \
    "  image: my-agent:1\n"                                                    \
    "  %s\n"                                                                   \
    "%s"                                                                       \
    "  scratch: {size: 64Mi, inodes: 10000}\n"                                 \
    "  resources: {memory: 1Gi, cpus: \"1\", pids: 256}\n"                     \
    "  deadlineSeconds: 600\n"                                                 \
    "  attempt: a1\n"                                                          \
    "%s"

struct fx {
    struct cfg *cfg;
    struct spec_invocation *inv;
    struct rc_desired *d;
};

/* The inputs of a capture with credential secret, every helper pinned. */
static void
fx_inputs(struct rc_inputs *in, const char *secret)
{
    memset(in, 0, sizeof(*in));
    in->controller_id = "ctl-a";
    in->uid = UID;
    in->image_id = IMAGEID;
    in->subnet_index = 3;
    in->credential = secret;
    for (int h = 0; h < RC_HELPER_COUNT; h++)
        in->helper_image_ids[h] = GWIMAGE;
}

/* The desired state of a spec of vendor with `what` (its command or
 * prompt) and extra lines, with the credential SECRET, or none when
 * secret is NULL. */
static void
fx_build_key(struct fx *f, const char *cfg, const char *vendor,
             const char *what, const char *extra, const char *secret)
{
    char text[2048];
    struct spec_file sf;
    struct spec_errors es;
    struct rc_inputs in = { 0 };
    struct err e = { 0 };

    f->cfg = cfg_parse("c.yaml", cfg, strlen(cfg), &es);
    assert_non_null(f->cfg);
    snprintf(text, sizeof(text), SPEC_FMT, vendor, what,
             secret ? "  credential: key\n" : "", extra);
    if (spec_load_buffer("s.yaml", text, strlen(text), &sf) != 0) {
        spec_file_print_errors(&sf, stderr);
        fail_msg("test spec does not load");
    }
    f->inv = spec_file_take(&sf, 0);
    spec_file_cleanup(&sf);
    fx_inputs(&in, secret);
    /* pinned as a capture pins them: the gateway's for a gateway vendor */
    for (int h = 0; h < RC_HELPER_COUNT; h++)
        if (!rc_helper_needed(cfg_find_vendor(f->cfg, vendor),
                              (enum rc_helper)h))
            in.helper_image_ids[h] = NULL;
    f->d = rc_desired_build(f->inv, f->cfg, &in, &e);
    if (f->d == NULL)
        fail_msg("build: %s: %s", e.field, e.msg);
}

static void
fx_build(struct fx *f, const char *cfg, const char *vendor, const char *what,
         const char *extra)
{
    fx_build_key(f, cfg, vendor, what, extra, SECRET);
}

static void
fx_free(struct fx *f)
{
    rc_desired_free(f->d);
    spec_invocation_free(f->inv);
    cfg_free(f->cfg);
}

/* A key the gateway could not send in a header is refused when the
 * attempt is planned, naming the credential, never quoting the key; in
 * env mode the same key goes into the agent's Env as before. */
static void
test_key_the_gateway_cannot_send(void **state)
{
    static const char *const bad[] = { "two words", "tab\there", "k\x7f" };
    struct fx f;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct rc_inputs in;
        struct err e = { 0 };

        fx_build(&f, cfg_gateway, "claude", "command: [/agent]", "");
        fx_inputs(&in, bad[i]);
        assert_null(rc_desired_build(f.inv, f.cfg, &in, &e));
        assert_string_equal(e.field, "spec.credential");
        assert_non_null(strstr(e.msg, "cannot go into a header"));
        assert_null(strstr(e.msg, bad[i]));
        fx_free(&f);
    }
}

static char *
body_text(const struct rc_desired *d, enum rc_role r)
{
    const struct rc_object *o = rc_desired_object(d, r);

    return o != NULL ? cJSON_PrintUnformatted(o->body) : NULL;
}

static const char *
str_at(const struct rc_desired *d, enum rc_role r, const char *ptr)
{
    const cJSON *j = rc_json_at(rc_desired_object(d, r)->body, ptr);

    return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* true when the string array at ptr of role r's body holds s. */
static bool
has_str(const struct rc_desired *d, enum rc_role r, const char *ptr,
        const char *s)
{
    const cJSON *it;

    cJSON_ArrayForEach(it, rc_json_at(rc_desired_object(d, r)->body, ptr))
    {
        if (cJSON_IsString(it) && strcmp(it->valuestring, s) == 0)
            return true;
    }
    return false;
}

/* Any create body holds the key. */
static bool
some_body_holds_key(const struct rc_desired *d)
{
    for (int r = 0; r < RC_ROLE_COUNT; r++) {
        char *t = body_text(d, (enum rc_role)r);
        bool hit = t != NULL && strstr(t, SECRET) != NULL;

        free(t);
        if (hit)
            return true;
    }
    return false;
}

static void
test_gateway_body(void **state)
{
    struct fx f;
    char *t;

    (void)state;
    fx_build(&f, cfg_gateway, "claude", "command: [/agent]", "");
    assert_string_equal(rc_desired_object(f.d, RC_ROLE_GATEWAY)->name,
                        PFX "-gateway");
    assert_string_equal(f.d->gateway_ip, "10.213.3.5");
    assert_string_equal(f.d->gateway_url, "http://10.213.3.5:8080");
    t = body_text(f.d, RC_ROLE_GATEWAY);
    assert_non_null(
        strstr(t, "\"Cmd\":[\"--listen\",\"10.213.3.5:8080\",\"--upstream\","
                  "\"llm.vendor.test:443\",\"--key-file\","
                  "\"/run/agentctl/gateway/api-key\",\"--auth-header\","
                  "\"x-api-key\",\"--allow\",\"POST /v1/messages\","
                  "\"--max-requests\",\"500\",\"--max-bytes\",\"1073741824\","
                  "\"--allow-private\",\"--body-policy\",\"anthropic\"]"));
    free(t);
    assert_string_equal(str_at(f.d, RC_ROLE_GATEWAY, "/Image"), GWIMAGE);
    assert_string_equal(str_at(f.d, RC_ROLE_GATEWAY, "/User"), "65534:65534");
    assert_string_equal(str_at(f.d, RC_ROLE_GATEWAY, "/HostConfig/NetworkMode"),
                        PFX "-net");
    assert_true(
        cJSON_IsTrue(rc_json_at(rc_desired_object(f.d, RC_ROLE_GATEWAY)->body,
                                "/HostConfig/ReadonlyRootfs")));
    assert_true(has_str(f.d, RC_ROLE_GATEWAY, "/HostConfig/CapDrop", "ALL"));
    assert_string_equal(str_at(f.d, RC_ROLE_GATEWAY,
                               "/NetworkingConfig/EndpointsConfig/" PFX
                               "-net/IPAMConfig/IPv4Address"),
                        "10.213.3.5");
    /* its one mount: the key volume, read-only */
    assert_string_equal(
        str_at(f.d, RC_ROLE_GATEWAY, "/HostConfig/Mounts/0/Source"),
        PFX "-gwkey");
    assert_true(
        cJSON_IsTrue(rc_json_at(rc_desired_object(f.d, RC_ROLE_GATEWAY)->body,
                                "/HostConfig/Mounts/0/ReadOnly")));
    assert_null(rc_json_at(rc_desired_object(f.d, RC_ROLE_GATEWAY)->body,
                           "/HostConfig/Mounts/1"));
    fx_free(&f);
}

static void
test_key_volume_and_proxy(void **state)
{
    struct fx f;
    const cJSON *m;
    bool keeper_rw = false;

    (void)state;
    fx_build(&f, cfg_gateway, "claude", "command: [/agent]", "");
    assert_non_null(strstr(str_at(f.d, RC_ROLE_KEY, "/DriverOpts/o"),
                           "uid=65534,gid=65534,mode=0500"));
    cJSON_ArrayForEach(m,
                       rc_json_at(rc_desired_object(f.d, RC_ROLE_KEEPER)->body,
                                  "/HostConfig/Mounts"))
    {
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(m, "Source");

        if (strcmp(src->valuestring, PFX "-gwkey") == 0)
            keeper_rw =
                cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(m, "ReadOnly"));
    }
    assert_true(keeper_rw);
    cJSON_ArrayForEach(m,
                       rc_json_at(rc_desired_object(f.d, RC_ROLE_AGENT)->body,
                                  "/HostConfig/Mounts"))
    {
        assert_string_not_equal(
            cJSON_GetObjectItemCaseSensitive(m, "Source")->valuestring,
            PFX "-gwkey");
    }
    /* the proxy lets nothing through: the gateway is the only way */
    assert_true(has_str(f.d, RC_ROLE_PROXY, "/Cmd", "--deny-all"));
    assert_false(has_str(f.d, RC_ROLE_PROXY, "/Cmd", "--allow"));
    assert_false(has_str(f.d, RC_ROLE_PROXY, "/Cmd", "--allow-private"));
    fx_free(&f);
}

static void
test_agent_env_and_no_key_anywhere(void **state)
{
    struct fx f;

    (void)state;
    fx_build(&f, cfg_gateway, "claude", "command: [/agent]", "");
    assert_true(has_str(f.d, RC_ROLE_AGENT, "/Env",
                        "ANTHROPIC_API_KEY=" RC_GATEWAY_PLACEHOLDER));
    assert_true(has_str(f.d, RC_ROLE_AGENT, "/Env",
                        "ANTHROPIC_BASE_URL=http://10.213.3.5:8080"));
    assert_true(has_str(f.d, RC_ROLE_AGENT, "/Env", "NO_PROXY=10.213.3.5"));
    assert_true(has_str(f.d, RC_ROLE_AGENT, "/Env", "no_proxy=10.213.3.5"));
    assert_false(rc_desired_object(f.d, RC_ROLE_AGENT)->sensitive);
    assert_false(some_body_holds_key(f.d));
    fx_free(&f);
    /* control: env mode puts it in the agent's Env, and the search sees it */
    fx_build(&f, cfg_env, "claude", "command: [/agent]", "");
    assert_null(rc_desired_object(f.d, RC_ROLE_GATEWAY));
    assert_null(rc_desired_object(f.d, RC_ROLE_KEY));
    assert_true(some_body_holds_key(f.d));
    assert_true(has_str(f.d, RC_ROLE_PROXY, "/Cmd", "--allow"));
    fx_free(&f);
}

static void
test_budget_from_the_spec(void **state)
{
    struct fx f;
    char *t;

    (void)state;
    fx_build(&f, cfg_gateway, "claude", "command: [/agent]",
             "  vendorBudget: {requests: 7}\n");
    t = body_text(f.d, RC_ROLE_GATEWAY);
    /* the spec's requests, the config's bytes */
    assert_non_null(strstr(t, "\"--max-requests\",\"7\",\"--max-bytes\","
                              "\"1073741824\""));
    free(t);
    fx_free(&f);
}

/* A token budget: the spec's, else the config's cap; none, no flag (the
 * command an older version gave the gateway, test_gateway_body). */
static void
test_token_budget(void **state)
{
    static const char cfg_tokens[] =
        "vendors:\n"
        "  claude:\n"
        "    hosts: [\"llm.vendor.test:443\"]\n"
        "    credentialMode: gateway\n"
        "    gateway: {allow: [\"POST /v1/messages\"]}\n"
        "limits: {maxVendorTokens: 5000}\n";
    struct fx f;
    char *t;

    (void)state;
    fx_build(&f, cfg_gateway, "claude", "command: [/agent]",
             "  vendorBudget: {tokens: 900}\n");
    t = body_text(f.d, RC_ROLE_GATEWAY);
    assert_non_null(strstr(t, "\"--max-requests\",\"500\",\"--max-bytes\","
                              "\"1073741824\",\"--max-tokens\",\"900\","));
    free(t);
    fx_free(&f);
    fx_build(&f, cfg_tokens, "claude", "command: [/agent]", "");
    t = body_text(f.d, RC_ROLE_GATEWAY);
    assert_non_null(strstr(t, "\"--max-tokens\",\"5000\""));
    assert_null(strstr(t, "--max-requests"));
    free(t);
    fx_free(&f);
}

static void
test_codex_base_url_flag(void **state)
{
    struct fx f;
    char *t;

    (void)state;
    fx_build(&f, cfg_gateway, "codex", "prompt: hello", "");
    /* a provider of its own: the gateway's URL, and no WebSocket */
    assert_true(has_str(f.d, RC_ROLE_AGENT, "/Entrypoint",
                        "model_provider=\"agentctl-gateway\""));
    assert_true(has_str(
        f.d, RC_ROLE_AGENT, "/Entrypoint",
        "model_providers.agentctl-gateway={name=\"agentctl gateway\","
        "base_url=\"http://10.213.3.5:8080/v1\",wire_api=\"responses\","
        "supports_websockets=false}"));
    assert_true(has_str(f.d, RC_ROLE_AGENT, "/Env",
                        "CODEX_API_KEY=" RC_GATEWAY_PLACEHOLDER));
    assert_true(has_str(f.d, RC_ROLE_GATEWAY, "/Cmd", "bearer"));
    /* a bearer key is OpenAI's: its request policy, widened on purpose */
    t = body_text(f.d, RC_ROLE_GATEWAY);
    assert_non_null(strstr(t, "\"--body-policy\",\"openai\","
                              "\"--allow-tool-type\",\"web_search\","
                              "\"--allow-beta\",\"b1\"]"));
    free(t);
    assert_false(some_body_holds_key(f.d));
    fx_free(&f);
}

/* The ustar entry: name, mode, owner, size, checksum, the key, padding. */
static void
test_key_tar(void **state)
{
    struct fx f;
    struct buf tar;
    struct err e;
    unsigned sum = 0, want;

    (void)state;
    fx_build(&f, cfg_gateway, "claude", "command: [/agent]", "");
    buf_init(&tar, 1 << 20);
    assert_int_equal(rc_desired_key_tar(f.d, &tar, &e), 0);
    assert_int_equal(tar.len, 512 * 4); /* header, one data block, two ends */
    assert_string_equal(tar.data, "api-key");
    assert_string_equal(tar.data + 100, "0000400");
    assert_string_equal(tar.data + 108, "0177776"); /* 65534 */
    assert_string_equal(tar.data + 116, "0177776");
    assert_int_equal(strtoul(tar.data + 124, NULL, 8), strlen(SECRET));
    assert_int_equal(tar.data[156], '0');
    assert_memory_equal(tar.data + 257,
                        "ustar\0"
                        "00",
                        8);
    for (int i = 0; i < 512; i++)
        sum += (unsigned char)(i >= 148 && i < 156 ? ' ' : tar.data[i]);
    want = (unsigned)strtoul(tar.data + 148, NULL, 8);
    assert_int_equal(sum, want);
    assert_memory_equal(tar.data + 512, SECRET, strlen(SECRET));
    for (size_t i = 512 + strlen(SECRET); i < tar.len; i++)
        assert_int_equal(tar.data[i], 0);
    buf_cleanup(&tar);
    fx_free(&f);
    /* no key volume, no tar */
    fx_build(&f, cfg_env, "claude", "command: [/agent]", "");
    buf_init(&tar, 1 << 20);
    assert_int_equal(rc_desired_key_tar(f.d, &tar, &e), -1);
    buf_cleanup(&tar);
    fx_free(&f);
}

/* A spec without a credential still reaches the vendor only through its
 * gateway, which adds no key (--no-credential, no --auth-header): the
 * rules and the request policy govern the door either way (issue 35). Its
 * key volume gets an archive without a key. */
static void
test_gateway_without_a_credential(void **state)
{
    struct fx f;
    struct buf tar;
    struct err e;
    char *t;

    (void)state;
    fx_build_key(&f, cfg_gateway, "claude", "command: [/agent]", "", NULL);
    t = body_text(f.d, RC_ROLE_GATEWAY);
    assert_non_null(
        strstr(t, "\"--upstream\",\"llm.vendor.test:443\",\"--no-credential\","
                  "\"--allow\",\"POST /v1/messages\""));
    assert_null(strstr(t, "--key-file"));
    assert_null(strstr(t, "--auth-header"));
    free(t);
    assert_true(has_str(f.d, RC_ROLE_PROXY, "/Cmd", "--deny-all"));
    assert_true(has_str(f.d, RC_ROLE_AGENT, "/Env",
                        "ANTHROPIC_BASE_URL=http://10.213.3.5:8080"));
    buf_init(&tar, 1 << 20);
    assert_int_equal(rc_desired_key_tar(f.d, &tar, &e), 0);
    assert_int_equal(tar.len, 2 * 512); /* the two end blocks only */
    for (size_t i = 0; i < tar.len; i++)
        assert_int_equal(tar.data[i], 0);
    buf_cleanup(&tar);
    fx_free(&f);
}

/* An attempt captured with a gateway is not built again in env mode (the
 * config switched since): its agent body would carry the key. */
static void
test_captured_with_a_gateway_stays_so(void **state)
{
    struct fx f;
    struct rc_inputs in;
    struct err e = { 0 };

    (void)state;
    fx_build(&f, cfg_env, "claude", "command: [/agent]", "");
    fx_inputs(&in, SECRET); /* the gateway's image pinned too */
    assert_null(rc_desired_build(f.inv, f.cfg, &in, &e));
    assert_string_equal(e.field, "spec.vendor");
    assert_non_null(strstr(e.msg, "uses credentialMode env, but this "
                                  "attempt was captured with a gateway"));
    assert_null(strstr(e.msg, SECRET));
    fx_free(&f);
}

/* gateway.caFile: the gateway trusts the bundle in its key volume, which
 * goes in beside the key (a private vendor, docs/gateway.md). */
static void
test_private_vendor_ca(void **state)
{
    static const char pem[] =
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    char dir[] = "/tmp/test_gw_ca.XXXXXX", path[64], *cfg_text, *t;
    struct fx f;
    struct buf tar;
    struct err e;
    FILE *fp;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/ca.pem", dir);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(pem, fp);
    fclose(fp);
    cfg_text = malloc(strlen(cfg_gateway) + 128);
    assert_non_null(cfg_text);
    strcpy(cfg_text, cfg_gateway);
    /* the claude profile's gateway block gains caFile */
    t = strstr(cfg_text, "baseUrlEnv: ANTHROPIC_BASE_URL}");
    assert_non_null(t);
    sprintf(t, "baseUrlEnv: ANTHROPIC_BASE_URL, caFile: \"%s\"}%s", path,
            strstr(cfg_gateway, "baseUrlEnv: ANTHROPIC_BASE_URL}") +
                strlen("baseUrlEnv: ANTHROPIC_BASE_URL}"));
    fx_build(&f, cfg_text, "claude", "command: [/agent]", "");
    t = body_text(f.d, RC_ROLE_GATEWAY);
    assert_non_null(
        strstr(t, "\"--ca-file\",\"/run/agentctl/gateway/ca.pem\""));
    free(t);
    buf_init(&tar, 1 << 20);
    assert_int_equal(rc_desired_key_tar(f.d, &tar, &e), 0);
    /* the key's header and block, the CA's, two ends */
    assert_int_equal(tar.len, 512 * 6);
    assert_string_equal(tar.data + 1024, "ca.pem");
    assert_string_equal(tar.data + 1024 + 100, "0000444");
    assert_memory_equal(tar.data + 1536, pem, strlen(pem));
    buf_cleanup(&tar);
    fx_free(&f);
    free(cfg_text);
    unlink(path);
    rmdir(dir);
}

/* gateway.organization, gateway.project: the gateway is told to send
 * them (--organization, --project); a profile without them gives a
 * command without the flags, as before (the drift rules compare it). */
static void
test_operator_org_and_project(void **state)
{
    static const char cfg_org[] =
        "vendors:\n"
        "  codex:\n"
        "    hosts: [\"api.openai.com:443\"]\n"
        "    credentialEnv: CODEX_API_KEY\n"
        "    gateway: {authHeader: bearer, allow: [\"POST /v1/responses\"],\n"
        "              organization: org-operator, project: proj_operator}\n";
    struct fx f;
    char *t;

    (void)state;
    fx_build(&f, cfg_org, "codex", "prompt: hello", "");
    t = body_text(f.d, RC_ROLE_GATEWAY);
    assert_non_null(strstr(t, "\"--organization\",\"org-operator\","
                              "\"--project\",\"proj_operator\""));
    free(t);
    fx_free(&f);
    fx_build(&f, cfg_gateway, "codex", "prompt: hello", "");
    t = body_text(f.d, RC_ROLE_GATEWAY);
    assert_null(strstr(t, "--organization"));
    assert_null(strstr(t, "--project"));
    free(t);
    fx_free(&f);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gateway_body),
        cmocka_unit_test(test_key_volume_and_proxy),
        cmocka_unit_test(test_agent_env_and_no_key_anywhere),
        cmocka_unit_test(test_budget_from_the_spec),
        cmocka_unit_test(test_token_budget),
        cmocka_unit_test(test_codex_base_url_flag),
        cmocka_unit_test(test_key_tar),
        cmocka_unit_test(test_private_vendor_ca),
        cmocka_unit_test(test_gateway_without_a_credential),
        cmocka_unit_test(test_captured_with_a_gateway_stays_so),
        cmocka_unit_test(test_key_the_gateway_cannot_send),
        cmocka_unit_test(test_operator_org_and_project),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
