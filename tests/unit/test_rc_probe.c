/* test_rc_probe.c - the boundary probe's create body and the reading of its
 * output, without Docker: every HostConfig field of the agent's hardening
 * is copied exactly, no mounts, no Env, exact labels and argv, the .4
 * address; refusals of bad inputs; parsing of each verdict into a finding,
 * and of garbage, truncated and inconsistent output (always an error, so
 * the controller fails closed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfg.h"
#include "rc_adapter.h"
#include "rc_desired.h"
#include "rc_probe.h"
#include "spec.h"

#define SECRET "sk-TEST-probe-secret-0042"
#define IMAGEID                                                                \
    "sha256:"                                                                  \
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID    "0123abcd-ef45-6789-aaaa-bbbbccccdddd"
#define PFX    "agentctl-demo-0123abcd"
#define NET    PFX "-net"
#define PROBE  "agentctl/probe:" AGENTCTL_VERSION
#define DENIED RC_PROBE_DENIED_DEFAULT
#define GATEWAY "10.213.5.5:8080"

static const char cfg_text[] =
    "vendors:\n"
    "  fake: {hosts: [\"vendor.test:443\"], credentialEnv: FAKE_API_KEY,\n"
    "         credentialMode: env, allowPrivate: true}\n";

static const char spec_text[] =
    "apiVersion: agentctl.dev/v1alpha1\n"
    "kind: AgentInvocation\n"
    "metadata: {name: demo}\n"
    "spec:\n"
    "  vendor: fake\n"
    "  phase: execute\n"
    "  image: my-agent:1\n"
    "  command: [/demo-agent]\n"
    "  workspace: {source: repos/web, size: 512Mi, inodes: 100000}\n"
    "  scratch: {size: 64Mi, inodes: 10000}\n"
    "  resources: {memory: 1Gi, cpus: \"1.5\", pids: 256}\n"
    "  credential: fk\n"
    "  deadlineSeconds: 1800\n"
    "  output: {maxBytes: 1048576}\n"
    "  attempt: a1\n";

static const char *const direct[] = { "10.213.5.1:80", "10.213.5.1:443",
                                      "10.213.5.1:3128", "172.20.0.3:3128" };
#define N_DIRECT (sizeof(direct) / sizeof(direct[0]))

struct fixture {
    struct cfg *cfg;
    struct spec_invocation *inv;
    struct rc_desired *d;
    cJSON *probe;
};

static int
setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    struct spec_errors es;
    struct spec_file f;
    struct rc_inputs in = { .controller_id = "ctl-a",
                            .uid = UID,
                            .image_id = IMAGEID,
                            .subnet_index = 5,
                            .credential = SECRET };
    struct err e = { 0 };

    assert_non_null(fx);
    fx->cfg = cfg_parse("c.yaml", cfg_text, strlen(cfg_text), &es);
    assert_non_null(fx->cfg);
    if (spec_load_buffer("s.yaml", spec_text, strlen(spec_text), &f) != 0) {
        spec_file_print_errors(&f, stderr);
        fail_msg("test spec does not load");
    }
    fx->inv = spec_file_take(&f, 0);
    spec_file_cleanup(&f);
    fx->d = rc_desired_build(fx->inv, fx->cfg, &in, &e);
    if (fx->d == NULL)
        fail_msg("build: %s", e.msg);
    fx->probe = rc_probe_body(fx->d, fx->cfg, PROBE, "vendor.test:443", NULL,
                              DENIED, direct, N_DIRECT, "ctl-a", UID, "a1");
    assert_non_null(fx->probe);
    *state = fx;
    return 0;
}

static int
teardown(void **state)
{
    struct fixture *fx = *state;

    cJSON_Delete(fx->probe);
    rc_desired_free(fx->d);
    spec_invocation_free(fx->inv);
    cfg_free(fx->cfg);
    free(fx);
    return 0;
}

static const cJSON *
agent_body(const struct fixture *fx)
{
    return rc_desired_object(fx->d, RC_ROLE_AGENT)->body;
}

/* The field at pointer as compact JSON text ("<absent>" if missing). */
static void
assert_field(const cJSON *body, const char *pointer, const char *json)
{
    const cJSON *v = rc_json_at(body, pointer);
    char *text = v ? cJSON_PrintUnformatted(v) : NULL;

    if (text == NULL || strcmp(text, json) != 0) {
        print_error("%s: expected %s, got %s\n", pointer, json,
                    text ? text : "<absent>");
        free(text);
        fail();
    }
    free(text);
}

/* Fields the probe sets itself; every other HostConfig field is the
 * agent's. */
static bool
probe_own_field(const char *key)
{
    static const char *const own[] = { "Mounts",    "Memory",   "MemorySwap",
                                       "PidsLimit", "NanoCpus", "LogConfig",
                                       "Sysctls" };

    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        if (strcmp(key, own[i]) == 0)
            return true;
    return false;
}

/* The first HostConfig field where the probe's body is not the agent's
 * (fields the probe sets itself aside), or NULL; *same counts the equal
 * ones. */
static const char *
hardening_diff(const cJSON *agent, const cJSON *probe, int *same)
{
    const cJSON *ahc = rc_json_at(agent, "/HostConfig");
    const cJSON *phc = rc_json_at(probe, "/HostConfig");
    const cJSON *f;

    *same = 0;
    cJSON_ArrayForEach(f, ahc)
    {
        if (probe_own_field(f->string))
            continue;
        if (!cJSON_Compare(f, cJSON_GetObjectItemCaseSensitive(phc, f->string),
                           true))
            return f->string;
        (*same)++;
    }
    cJSON_ArrayForEach(f, phc)
    {
        if (!probe_own_field(f->string) &&
            cJSON_GetObjectItemCaseSensitive(ahc, f->string) == NULL)
            return f->string; /* a field the agent does not have */
    }
    return NULL;
}

static void
test_rc_probe_body_copies_every_agent_hardening_field(void **state)
{
    struct fixture *fx = *state;
    const char *diff;
    cJSON *bad;
    int same;

    diff = hardening_diff(agent_body(fx), fx->probe, &same);
    if (diff != NULL)
        fail_msg("HostConfig.%s differs from the agent's", diff);
    /* NetworkMode, Init, Privileged, CapDrop, ReadonlyRootfs, SecurityOpt,
     * RestartPolicy, IpcMode, PortBindings, PublishAllPorts, Dns,
     * DnsOptions, DnsSearch, ExtraHosts, PidMode at least */
    assert_true(same >= 15);
    for (const char *const *k =
             (const char *const[]){ "/User", "/Tty", "/OpenStdin",
                                    "/AttachStdin", "/StdinOnce",
                                    "/StopTimeout", NULL };
         *k != NULL; k++)
        assert_true(cJSON_Compare(rc_json_at(agent_body(fx), *k),
                                  rc_json_at(fx->probe, *k), true));
    /* negative control: a weakened copy is caught, and so is an extra field */
    bad = cJSON_Duplicate(fx->probe, true);
    assert_non_null(bad);
    cJSON_ReplaceItemInObjectCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(bad, "HostConfig"), "ReadonlyRootfs",
        cJSON_CreateFalse());
    assert_string_equal(hardening_diff(agent_body(fx), bad, &same),
                        "ReadonlyRootfs");
    cJSON_Delete(bad);
    bad = cJSON_Duplicate(fx->probe, true);
    assert_non_null(bad);
    cJSON_AddTrueToObject(cJSON_GetObjectItemCaseSensitive(bad, "HostConfig"),
                          "Privileged2");
    assert_string_equal(hardening_diff(agent_body(fx), bad, &same),
                        "Privileged2");
    cJSON_Delete(bad);
}

/* The last two arguments of the probe's Entrypoint, "a b". */
static char *
probe_tail(struct fixture *fx)
{
    cJSON *p = rc_probe_body(fx->d, fx->cfg, PROBE, "vendor.test:443", NULL,
                             DENIED, direct, N_DIRECT, "ctl-a", UID, "a1");
    const cJSON *ep = rc_json_at(p, "/Entrypoint");
    int n = cJSON_GetArraySize(ep);
    char *s = malloc(256);

    assert_non_null(p);
    snprintf(s, 256, "%s %s", cJSON_GetArrayItem(ep, n - 2)->valuestring,
             cJSON_GetArrayItem(ep, n - 1)->valuestring);
    cJSON_Delete(p);
    return s;
}

/* An agent under agent-launch: the probe checks the kernel's Landlock
 * before it starts, unless the config makes Landlock optional; a command
 * spec's agent (no launcher) and one an older version captured
 * (unlaunched) need none. */
static void
test_rc_probe_landlock_flag(void **state)
{
    struct fixture *fx = *state;
    struct rc_adapter_box box = { .proxy_port = 3128, .runner_timeout = 60,
                                  .runner_max_bytes = 1024,
                                  .runner_dir = "/work" };
    struct err e = { 0 };
    char *t;

    t = probe_tail(fx);
    assert_string_not_equal(t, "--landlock required"); /* a command spec */
    free(t);
    fx->d->adapter = rc_adapter_build("acme", "generic", SPEC_PHASE_PLANNING,
                                      "p", NULL, &box, &e);
    assert_non_null(fx->d->adapter);
    t = probe_tail(fx);
    assert_string_equal(t, "--landlock required");
    free(t);
    fx->cfg->landlock_optional = true;
    t = probe_tail(fx);
    assert_string_not_equal(t, "--landlock required");
    free(t);
    fx->cfg->landlock_optional = false;
    rc_adapter_out_free(fx->d->adapter);
    box.unlaunched = true;
    fx->d->adapter = rc_adapter_build("acme", "generic", SPEC_PHASE_PLANNING,
                                      "p", NULL, &box, &e);
    t = probe_tail(fx);
    assert_string_not_equal(t, "--landlock required");
    free(t);
}

static void
test_rc_probe_body_golden(void **state)
{
    const cJSON *p = ((struct fixture *)*state)->probe;

    assert_field(p, "/Image", "\"" PROBE "\"");
    assert_field(p, "/Entrypoint",
                 "[\"/probe\",\"--proxy\",\"10.213.5.2:3128\",\"--allowed\","
                 "\"vendor.test:443\",\"--denied\",\"" DENIED "\","
                 "\"--direct\",\"10.213.5.1:80\",\"--direct\","
                 "\"10.213.5.1:443\",\"--direct\",\"10.213.5.1:3128\","
                 "\"--direct\",\"172.20.0.3:3128\"]");
    assert_null(rc_json_at(p, "/Cmd"));
    assert_field(p, "/Env", "[]");
    assert_field(p, "/Labels",
                 "{\"agentctl.dev/managed-by\":\"ctl-a\","
                 "\"agentctl.dev/invocation\":\"demo\","
                 "\"agentctl.dev/uid\":\"" UID "\","
                 "\"agentctl.dev/attempt\":\"a1\","
                 "\"agentctl.dev/role\":\"probe\"}");
    assert_field(p, "/User", "\"1000:1000\"");
    assert_field(p, "/HostConfig/Mounts", "[]");
    assert_null(rc_json_at(p, "/HostConfig/Binds"));
    assert_null(rc_json_at(p, "/HostConfig/Tmpfs"));
    assert_field(p, "/HostConfig/CapDrop", "[\"ALL\"]");
    assert_field(p, "/HostConfig/ReadonlyRootfs", "true");
    assert_field(p, "/HostConfig/SecurityOpt", "[\"no-new-privileges\"]");
    assert_field(p, "/HostConfig/Init", "true");
    assert_field(p, "/HostConfig/RestartPolicy",
                 "{\"Name\":\"no\",\"MaximumRetryCount\":0}");
    assert_field(p, "/HostConfig/Dns", "[\"0.0.0.0\"]");
    assert_field(p, "/HostConfig/DnsOptions", "[\"timeout:1\",\"attempts:1\"]");
    assert_field(p, "/HostConfig/Memory", "16777216");
    assert_field(p, "/HostConfig/MemorySwap", "16777216");
    assert_field(p, "/HostConfig/PidsLimit", "16");
    /* the agent's IPv6-off sysctls, and the probe's own neighbour timing */
    assert_field(p, "/HostConfig/Sysctls",
                 "{\"net.ipv6.conf.all.disable_ipv6\":\"1\","
                 "\"net.ipv6.conf.default.disable_ipv6\":\"1\","
                 "\"net.ipv4.neigh.eth0.retrans_time_ms\":\"50\"}");
    assert_null(rc_json_at(agent_body((struct fixture *)*state),
                           "/HostConfig/Sysctls/net.ipv4.neigh.eth0."
                           "retrans_time_ms"));
    assert_field(p, "/HostConfig/NetworkMode", "\"" NET "\"");
    assert_field(p, "/NetworkingConfig",
                 "{\"EndpointsConfig\":{\"" NET "\":{\"IPAMConfig\":"
                 "{\"IPv4Address\":\"10.213.5.4\"}}}}");
}

static void
test_rc_probe_body_never_holds_the_credential(void **state)
{
    struct fixture *fx = *state;
    char *text = cJSON_PrintUnformatted(fx->probe);

    assert_non_null(text);
    assert_null(strstr(text, SECRET));
    assert_null(strstr(text, "FAKE_API_KEY"));
    assert_null(strstr(text, "HTTPS_PROXY"));
    free(text);
    /* negative control: the agent's body does hold it */
    text = cJSON_PrintUnformatted(agent_body(fx));
    assert_non_null(strstr(text, SECRET));
    free(text);
}

static void
test_rc_probe_body_refuses_bad_inputs(void **state)
{
    struct fixture *fx = *state;
    const char *many[RC_PROBE_MAX_DIRECT + 1];
    const char *spaced[] = { "10.0.0.1:80 --allowed x:1" };

    for (size_t i = 0; i < RC_PROBE_MAX_DIRECT + 1; i++)
        many[i] = "10.213.5.1:80";
    assert_null(rc_probe_body(fx->d, fx->cfg, PROBE, "vendor.test:443", NULL,
                              DENIED, many, RC_PROBE_MAX_DIRECT + 1, "ctl-a",
                              UID, "a1"));
    assert_null(rc_probe_body(fx->d, fx->cfg, PROBE, "vendor.test:443", NULL,
                              DENIED, spaced, 1, "ctl-a", UID, "a1"));
    assert_null(rc_probe_body(fx->d, fx->cfg, NULL, "vendor.test:443", NULL,
                              DENIED, NULL, 0, "ctl-a", UID, "a1"));
    assert_null(rc_probe_body(fx->d, fx->cfg, PROBE, "", NULL, DENIED, NULL, 0,
                              "ctl-a", UID, "a1"));
    assert_null(rc_probe_body(fx->d, fx->cfg, PROBE, "vendor.test:443", NULL,
                              "a\nb:1", NULL, 0, "ctl-a", UID, "a1"));
    /* the limit itself is fine */
    cJSON *ok =
        rc_probe_body(fx->d, fx->cfg, PROBE, "vendor.test:443", NULL, DENIED,
                      many, RC_PROBE_MAX_DIRECT, "ctl-a", UID, "a1");
    assert_non_null(ok);
    cJSON_Delete(ok);
}

/* Gateway mode: --gateway in place of --allowed, the vendor's host as the
 * denied one; every other field is the CONNECT-mode body's. */
static void
test_rc_probe_body_gateway(void **state)
{
    struct fixture *fx = *state;
    cJSON *g =
        rc_probe_body(fx->d, fx->cfg, PROBE, NULL, GATEWAY, "vendor.test:443",
                      direct, N_DIRECT, "ctl-a", UID, "a1");
    cJSON *a, *b;

    assert_non_null(g);
    assert_field(g, "/Entrypoint",
                 "[\"/probe\",\"--proxy\",\"10.213.5.2:3128\",\"--gateway\","
                 "\"" GATEWAY "\",\"--denied\",\"vendor.test:443\","
                 "\"--direct\",\"10.213.5.1:80\",\"--direct\","
                 "\"10.213.5.1:443\",\"--direct\",\"10.213.5.1:3128\","
                 "\"--direct\",\"172.20.0.3:3128\"]");
    a = cJSON_Duplicate(g, true);
    b = cJSON_Duplicate(fx->probe, true);
    cJSON_DeleteItemFromObjectCaseSensitive(a, "Entrypoint");
    cJSON_DeleteItemFromObjectCaseSensitive(b, "Entrypoint");
    assert_true(cJSON_Compare(a, b, true));
    /* negative control: the comparison sees a changed field */
    cJSON_ReplaceItemInObjectCaseSensitive(a, "WorkingDir",
                                           cJSON_CreateString("/tmp"));
    assert_false(cJSON_Compare(a, b, true));
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(g);
}

/* Exactly one mode, and the gateway by IPv4 literal only. */
static void
test_rc_probe_body_gateway_refusals(void **state)
{
    struct fixture *fx = *state;
    static const char *const bad[] = {
        "gateway.test:8080",
        "10.213.5.5",
        "10.213.5.5:",
        "10.213.5.5:0",
        "10.213.5.5:65536",
        "10.213.5.5:+80",
        "10.213.5.5:80x",
        "10.213.5.5:8080 --allowed",
        "",
        "[::1]:8080",
        "10.213.5:8080",
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (rc_probe_body(fx->d, fx->cfg, PROBE, NULL, bad[i], DENIED, NULL, 0,
                          "ctl-a", UID, "a1") != NULL)
            fail_msg("gateway [%s] was taken", bad[i]);
    /* both modes at once, or neither */
    assert_null(rc_probe_body(fx->d, fx->cfg, PROBE, "vendor.test:443", GATEWAY,
                              DENIED, NULL, 0, "ctl-a", UID, "a1"));
    assert_null(rc_probe_body(fx->d, fx->cfg, PROBE, NULL, NULL, DENIED, NULL,
                              0, "ctl-a", UID, "a1"));
    /* positive control: the same call with a good address */
    cJSON *ok = rc_probe_body(fx->d, fx->cfg, PROBE, NULL, "10.213.5.5:65535",
                              DENIED, NULL, 0, "ctl-a", UID, "a1");
    assert_non_null(ok);
    cJSON_Delete(ok);
}

static void
test_rc_probe_name_and_address(void **state)
{
    struct fixture *fx = *state;
    char name[RC_NAME_MAX], ip[RC_IP_MAX], longp[RC_NAME_MAX + 1];

    assert_int_equal(rc_probe_name(fx->d->prefix, name), 0);
    assert_string_equal(name, PFX "-probe");
    memset(longp, 'a', sizeof(longp) - 1);
    longp[sizeof(longp) - 1] = '\0';
    assert_int_equal(rc_probe_name(longp, name), -1);
    assert_int_equal(rc_probe_ip(fx->d, ip), 0);
    assert_string_equal(ip, "10.213.5.4");
    assert_string_not_equal(ip, fx->d->agent_ip);
    assert_string_not_equal(ip, fx->d->proxy_ip);
}

/* The canary's body: the probe's, joined to the agent's namespace, with
 * every hardening field kept and what Docker refuses beside a joined
 * namespace gone. */
static void
test_rc_probe_join_keeps_hardening(void **state)
{
    struct fixture *fx = *state;
#define AGENT64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    static const char agent[] = AGENT64;
    static const char *const kept[] = {
        "/HostConfig/CapDrop",        "/HostConfig/ReadonlyRootfs",
        "/HostConfig/SecurityOpt",    "/HostConfig/Privileged",
        "/HostConfig/Memory",         "/HostConfig/PidsLimit",
        "/HostConfig/MaskedPaths",    "/HostConfig/ReadonlyPaths",
        "/HostConfig/IpcMode",        "/HostConfig/Mounts",
        "/User",                      "/Entrypoint",
        "/Labels",                    "/Image",
    };
    static const char *const gone[] = {
        "/NetworkingConfig",       "/HostConfig/Sysctls",
        "/HostConfig/Dns",         "/HostConfig/DnsOptions",
        "/HostConfig/ExtraHosts",  "/HostConfig/PortBindings",
        "/HostConfig/PublishAllPorts", "/Hostname",
    };
    cJSON *c = cJSON_Duplicate(fx->probe, true);
    char name[RC_NAME_MAX];

    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
        if (rc_json_at(fx->probe, kept[i]) == NULL)
            fail_msg("the probe body lacks %s", kept[i]);
    assert_int_equal(rc_probe_join(c, agent), 0);
    assert_field(c, "/HostConfig/NetworkMode", "\"container:" AGENT64 "\"");
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        char *a = cJSON_PrintUnformatted(rc_json_at(fx->probe, kept[i]));
        char *b = cJSON_PrintUnformatted(rc_json_at(c, kept[i]));

        if (b == NULL || strcmp(a, b) != 0)
            fail_msg("%s changed: %s -> %s", kept[i], a, b ? b : "<absent>");
        cJSON_free(a);
        cJSON_free(b);
    }
    for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
        if (rc_json_at(c, gone[i]) != NULL)
            fail_msg("%s is still in the canary's body", gone[i]);
    /* anything but a container ID is refused, the body left as it was */
    assert_int_equal(rc_probe_join(c, "abc def"), -1);
    assert_int_equal(rc_probe_join(c, "ABCDEF"), -1);
    assert_int_equal(rc_probe_join(c, "../x"), -1);
    assert_int_equal(rc_probe_join(c, ""), -1);
    assert_int_equal(rc_probe_join(c, AGENT64 "0"), -1); /* 65 characters */
    assert_int_equal(rc_probe_canary_name(fx->d->prefix, name), 0);
    assert_string_equal(name, PFX "-canary");
    cJSON_Delete(c);
}

/* ---- parsing ------------------------------------------------------------ */

#define CHK(name, target, ok, detail)                                          \
    "{\"name\":\"" name "\",\"target\":\"" target "\",\"ok\":" ok              \
    ",\"detail\":\"" detail "\"}"
#define ALLOWED_200 CHK("allowed", "vendor.test:443", "true", "200")
#define DENIED_403  CHK("denied", "x.invalid:443", "true", "403")
#define LANDLOCK_OK CHK("landlock", "kernel", "true", "ABI 7")
#define IPV6_OK     CHK("ipv6", "inet6", "true", "no address") "," LANDLOCK_OK
#define DNS_OK      CHK("dns", "vendor.test:443", "true", "no answer") "," IPV6_OK
/* a failed check as the probe prints it now, with its "fail" */
#define FCHK(name, target, detail, fail)                                       \
    "{\"name\":\"" name "\",\"target\":\"" target                              \
    "\",\"ok\":false,\"detail\":\"" detail "\",\"fail\":\"" fail "\"}"
#define LINE(verdict, vendor, checks)                                          \
    "{\"verdict\":\"" verdict "\",\"vendor\":\"" vendor                        \
    "\",\"checks\":[" checks "]}\n"

struct parse_case {
    const char *what;
    const char *out;
    long exit_code;
    enum rc_probe_verdict verdict;
    bool reachable;
    const char *finding; /* NULL: must be an error */
    const char *error;   /* substring of the error message */
};

/* gateway mode: the gateway check, and the vendor's host denied */
#define GW_OK      CHK("gateway", GATEWAY, "true", "403")
#define VENDOR_403 CHK("denied", "vendor.test:443", "true", "403")
#define GW_FINDING_OK                                                          \
    "ok: boundary verified, the gateway refuses what its rules do not hold "   \
    "(vendor not tried); Landlock ABI 7"

static const struct parse_case parse_cases[] = {
    { "ok, vendor reachable",
      LINE("ok", "reachable",
           ALLOWED_200 "," DENIED_403 "," CHK("direct", "10.213.0.1:443",
                                              "true", "timeout") "," DNS_OK),
      0, RC_PROBE_OK, true,
      "ok: boundary verified, vendor reachable; Landlock ABI 7", NULL },
    { "ok, vendor down (504)",
      LINE("ok", "unreachable",
           CHK("allowed", "vendor.test:443", "true", "504") "," DENIED_403
                                                            "," DNS_OK),
      0, RC_PROBE_OK, false,
      "ok: boundary verified, vendor unreachable; Landlock ABI 7", NULL },
    { "breach: direct",
      LINE("breach", "reachable",
           ALLOWED_200 "," DENIED_403 "," CHK("direct", "10.213.0.1:443",
                                              "false", "connected") "," DNS_OK),
      2, RC_PROBE_BREACH, true,
      "breach: direct connection to 10.213.0.1:443 succeeded past the proxy "
      "(connected)",
      NULL },
    { "breach: denied host admitted",
      LINE("breach", "reachable",
           ALLOWED_200
           "," CHK("denied", "denied.test:443", "false", "200") "," DNS_OK),
      2, RC_PROBE_BREACH, true,
      "breach: proxy did not refuse denied.test:443, a host off the "
      "allowlist (200)",
      NULL },
    { "breach named over a refused vendor",
      LINE("breach", "unreachable",
           CHK("allowed", "vendor.test:443", "false",
               "403") "," DENIED_403 "," CHK("dns", "vendor.test:443", "false",
                                             "1 answers") "," IPV6_OK),
      2, RC_PROBE_BREACH, false,
      "breach: outside name resolution works: the resolver answered "
      "vendor.test:443 (1 answers)",
      NULL },
    { "breach: an IPv6 address in the box",
      LINE("breach", "reachable",
           ALLOWED_200
           "," DENIED_403
           "," CHK("dns", "vendor.test:443", "true", "no answer") "," CHK(
               "ipv6", "inet6", "false", "1 addresses, first on lo")
           "," LANDLOCK_OK),
      2, RC_PROBE_BREACH, true,
      "breach: an IPv6 address is up in the box (1 addresses, first on lo): "
      "a path the proxy does not see",
      NULL },
    { "no landlock check (a probe image an older version pinned)",
      LINE("ok", "reachable",
           ALLOWED_200 "," DENIED_403
           "," CHK("dns", "vendor.test:443", "true", "no answer")
           "," CHK("ipv6", "inet6", "true", "no address")),
      0, RC_PROBE_OK, true, "ok: boundary verified, vendor reachable",
      NULL },
    { "no Landlock where the launcher needs it",
      LINE("proxy-broken", "reachable",
           ALLOWED_200 "," DENIED_403
           "," CHK("dns", "vendor.test:443", "true", "no answer")
           "," CHK("ipv6", "inet6", "true", "no address")
           "," FCHK("landlock", "kernel", "none (not in this kernel)",
                    "broken")),
      3, RC_PROBE_PROXY_BROKEN, true,
      "proxy-broken: the kernel offers no Landlock (none (not in this "
      "kernel)), which the agent's launcher needs (config landlock: "
      "optional runs without)",
      NULL },
    { "the ipv6 check missing (an older probe image)",
      LINE("ok", "reachable",
           ALLOWED_200 "," DENIED_403
                       "," CHK("dns", "vendor.test:443", "true", "no answer")),
      0, 0, false, NULL, "no ipv6 check" },
    { "proxy-broken",
      LINE("proxy-broken", "unreachable",
           CHK("allowed", "vendor.test:443", "false", "403") "," DENIED_403
                                                             "," DNS_OK),
      3, RC_PROBE_PROXY_BROKEN, false,
      "proxy-broken: proxy refused the vendor vendor.test:443 (403)", NULL },
    { "odd bytes in a detail are cleaned",
      LINE("proxy-broken", "unreachable",
           CHK("allowed", "vendor.test:443", "false",
               "\\u001b[31m\\u00e9") "," DENIED_403 "," DNS_OK),
      3, RC_PROBE_PROXY_BROKEN, false,
      "proxy-broken: proxy refused the vendor vendor.test:443 (?[31m?\?)",
      NULL },
    { "inconclusive: a direct connect got no answer",
      LINE("inconclusive", "reachable",
           ALLOWED_200 "," DENIED_403 "," FCHK("direct", "10.213.0.1:443",
                                               "no answer in 3000 ms",
                                               "undecided") "," DNS_OK),
      5, RC_PROBE_INCONCLUSIVE, true,
      "inconclusive: direct connection to 10.213.0.1:443 got no answer, so "
      "it cannot be told blocked (no answer in 3000 ms)",
      NULL },
    { "inconclusive: an unexplained DNS silence",
      LINE("inconclusive", "reachable",
           ALLOWED_200 "," DENIED_403 "," FCHK("dns", "vendor.test:443",
                                               "no answer in 3000 ms",
                                               "undecided") "," IPV6_OK),
      5, RC_PROBE_INCONCLUSIVE, true,
      "inconclusive: the resolver did not answer vendor.test:443 and nothing "
      "shows it cannot reach outside (no answer in 3000 ms)",
      NULL },
    { "breach named by its fail over an earlier undecided check",
      LINE("breach", "reachable",
           ALLOWED_200 "," DENIED_403 "," FCHK(
               "direct", "10.213.0.1:443", "no answer in 3000 ms",
               "undecided") "," FCHK("direct", "172.20.0.3:3128", "connected",
                                     "breach") "," DNS_OK),
      2, RC_PROBE_BREACH, true,
      "breach: direct connection to 172.20.0.3:3128 succeeded past the proxy "
      "(connected)",
      NULL },
    { "inconclusive with only a broken check",
      LINE("inconclusive", "unreachable",
           FCHK("allowed", "vendor.test:443", "403", "broken") "," DENIED_403
                                                               "," DNS_OK),
      5, 0, false, NULL, "probe said inconclusive with 1 failed checks" },
    { "inconclusive with the wrong exit code",
      LINE("inconclusive", "reachable",
           ALLOWED_200 "," DENIED_403
                       "," FCHK("dns", "vendor.test:443", "x", "undecided")),
      0, 0, false, NULL, "probe said inconclusive but exited with code 0" },
    { "a fail that is not a string",
      LINE("breach", "reachable",
           ALLOWED_200 "," DENIED_403
                       ",{\"name\":\"dns\",\"target\":\"v:1\",\"ok\":false,"
                       "\"detail\":\"1 answers\",\"fail\":1}"),
      2, 0, false, NULL, "a check lacks" },
    { "empty", "", 0, 0, false, NULL, "printed nothing" },
    { "blank", " \n\n", 137, 0, false, NULL,
      "printed nothing (exit code 137)" },
    { "garbage", "Segmentation fault\n", 139, 0, false, NULL,
      "not a JSON object line" },
    { "truncated", "{\"verdict\":\"ok\",\"vendor\":\"reach", 0, 0, false, NULL,
      "not a JSON object line" },
    { "two lines",
      LINE("ok", "reachable", ALLOWED_200) LINE("ok", "reachable", ALLOWED_200),
      0, 0, false, NULL, "more than one line" },
    { "trailing text", "{\"verdict\":\"ok\"} x", 0, 0, false, NULL,
      "not a JSON object line" },
    { "not an object", "[1,2]", 0, 0, false, NULL, "not a JSON object line" },
    { "bad usage", "", 4, 0, false, NULL, "refused its arguments" },
    { "exit code disagrees",
      LINE("ok", "reachable", ALLOWED_200 "," DENIED_403 "," DNS_OK), 2, 0,
      false, NULL, "probe said ok but exited with code 2" },
    { "ok with a failed check",
      LINE("ok", "reachable",
           ALLOWED_200 "," DENIED_403 "," CHK("direct", "10.0.0.1:1", "false",
                                              "connected") "," DNS_OK),
      0, 0, false, NULL, "probe said ok with 1 failed checks" },
    { "breach without a failed check",
      LINE("breach", "reachable", ALLOWED_200 "," DENIED_403 "," DNS_OK), 2, 0,
      false, NULL, "probe said breach with 0 failed checks" },
    { "breach with only allowed failing",
      LINE("breach", "reachable",
           CHK("allowed", "v:1", "false", "403") "," DENIED_403 "," DNS_OK),
      2, 0, false, NULL, "probe said breach with 1 failed checks" },
    { "a check missing", LINE("ok", "reachable", ALLOWED_200 "," DNS_OK), 0, 0,
      false, NULL, "no denied check" },
    { "a check malformed",
      LINE("ok", "reachable",
           ALLOWED_200 "," DENIED_403 ",{\"name\":\"dns\",\"ok\":\"yes\"}"),
      0, 0, false, NULL, "a check lacks" },
    { "unknown verdict", LINE("fine", "reachable", ALLOWED_200), 0, 0, false,
      NULL, "unknown verdict" },
    { "unknown vendor status", LINE("ok", "maybe", ALLOWED_200), 0, 0, false,
      NULL, "unknown vendor status" },
    { "no checks", "{\"verdict\":\"ok\",\"vendor\":\"reachable\"}", 0, 0, false,
      NULL, "lacks checks" },
    { "CONNECT: a gateway-mode probe's line",
      LINE("ok", "reachable", GW_OK "," DENIED_403 "," DNS_OK), 0, 0, false,
      NULL, "gateway check in CONNECT mode" },
    { "CONNECT: the vendor unknown",
      LINE("ok", "unknown", ALLOWED_200 "," DENIED_403 "," DNS_OK), 0, 0, false,
      NULL, "unknown vendor status for CONNECT mode" },
};

/* Lines of a gateway-mode probe (RC_PROBE_MODE_GATEWAY). */
static const struct parse_case gateway_cases[] = {
    { "gateway: ok", LINE("ok", "unknown", GW_OK "," VENDOR_403 "," DNS_OK), 0,
      RC_PROBE_OK, true, GW_FINDING_OK, NULL },
    { "gateway: something else answers (200)",
      LINE("breach", "unknown",
           FCHK("gateway", GATEWAY, "200", "breach") "," VENDOR_403 "," DNS_OK),
      2, RC_PROBE_BREACH, true,
      "breach: " GATEWAY " does not enforce the gateway's rules: a request "
      "outside them got 200",
      NULL },
    { "gateway: the proxy admits the vendor",
      LINE("breach", "unknown",
           GW_OK
           "," FCHK("denied", "vendor.test:443", "200", "breach") "," DNS_OK),
      2, RC_PROBE_BREACH, true,
      "breach: proxy did not refuse vendor.test:443, a host off the "
      "allowlist (200)",
      NULL },
    { "gateway: nothing serves (refused)",
      LINE("proxy-broken", "unknown",
           FCHK("gateway", GATEWAY, "refused", "broken") "," VENDOR_403
                                                         "," DNS_OK),
      3, RC_PROBE_PROXY_BROKEN, true,
      "proxy-broken: the gateway at " GATEWAY " does not serve, the agent "
      "could not reach the vendor (refused)",
      NULL },
    { "gateway: silent",
      LINE("inconclusive", "unknown",
           FCHK("gateway", GATEWAY, "no answer in 3000 ms",
                "undecided") "," VENDOR_403 "," DNS_OK),
      5, RC_PROBE_INCONCLUSIVE, true,
      "inconclusive: the gateway at " GATEWAY " did not answer, so its rules "
      "cannot be told enforced (no answer in 3000 ms)",
      NULL },
    { "gateway: a breach named over a silent gateway",
      LINE("breach", "unknown",
           FCHK("gateway", GATEWAY, "no answer in 3000 ms",
                "undecided") "," VENDOR_403
                             "," FCHK("dns", "vendor.test:443", "1 answers",
                                      "breach") "," IPV6_OK),
      2, RC_PROBE_BREACH, true,
      "breach: outside name resolution works: the resolver answered "
      "vendor.test:443 (1 answers)",
      NULL },
    { "gateway: ok without the gateway check",
      LINE("ok", "unknown", VENDOR_403 "," DNS_OK), 0, 0, false, NULL,
      "no gateway check" },
    { "gateway: a CONNECT-mode probe's line",
      LINE("ok", "unknown", ALLOWED_200 "," VENDOR_403 "," DNS_OK), 0, 0, false,
      NULL, "allowed check in gateway mode" },
    { "gateway: both checks",
      LINE("ok", "unknown", GW_OK "," ALLOWED_200 "," VENDOR_403 "," DNS_OK), 0,
      0, false, NULL, "allowed check in gateway mode" },
    { "gateway: a vendor status only CONNECT mode has",
      LINE("ok", "reachable", GW_OK "," VENDOR_403 "," DNS_OK), 0, 0, false,
      NULL, "unknown vendor status for gateway mode" },
    { "gateway: ok with the gateway check failed",
      LINE("ok", "unknown",
           FCHK("gateway", GATEWAY, "200", "breach") "," VENDOR_403 "," DNS_OK),
      0, 0, false, NULL, "probe said ok with 1 failed checks" },
};

/* The check a finding's sentence is about (rc_probe_check_text's words):
 * the canary's rule is probe.<check>. */
static const char *
check_named(const char *finding)
{
    static const struct {
        const char *words, *check;
    } by[] = {
        { "gateway", "gateway" },
        { "refused the vendor", "allowed" },
        { "did not refuse", "denied" },
        { "direct connection", "direct" },
        { "resolver", "dns" },
        { "name resolution", "dns" },
        { "IPv6", "ipv6" },
        { "Landlock", "landlock" },
    };

    if (strncmp(finding, "ok:", 3) == 0)
        return ""; /* an ok finding names no check */
    for (size_t i = 0; i < sizeof(by) / sizeof(by[0]); i++)
        if (strstr(finding, by[i].words) != NULL)
            return by[i].check;
    return "";
}

static void
parse_table(const struct parse_case *cases, size_t n, enum rc_probe_mode mode)
{
    for (size_t i = 0; i < n; i++) {
        const struct parse_case *c = &cases[i];
        struct rc_probe_result r;
        struct err e = { 0 };
        int rc;

        memset(&r, 0x5a, sizeof(r));
        rc = rc_probe_parse(c->out, strlen(c->out), c->exit_code, mode, &r, &e);
        if (c->finding == NULL) {
            if (rc != -1 || strstr(e.msg, c->error) == NULL)
                fail_msg("%s: rc %d, error [%s], wanted [%s]", c->what, rc,
                         e.msg, c->error);
            /* out untouched on failure */
            assert_int_equal(((unsigned char *)&r)[0], 0x5a);
            continue;
        }
        if (rc != 0)
            fail_msg("%s: %s", c->what, e.msg);
        assert_int_equal(r.verdict, c->verdict);
        assert_int_equal(r.vendor_reachable, c->reachable);
        if (strcmp(r.finding, c->finding) != 0)
            fail_msg("%s: finding [%s], wanted [%s]", c->what, r.finding,
                     c->finding);
        if (strcmp(r.check, check_named(c->finding)) != 0)
            fail_msg("%s: check [%s], wanted [%s]", c->what, r.check,
                     check_named(c->finding));
    }
}

static void
test_rc_probe_parse_table(void **state)
{
    (void)state;
    parse_table(parse_cases, sizeof(parse_cases) / sizeof(parse_cases[0]),
                RC_PROBE_MODE_CONNECT);
}

static void
test_rc_probe_parse_gateway_table(void **state)
{
    (void)state;
    parse_table(gateway_cases, sizeof(gateway_cases) / sizeof(gateway_cases[0]),
                RC_PROBE_MODE_GATEWAY);
}

static void
test_rc_probe_parse_limits(void **state)
{
    static const char line[] =
        LINE("ok", "reachable", ALLOWED_200 "," DENIED_403 "," DNS_OK);
    char *big = malloc(RC_PROBE_MAX_OUTPUT + 2);
    struct rc_probe_result r;
    struct err e = { 0 };

    (void)state;
    assert_non_null(big);
    memset(big, ' ', RC_PROBE_MAX_OUTPUT + 1);
    memcpy(big, line, sizeof(line) - 1);
    assert_int_equal(rc_probe_parse(big, RC_PROBE_MAX_OUTPUT + 1, 0,
                                    RC_PROBE_MODE_CONNECT, &r, &e),
                     -1);
    assert_int_equal(e.code, ERR_LIMIT);
    /* at the cap it is fine (trailing blanks) */
    assert_int_equal(rc_probe_parse(big, RC_PROBE_MAX_OUTPUT, 0,
                                    RC_PROBE_MODE_CONNECT, &r, &e),
                     0);
    /* every prefix of a good line is an error, never a verdict */
    for (size_t n = 0; n < sizeof(line) - 2; n++)
        assert_int_equal(
            rc_probe_parse(line, n, 0, RC_PROBE_MODE_CONNECT, &r, NULL), -1);
    /* a NUL inside the line */
    memcpy(big, line, sizeof(line) - 1);
    big[10] = '\0';
    assert_int_equal(
        rc_probe_parse(big, sizeof(line) - 1, 0, RC_PROBE_MODE_CONNECT, &r, &e),
        -1);
    free(big);
    assert_string_equal(rc_probe_verdict_name(RC_PROBE_PROXY_BROKEN),
                        "proxy-broken");
    assert_string_equal(rc_probe_verdict_name(RC_PROBE_INCONCLUSIVE),
                        "inconclusive");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_rc_probe_body_copies_every_agent_hardening_field, setup,
            teardown),
        cmocka_unit_test_setup_teardown(test_rc_probe_body_golden, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_rc_probe_body_never_holds_the_credential, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rc_probe_body_refuses_bad_inputs,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_rc_probe_body_gateway, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_rc_probe_body_gateway_refusals,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_rc_probe_name_and_address, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_rc_probe_join_keeps_hardening,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_rc_probe_landlock_flag, setup,
                                        teardown),
        cmocka_unit_test(test_rc_probe_parse_table),
        cmocka_unit_test(test_rc_probe_parse_gateway_table),
        cmocka_unit_test(test_rc_probe_parse_limits),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
