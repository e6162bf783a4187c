/* test_rc_desired.c - the desired state of one attempt, without Docker:
 * golden values of every hardening field of every body, /work read-only
 * by phase, the pinned image, one endpoint at create, the credential only
 * in the agent's Env and redacted everywhere else, exact labels, subnet
 * allocation, and a negative control that proves the golden check bites. */
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

#define SECRET "sk-TEST-9f8e7d6c5b4a-secret"
#define IMAGEID                                                                \
    "sha256:"                                                                  \
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID     "0123abcd-ef45-6789-aaaa-bbbbccccdddd"
#define PFX     "agentctl-demo-0123abcd"
#define NET     PFX "-net"
#define WS      PFX "-ws"
#define SCRATCH PFX "-scratch"

static const char cfg_text[] =
    "vendors:\n"
    "  fake: {hosts: [\"vendor.test:443\", \"Alt.Test:8443\"],\n"
    "         credentialEnv: FAKE_API_KEY, credentialMode: env,"
    "         allowPrivate: true}\n";

#define SPEC_FMT                                                               \
    "apiVersion: agentctl.dev/v1alpha1\n"                                      \
    "kind: AgentInvocation\n"                                                  \
    "metadata: {name: demo}\n"                                                 \
    "spec:\n"                                                                  \
    "  vendor: %s\n"                                                           \
    "  phase: %s\n"                                                            \
    "  image: my-agent:1\n"                                                    \
    "  command: [/demo-agent, --write-work]\n"                                 \
    "  env: {LOG_LEVEL: debug, A1: x}\n"                                       \
    "%s"                                                                       \
    "%s"                                                                       \
    "  scratch: {size: 64Mi, inodes: 10000}\n"                                 \
    "  resources: {memory: 1Gi, cpus: \"1.5\", pids: 256}\n"                   \
    "  deadlineSeconds: 1800\n"                                                \
    "  output: {maxBytes: 1048576}\n"                                          \
    "  attempt: a1\n"

#define WITH_WS                                                                \
    "  workspace: {source: repos/web, size: 512Mi, inodes: 100000}\n"
#define WITH_CRED "  credential: fk\n"

struct fixture {
    struct cfg *cfg;
    struct spec_invocation *inv;
    struct rc_inputs in;
    struct rc_desired *d;
};

static struct spec_invocation *
load_spec(const char *vendor, const char *phase, const char *ws,
          const char *cred)
{
    char text[2048];
    struct spec_file f;
    struct spec_invocation *inv;

    snprintf(text, sizeof(text), SPEC_FMT, vendor, phase, ws, cred);
    if (spec_load_buffer("s.yaml", text, strlen(text), &f) != 0) {
        spec_file_print_errors(&f, stderr);
        fail_msg("test spec does not load");
    }
    inv = spec_file_take(&f, 0);
    spec_file_cleanup(&f);
    return inv;
}

static struct cfg *
load_cfg(const char *text)
{
    struct spec_errors es;
    struct cfg *cfg =
        cfg_parse("c.yaml", text, strlen(text), &es);

    assert_non_null(cfg);
    return cfg;
}

static void
fixture_inputs(struct rc_inputs *in)
{
    memset(in, 0, sizeof(*in));
    in->controller_id = "ctl-a";
    in->uid = UID;
    in->image_id = IMAGEID;
    in->subnet_index = 5;
    in->credential = SECRET;
}

/* The full fixture: execute phase, workspace, credential. */
static struct fixture *
fixture_new(const char *phase, bool ws, bool cred)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    struct err e = { 0 };

    assert_non_null(fx);
    fx->cfg = load_cfg(cfg_text);
    fx->inv =
        load_spec("fake", phase, ws ? WITH_WS : "", cred ? WITH_CRED : "");
    fixture_inputs(&fx->in);
    if (!cred)
        fx->in.credential = NULL;
    fx->d = rc_desired_build(fx->inv, fx->cfg, &fx->in, &e);
    if (fx->d == NULL)
        fail_msg("build: %s: %s", e.field, e.msg);
    return fx;
}

static void
fixture_free(struct fixture *fx)
{
    rc_desired_free(fx->d);
    spec_invocation_free(fx->inv);
    cfg_free(fx->cfg);
    free(fx);
}

static char *
body_text(const struct rc_desired *d, enum rc_role role)
{
    const struct rc_object *o = rc_desired_object(d, role);

    assert_non_null(o);
    return cJSON_PrintUnformatted(o->body);
}

/* ---- golden table ------------------------------------------------------- */

/* Docker's defaults, stated in every body (plan/rc_harden.c). */
#define MASKED                                                                 \
    "[\"/proc/asound\",\"/proc/acpi\",\"/proc/kcore\",\"/proc/keys\","         \
    "\"/proc/latency_stats\",\"/proc/timer_list\",\"/proc/timer_stats\","      \
    "\"/proc/sched_debug\",\"/proc/scsi\",\"/sys/firmware\"]"
#define READONLY                                                               \
    "[\"/proc/bus\",\"/proc/fs\",\"/proc/irq\",\"/proc/sys\","                 \
    "\"/proc/sysrq-trigger\"]"
#define ULIMITS                                                                \
    "[{\"Name\":\"nofile\",\"Soft\":8192,\"Hard\":8192},"                      \
    "{\"Name\":\"nproc\",\"Soft\":16384,\"Hard\":16384}]"
#define IPV6_OFF                                                               \
    "{\"net.ipv6.conf.all.disable_ipv6\":\"1\","                               \
    "\"net.ipv6.conf.default.disable_ipv6\":\"1\"}"

#define HARDENED(role, pids, mem, shm, cpus)                                   \
    { role, "/HostConfig/MaskedPaths", MASKED },                               \
        { role, "/HostConfig/ReadonlyPaths", READONLY },                       \
        { role, "/HostConfig/Ulimits", ULIMITS },                              \
        { role, "/HostConfig/ShmSize", shm },                                  \
        { role, "/HostConfig/NanoCpus", cpus },                                \
        { role, "/HostConfig/Init", "true" },                                  \
        { role, "/HostConfig/Privileged", "false" },                           \
        { role, "/HostConfig/CapDrop", "[\"ALL\"]" },                          \
        { role, "/HostConfig/CapAdd", NULL },                                  \
        { role, "/HostConfig/ReadonlyRootfs", "true" },                        \
        { role, "/HostConfig/SecurityOpt", "[\"no-new-privileges\"]" },        \
        { role, "/HostConfig/RestartPolicy",                                   \
          "{\"Name\":\"no\",\"MaximumRetryCount\":0}" },                       \
        { role, "/HostConfig/Binds", NULL },                                   \
        { role, "/HostConfig/Devices", NULL },                                 \
        { role, "/HostConfig/Tmpfs", NULL },                                   \
        { role, "/HostConfig/PortBindings", "{}" },                            \
        { role, "/HostConfig/PublishAllPorts", "false" },                      \
        { role, "/HostConfig/IpcMode", "\"private\"" },                        \
        { role, "/HostConfig/PidsLimit", pids },                               \
        { role, "/HostConfig/Memory", mem },                                   \
        { role, "/HostConfig/MemorySwap", mem }, { role, "/Tty", "false" },    \
        { role, "/OpenStdin", "false" }, { role, "/AttachStdin", "false" },    \
        { role, "/StdinOnce", "false" },                                       \
    {                                                                          \
        role, "/StopTimeout", "2"                                              \
    }

#define LABELS(role)                                                           \
    "{\"agentctl.dev/managed-by\":\"ctl-a\","                                  \
    "\"agentctl.dev/invocation\":\"demo\","                                    \
    "\"agentctl.dev/uid\":\"" UID "\","                                        \
    "\"agentctl.dev/attempt\":\"a1\",\"agentctl.dev/role\":\"" role "\"}"

static const struct rc_golden golden[] = {
    /* network */
    { RC_ROLE_NETWORK, "/Name", "\"" NET "\"" },
    { RC_ROLE_NETWORK, "/Driver", "\"bridge\"" },
    { RC_ROLE_NETWORK, "/Internal", "true" },
    { RC_ROLE_NETWORK, "/CheckDuplicate", "true" },
    { RC_ROLE_NETWORK, "/EnableIPv6", "false" },
    { RC_ROLE_NETWORK, "/Options",
      "{\"com.docker.network.bridge.inhibit_ipv4\":\"true\"}" },
    { RC_ROLE_NETWORK, "/IPAM",
      "{\"Driver\":\"default\",\"Config\":[{\"Subnet\":\"10.213.5.0/24\","
      "\"Gateway\":\"10.213.5.1\"}]}" },
    { RC_ROLE_NETWORK, "/Labels", LABELS("network") },
    /* proxy */
    { RC_ROLE_PROXY, "/Image",
      "\"agentctl/egress-proxy:" AGENTCTL_VERSION "\"" },
    { RC_ROLE_PROXY, "/Cmd",
      "[\"--listen\",\"10.213.5.2:3128\",\"--allow\","
      "\"vendor.test:443,alt.test:8443\",\"--allow-private\"]" },
    { RC_ROLE_PROXY, "/User", "\"65534:65534\"" },
    { RC_ROLE_PROXY, "/Labels", LABELS("proxy") },
    { RC_ROLE_PROXY, "/HostConfig/NetworkMode", "\"" NET "\"" },
    { RC_ROLE_PROXY, "/HostConfig/Mounts", NULL },
    HARDENED(RC_ROLE_PROXY, "128", "67108864", "1048576", "1000000000"),
    { RC_ROLE_PROXY, "/HostConfig/Sysctls", "{\"net.ipv4.ip_forward\":\"0\"}" },
    { RC_ROLE_PROXY, "/NetworkingConfig",
      "{\"EndpointsConfig\":{\"" NET "\":{\"IPAMConfig\":"
      "{\"IPv4Address\":\"10.213.5.2\"}}}}" },
    /* volumes */
    { RC_ROLE_WORKSPACE, "/Name", "\"" WS "\"" },
    { RC_ROLE_WORKSPACE, "/Driver", "\"local\"" },
    { RC_ROLE_WORKSPACE, "/DriverOpts",
      "{\"type\":\"tmpfs\",\"device\":\"tmpfs\",\"o\":\"size=536870912,"
      "nr_inodes=100000,uid=1000,gid=1000,mode=0700,nosuid,nodev\"}" },
    { RC_ROLE_WORKSPACE, "/Labels", LABELS("workspace") },
    { RC_ROLE_SCRATCH, "/Name", "\"" SCRATCH "\"" },
    { RC_ROLE_SCRATCH, "/Driver", "\"local\"" },
    { RC_ROLE_SCRATCH, "/DriverOpts",
      "{\"type\":\"tmpfs\",\"device\":\"tmpfs\",\"o\":\"size=67108864,"
      "nr_inodes=10000,uid=1000,gid=1000,mode=0700,nosuid,nodev\"}" },
    { RC_ROLE_SCRATCH, "/Labels", LABELS("scratch") },
    /* keeper */
    { RC_ROLE_KEEPER, "/Image", "\"agentctl/keeper:" AGENTCTL_VERSION "\"" },
    { RC_ROLE_KEEPER, "/User", "\"1000:1000\"" },
    { RC_ROLE_KEEPER, "/Cmd", NULL },
    { RC_ROLE_KEEPER, "/Entrypoint", NULL },
    { RC_ROLE_KEEPER, "/Labels", LABELS("keeper") },
    { RC_ROLE_KEEPER, "/HostConfig/NetworkMode", "\"none\"" },
    { RC_ROLE_KEEPER, "/NetworkingConfig", NULL },
    HARDENED(RC_ROLE_KEEPER, "16", "16777216", "1048576", "100000000"),
    { RC_ROLE_KEEPER, "/HostConfig/Sysctls", NULL },
    { RC_ROLE_KEEPER, "/HostConfig/Mounts",
      "[{\"Type\":\"volume\",\"Source\":\"" WS "\",\"Target\":\"/work\","
      "\"ReadOnly\":false,\"VolumeOptions\":{\"NoCopy\":true}},"
      "{\"Type\":\"volume\",\"Source\":\"" SCRATCH "\",\"Target\":\"/tmp\","
      "\"ReadOnly\":false,\"VolumeOptions\":{\"NoCopy\":true}}]" },
    /* agent */
    { RC_ROLE_AGENT, "/Image", "\"" IMAGEID "\"" },
    { RC_ROLE_AGENT, "/Entrypoint", "[\"/demo-agent\",\"--write-work\"]" },
    { RC_ROLE_AGENT, "/Cmd", NULL },
    { RC_ROLE_AGENT, "/User", "\"1000:1000\"" },
    { RC_ROLE_AGENT, "/WorkingDir", "\"/work\"" },
    { RC_ROLE_AGENT, "/Labels", LABELS("agent") },
    { RC_ROLE_AGENT, "/Env",
      "[\"A1=x\",\"AGENT_PHASE=execute\",\"FAKE_API_KEY=" SECRET "\","
      "\"HOME=/tmp\",\"HTTPS_PROXY=http://10.213.5.2:3128\","
      "\"LOG_LEVEL=debug\",\"https_proxy=http://10.213.5.2:3128\"]" },
    HARDENED(RC_ROLE_AGENT, "256", "1073741824", "16777216", "1500000000"),
    { RC_ROLE_AGENT, "/HostConfig/Sysctls", IPV6_OFF },
    { RC_ROLE_AGENT, "/HostConfig/NetworkMode", "\"" NET "\"" },
    { RC_ROLE_AGENT, "/HostConfig/Dns", "[\"0.0.0.0\"]" },
    { RC_ROLE_AGENT, "/HostConfig/DnsOptions",
      "[\"timeout:1\",\"attempts:1\"]" },
    { RC_ROLE_AGENT, "/HostConfig/DnsSearch", "[]" },
    { RC_ROLE_AGENT, "/HostConfig/ExtraHosts", "[]" },
    { RC_ROLE_AGENT, "/HostConfig/PidMode", "\"\"" },
    { RC_ROLE_AGENT, "/HostConfig/LogConfig",
      "{\"Type\":\"local\",\"Config\":{\"max-size\":\"4096k\","
      "\"max-file\":\"2\",\"compress\":\"false\"}}" },
    { RC_ROLE_AGENT, "/HostConfig/Mounts",
      "[{\"Type\":\"volume\",\"Source\":\"" WS "\",\"Target\":\"/work\","
      "\"ReadOnly\":false,\"VolumeOptions\":{\"NoCopy\":true}},"
      "{\"Type\":\"volume\",\"Source\":\"" SCRATCH "\",\"Target\":\"/tmp\","
      "\"ReadOnly\":false,\"VolumeOptions\":{\"NoCopy\":true}}]" },
    { RC_ROLE_AGENT, "/NetworkingConfig",
      "{\"EndpointsConfig\":{\"" NET "\":{\"IPAMConfig\":"
      "{\"IPv4Address\":\"10.213.5.3\"}}}}" },
};

#define NGOLDEN (sizeof(golden) / sizeof(golden[0]))

static void
test_rc_desired_golden_hardening(void **state)
{
    struct fixture *fx = fixture_new("execute", true, true);
    const struct rc_golden *bad;
    char why[1024];

    (void)state;
    bad = rc_desired_check_golden(fx->d, golden, NGOLDEN, why, sizeof(why));
    if (bad != NULL)
        fail_msg("%s", why);
    fixture_free(fx);
}

/* Replace (or add) the value at pointer in body with the JSON text. */
static void
set_at(cJSON *body, const char *pointer, const char *json)
{
    char parent[256], key[256];
    const char *slash = strrchr(pointer, '/');
    cJSON *p, *v = cJSON_Parse(json);
    size_t n = 0;

    assert_non_null(v);
    snprintf(parent, sizeof(parent), "%.*s", (int)(slash - pointer), pointer);
    /* The last token, unescaped (~1 is '/'). */
    for (const char *k = slash + 1; *k != '\0' && n + 1 < sizeof(key); k++) {
        key[n++] = (k[0] == '~' && k[1] == '1') ? '/' : *k;
        k += k[0] == '~' && k[1] == '1';
    }
    key[n] = '\0';
    p = (cJSON *)rc_json_at(body, parent);
    assert_non_null(p);
    if (cJSON_IsArray(p))
        assert_true(cJSON_ReplaceItemInArray(p, atoi(key), v));
    else if (cJSON_GetObjectItemCaseSensitive(p, key) != NULL)
        assert_true(cJSON_ReplaceItemInObjectCaseSensitive(p, key, v));
    else
        assert_true(cJSON_AddItemToObject(p, key, v));
}

struct flip {
    enum rc_role role;
    const char *pointer;
    const char *json;
    const char *caught_at; /* golden pointer that must catch it */
};

static const struct flip flips[] = {
    { RC_ROLE_AGENT, "/HostConfig/ReadonlyRootfs", "false",
      "/HostConfig/ReadonlyRootfs" },
    { RC_ROLE_AGENT, "/HostConfig/CapDrop/0", "\"NET_RAW\"",
      "/HostConfig/CapDrop" },
    { RC_ROLE_AGENT, "/HostConfig/CapAdd", "[\"SYS_ADMIN\"]",
      "/HostConfig/CapAdd" },
    { RC_ROLE_AGENT, "/HostConfig/Binds", "[\"/:/host\"]",
      "/HostConfig/Binds" },
    { RC_ROLE_AGENT, "/HostConfig/Dns/0", "\"8.8.8.8\"", "/HostConfig/Dns" },
    { RC_ROLE_AGENT, "/HostConfig/ExtraHosts", "[\"x:1.2.3.4\"]",
      "/HostConfig/ExtraHosts" },
    { RC_ROLE_AGENT, "/HostConfig/Mounts/0/ReadOnly", "true",
      "/HostConfig/Mounts" },
    { RC_ROLE_AGENT, "/Image", "\"my-agent:1\"", "/Image" },
    { RC_ROLE_AGENT, "/Labels/agentctl.dev~1role", "\"proxy\"", "/Labels" },
    { RC_ROLE_PROXY, "/HostConfig/RestartPolicy/Name", "\"always\"",
      "/HostConfig/RestartPolicy" },
    { RC_ROLE_PROXY, "/HostConfig/PublishAllPorts", "true",
      "/HostConfig/PublishAllPorts" },
    { RC_ROLE_PROXY, "/HostConfig/Mounts", "[]", "/HostConfig/Mounts" },
    { RC_ROLE_PROXY, "/NetworkingConfig/EndpointsConfig/agentctl-egress", "{}",
      "/NetworkingConfig" },
    { RC_ROLE_NETWORK, "/Options/com.docker.network.bridge.inhibit_ipv4",
      "\"false\"", "/Options" },
    { RC_ROLE_NETWORK, "/Internal", "false", "/Internal" },
    { RC_ROLE_KEEPER, "/HostConfig/NetworkMode", "\"bridge\"",
      "/HostConfig/NetworkMode" },
    { RC_ROLE_SCRATCH, "/Labels/extra", "\"1\"", "/Labels" },
    { RC_ROLE_AGENT, "/HostConfig/MaskedPaths", "[]",
      "/HostConfig/MaskedPaths" },
    { RC_ROLE_AGENT, "/HostConfig/ReadonlyPaths/3", "\"/proc/other\"",
      "/HostConfig/ReadonlyPaths" },
    { RC_ROLE_AGENT, "/HostConfig/Sysctls/net.ipv6.conf.all.disable_ipv6",
      "\"0\"", "/HostConfig/Sysctls" },
    { RC_ROLE_PROXY, "/HostConfig/Ulimits", "[]", "/HostConfig/Ulimits" },
    { RC_ROLE_KEEPER, "/HostConfig/ShmSize", "67108864",
      "/HostConfig/ShmSize" },
    { RC_ROLE_KEEPER, "/HostConfig/NanoCpus", "0", "/HostConfig/NanoCpus" },
    { RC_ROLE_SCRATCH, "/DriverOpts/o",
      "\"size=67108864,nr_inodes=10000,uid=1000,gid=1000,mode=0700\"",
      "/DriverOpts" },
};

/* Negative control: each flipped field in a copy of a good body is caught
 * by the golden table, at the field that was flipped. */
static void
test_rc_desired_golden_catches_a_flip(void **state)
{
    struct fixture *fx = fixture_new("execute", true, true);
    char why[1024];

    (void)state;
    for (size_t i = 0; i < sizeof(flips) / sizeof(flips[0]); i++) {
        const struct flip *f = &flips[i];
        const struct rc_object *o = rc_desired_object(fx->d, f->role);
        cJSON *copy = cJSON_Duplicate(o->body, true);
        const struct rc_golden *bad;

        /* Unflipped, the copy passes. */
        assert_null(
            rc_golden_check(f->role, copy, golden, NGOLDEN, why, sizeof(why)));
        set_at(copy, f->pointer, f->json);
        bad = rc_golden_check(f->role, copy, golden, NGOLDEN, why, sizeof(why));
        if (bad == NULL || strcmp(bad->pointer, f->caught_at) != 0)
            fail_msg("flip %s %s not caught at %s (%s)", rc_role_name(f->role),
                     f->pointer, f->caught_at, bad ? why : "passed");
        cJSON_Delete(copy);
    }
    fixture_free(fx);
}

static void
test_rc_desired_work_read_only_by_phase(void **state)
{
    static const struct {
        const char *phase;
        bool ro;
    } cases[] = {
        { "planning", true }, { "questions", true }, { "review", true },
        { "execute", false }, { "fix", false },
    };
    char env[64];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fixture *fx = fixture_new(cases[i].phase, true, false);
        const cJSON *agent = rc_desired_object(fx->d, RC_ROLE_AGENT)->body;
        const cJSON *keeper = rc_desired_object(fx->d, RC_ROLE_KEEPER)->body;
        const cJSON *envs = rc_json_at(agent, "/Env");
        bool found = false;

        assert_string_equal(
            rc_json_at(agent, "/HostConfig/Mounts/0/Target")->valuestring,
            "/work");
        assert_true(
            cJSON_IsBool(rc_json_at(agent, "/HostConfig/Mounts/0/ReadOnly")));
        if (cJSON_IsTrue(rc_json_at(agent, "/HostConfig/Mounts/0/ReadOnly")) !=
            cases[i].ro)
            fail_msg("phase %s: /work ReadOnly should be %d", cases[i].phase,
                     cases[i].ro);
        /* /tmp is always writable, and the keeper always mounts rw. */
        assert_true(
            cJSON_IsFalse(rc_json_at(agent, "/HostConfig/Mounts/1/ReadOnly")));
        assert_true(
            cJSON_IsFalse(rc_json_at(keeper, "/HostConfig/Mounts/0/ReadOnly")));
        snprintf(env, sizeof(env), "AGENT_PHASE=%s", cases[i].phase);
        for (const cJSON *s = envs->child; s != NULL; s = s->next)
            found = found || strcmp(s->valuestring, env) == 0;
        assert_true(found);
        fixture_free(fx);
    }
}

/* AppArmor is named exactly when the daemon has it (rc_inputs.apparmor,
 * from GET /info): the docker-default profile on every container; without
 * it SecurityOpt stays no-new-privileges alone (the golden table). */
static void
test_rc_desired_apparmor_only_where_the_host_has_it(void **state)
{
    struct fixture *fx = fixture_new("review", true, false);
    static const enum rc_role roles[] = { RC_ROLE_PROXY, RC_ROLE_KEEPER,
                                          RC_ROLE_AGENT };
    struct rc_inputs in = fx->in;
    struct rc_desired *d;
    struct err e = { 0 };

    (void)state;
    in.apparmor = true;
    d = rc_desired_build(fx->inv, fx->cfg, &in, &e);
    assert_non_null(d);
    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
        char *with = cJSON_PrintUnformatted(rc_json_at(
            rc_desired_object(d, roles[i])->body, "/HostConfig/SecurityOpt"));
        char *without = cJSON_PrintUnformatted(
            rc_json_at(rc_desired_object(fx->d, roles[i])->body,
                       "/HostConfig/SecurityOpt"));

        assert_string_equal(with,
                            "[\"no-new-privileges\",\"apparmor=docker-default\"]");
        assert_string_equal(without, "[\"no-new-privileges\"]");
        free(with);
        free(without);
    }
    rc_desired_free(d);
    fixture_free(fx);
}

/* A warm box taken (rc_inputs.box): the network and the proxy carry the
 * box's names and labels - the ones the pool made them with - and the
 * agent is on the box's network; every other object keeps the
 * invocation's. Control: without the box, the same roles are the
 * invocation's own (fx->d). */
static void
test_rc_desired_warm_box_names_its_network_and_proxy(void **state)
{
    struct fixture *fx = fixture_new("review", true, false);
    const struct rc_box box = { "pool.fake", "0123456789abcdef", "w1" };
    struct rc_inputs in = fx->in;
    struct rc_desired *d;
    struct err e = { 0 };
    char *agent_net;

    (void)state;
    in.box = &box;
    d = rc_desired_build(fx->inv, fx->cfg, &in, &e);
    assert_non_null(d);
    assert_string_equal(d->objects[RC_ROLE_NETWORK].name,
                        "agentctl-pool.fake-01234567-net");
    assert_string_equal(d->objects[RC_ROLE_PROXY].name,
                        "agentctl-pool.fake-01234567-proxy");
    assert_string_equal(rc_json_at(d->objects[RC_ROLE_PROXY].body,
                                   "/Labels/agentctl.dev~1invocation")
                            ->valuestring,
                        "pool.fake");
    assert_string_equal(rc_json_at(d->objects[RC_ROLE_NETWORK].body,
                                   "/Labels/agentctl.dev~1uid")
                            ->valuestring,
                        "0123456789abcdef");
    assert_string_equal(rc_json_at(d->objects[RC_ROLE_NETWORK].body,
                                   "/Labels/agentctl.dev~1attempt")
                            ->valuestring,
                        "w1");
    /* the invocation's own objects keep its identity */
    assert_string_equal(d->objects[RC_ROLE_AGENT].name,
                        fx->d->objects[RC_ROLE_AGENT].name);
    assert_string_equal(
        rc_json_at(d->objects[RC_ROLE_AGENT].body, "/Labels/agentctl.dev~1uid")
            ->valuestring,
        fx->in.uid);
    agent_net = cJSON_PrintUnformatted(
        rc_json_at(d->objects[RC_ROLE_AGENT].body, "/HostConfig/NetworkMode"));
    assert_string_equal(agent_net, "\"agentctl-pool.fake-01234567-net\"");
    free(agent_net);
    /* the control: no box, the invocation's names */
    assert_string_not_equal(fx->d->objects[RC_ROLE_NETWORK].name,
                            d->objects[RC_ROLE_NETWORK].name);
    rc_desired_free(d);
    /* an identity that does not fit a name or a label is refused */
    {
        const struct rc_box bad = { "pool/fake", "0123456789abcdef", "w1" };

        in.box = &bad;
        assert_null(rc_desired_build(fx->inv, fx->cfg, &in, &e));
    }
    fixture_free(fx);
}

/* An attempt an older version captured (status without defaultsStated)
 * gets the bodies its boxes were made from: none of rc_harden's fields,
 * volumes without nosuid,nodev - or an upgrade would find every running
 * box drifted. */
static void
test_rc_desired_legacy_bodies_leave_the_defaults_out(void **state)
{
    struct fixture *fx = fixture_new("review", true, false);
    static const char *const stated[] = {
        "/HostConfig/MaskedPaths", "/HostConfig/ReadonlyPaths",
        "/HostConfig/Ulimits",     "/HostConfig/ShmSize",
        "/HostConfig/Sysctls",
    };
    struct rc_inputs in = fx->in;
    struct rc_desired *d;
    struct err e = { 0 };
    const cJSON *o;

    (void)state;
    in.legacy_bodies = true;
    d = rc_desired_build(fx->inv, fx->cfg, &in, &e);
    assert_non_null(d);
    for (size_t i = 0; i < sizeof(stated) / sizeof(stated[0]); i++) {
        assert_null(rc_json_at(rc_desired_object(d, RC_ROLE_AGENT)->body,
                               stated[i]));
        assert_non_null(rc_json_at(
            rc_desired_object(fx->d, RC_ROLE_AGENT)->body, stated[i]));
    }
    assert_null(rc_json_at(rc_desired_object(d, RC_ROLE_PROXY)->body,
                           "/HostConfig/NanoCpus"));
    o = rc_json_at(rc_desired_object(d, RC_ROLE_SCRATCH)->body,
                   "/DriverOpts/o");
    assert_non_null(o);
    assert_null(strstr(o->valuestring, "nosuid"));
    rc_desired_free(d);
    fixture_free(fx);
}

static void
test_rc_desired_pins_image_id(void **state)
{
    struct fixture *fx = fixture_new("review", true, false);
    char *text = body_text(fx->d, RC_ROLE_AGENT);
    static const char *const bad_ids[] = {
        "my-agent:1",
        "sha256:0123",
        "sha256:" /* 64 upper-case hex */
        "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",
        NULL,
    };

    (void)state;
    assert_non_null(strstr(text, IMAGEID));
    assert_null(strstr(text, "my-agent:1")); /* the tag is nowhere */
    free(text);
    for (size_t i = 0; i < 3; i++) {
        struct rc_inputs in = fx->in;
        struct err e = { 0 };

        in.image_id = bad_ids[i];
        assert_null(rc_desired_build(fx->inv, fx->cfg, &in, &e));
        assert_int_equal(e.code, ERR_INVALID);
        assert_non_null(strstr(e.msg, "pinned as sha256:<64 hex>"));
    }
    fixture_free(fx);
}

static const char *
image_of(const struct rc_desired *d, enum rc_role role)
{
    const cJSON *v = rc_json_at(rc_desired_object(d, role)->body, "/Image");

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The helpers run the images pinned at capture: their bodies name the
 * IDs, never the config's tags; an attempt captured before helpers were
 * pinned (no IDs) keeps the tags; an ID that is not one, or only some of
 * the three, is refused. */
static void
test_rc_desired_pins_helper_images(void **state)
{
    struct fixture *fx = fixture_new("execute", true, true);
    static const char px[] = "sha256:1111111111111111111111111111111111111111"
                             "111111111111111111111111";
    static const char kp[] = "sha256:2222222222222222222222222222222222222222"
                             "222222222222222222222222";
    static const char pr[] = "sha256:3333333333333333333333333333333333333333"
                             "333333333333333333333333";
    struct rc_inputs in = fx->in;
    struct rc_desired *d;
    struct err e = { 0 };

    (void)state;
    /* legacy: by tag */
    assert_false(fx->d->helpers_pinned);
    assert_string_equal(image_of(fx->d, RC_ROLE_PROXY), fx->cfg->proxy_image);
    assert_string_equal(fx->d->helper_images[RC_HELPER_PROBE],
                        fx->cfg->probe_image);
    in.helper_image_ids[RC_HELPER_PROXY] = px;
    in.helper_image_ids[RC_HELPER_KEEPER] = kp;
    in.helper_image_ids[RC_HELPER_PROBE] = pr;
    d = rc_desired_build(fx->inv, fx->cfg, &in, &e);
    assert_non_null(d);
    assert_true(d->helpers_pinned);
    assert_string_equal(image_of(d, RC_ROLE_PROXY), px);
    assert_string_equal(image_of(d, RC_ROLE_KEEPER), kp);
    assert_string_equal(d->helper_images[RC_HELPER_PROBE], pr);
    rc_desired_free(d);
    in.helper_image_ids[RC_HELPER_KEEPER] = fx->cfg->keeper_image;
    assert_null(rc_desired_build(fx->inv, fx->cfg, &in, &e));
    assert_int_equal(e.code, ERR_INVALID);
    assert_non_null(strstr(e.msg, "keeper"));
    in.helper_image_ids[RC_HELPER_KEEPER] = NULL;
    assert_null(rc_desired_build(fx->inv, fx->cfg, &in, &e));
    assert_int_equal(e.code, ERR_INVALID);
    fixture_free(fx);
}

static void
test_rc_desired_one_endpoint_at_create(void **state)
{
    struct fixture *fx = fixture_new("execute", true, true);
    static const enum rc_role roles[] = { RC_ROLE_PROXY, RC_ROLE_AGENT };
    cJSON *conn;
    char *text;

    (void)state;
    for (size_t i = 0; i < 2; i++) {
        const cJSON *b = rc_desired_object(fx->d, roles[i])->body;
        const cJSON *ec = rc_json_at(b, "/NetworkingConfig/EndpointsConfig");

        assert_int_equal(cJSON_GetArraySize(ec), 1);
        assert_string_equal(ec->child->string, NET);
        text = cJSON_PrintUnformatted(b);
        assert_null(strstr(text, "agentctl-egress")); /* joined later */
        free(text);
    }
    assert_string_equal(fx->d->egress_network, "agentctl-egress");
    conn = rc_desired_egress_connect(fx->d, "c0ffee");
    assert_non_null(conn);
    text = cJSON_PrintUnformatted(conn);
    assert_string_equal(text,
                        "{\"Container\":\"c0ffee\",\"EndpointConfig\":{}}");
    free(text);
    cJSON_Delete(conn);
    fixture_free(fx);
}

static void
test_rc_desired_credential_only_in_agent_env(void **state)
{
    struct fixture *fx = fixture_new("execute", true, true);
    const enum rc_role *order = rc_role_order(false);
    char *text, *red;

    (void)state;
    for (size_t i = 0; i < RC_ROLE_COUNT; i++) {
        const struct rc_object *o = rc_desired_object(fx->d, order[i]);

        if (o == NULL)
            continue; /* git and config: no .git, no prompt here */
        text = cJSON_PrintUnformatted(o->body);
        red = rc_desired_redacted_json(fx->d, order[i]);
        assert_non_null(red);
        assert_null(strstr(red, SECRET));
        if (order[i] == RC_ROLE_AGENT) {
            /* Negative control: the raw body does hold it, once, in Env. */
            assert_true(o->sensitive);
            assert_non_null(strstr(text, "\"FAKE_API_KEY=" SECRET "\""));
            assert_null(strstr(strstr(text, SECRET) + 1, SECRET));
            assert_non_null(strstr(red, "\"FAKE_API_KEY=<redacted>\""));
        } else {
            assert_false(o->sensitive);
            assert_null(strstr(text, SECRET));
            assert_string_equal(red, text);
        }
        free(text);
        free(red);
    }
    /* Any JSON holding the value (an inspect result) is redacted too. */
    {
        cJSON *j = cJSON_Parse("{\"a\":[\"x " SECRET " y\"],\"b\":\"ok\"}");

        red = rc_desired_redact(fx->d, j);
        assert_string_equal(red, "{\"a\":[\"<redacted>\"],\"b\":\"ok\"}");
        free(red);
        cJSON_Delete(j);
    }
    fixture_free(fx);

    /* Without a credential nothing is sensitive and no variable is set. */
    fx = fixture_new("execute", true, false);
    assert_false(rc_desired_object(fx->d, RC_ROLE_AGENT)->sensitive);
    text = body_text(fx->d, RC_ROLE_AGENT);
    assert_null(strstr(text, "FAKE_API_KEY"));
    free(text);
    fixture_free(fx);
}

static void
test_rc_desired_labels_exact_on_every_object(void **state)
{
    struct fixture *fx = fixture_new("planning", true, false);

    (void)state;
    for (int r = 0; r < RC_ROLE_COUNT; r++) {
        const struct rc_object *o = rc_desired_object(fx->d, (enum rc_role)r);
        const cJSON *l;
        cJSON *want;

        if (o == NULL)
            continue; /* git and config: no .git, no prompt here */
        l = rc_json_at(o->body, "/Labels");
        want = cJSON_CreateObject();

        cJSON_AddStringToObject(want, "agentctl.dev/managed-by", "ctl-a");
        cJSON_AddStringToObject(want, "agentctl.dev/invocation", "demo");
        cJSON_AddStringToObject(want, "agentctl.dev/uid", UID);
        cJSON_AddStringToObject(want, "agentctl.dev/attempt", "a1");
        cJSON_AddStringToObject(want, "agentctl.dev/role", rc_role_name(r));
        assert_int_equal(cJSON_GetArraySize(l), 5);
        assert_true(cJSON_Compare(want, l, true));
        cJSON_Delete(want);
        assert_int_equal(o->role, r);
        assert_true(strncmp(o->name, PFX, strlen(PFX)) == 0);
        assert_string_equal(o->name + strlen(PFX), rc_role_suffix(r));
    }
    fixture_free(fx);
}

static void
test_rc_desired_without_workspace(void **state)
{
    struct fixture *fx = fixture_new("execute", false, false);
    const cJSON *agent = rc_desired_object(fx->d, RC_ROLE_AGENT)->body;
    const cJSON *keeper = rc_desired_object(fx->d, RC_ROLE_KEEPER)->body;

    (void)state;
    assert_null(rc_desired_object(fx->d, RC_ROLE_WORKSPACE));
    assert_int_equal(
        cJSON_GetArraySize(rc_json_at(agent, "/HostConfig/Mounts")), 1);
    assert_string_equal(
        rc_json_at(agent, "/HostConfig/Mounts/0/Target")->valuestring, "/tmp");
    assert_string_equal(rc_json_at(agent, "/WorkingDir")->valuestring, "/tmp");
    assert_int_equal(
        cJSON_GetArraySize(rc_json_at(keeper, "/HostConfig/Mounts")), 1);
    fixture_free(fx);
}

static void
test_rc_subnet_allocation(void **state)
{
    static const struct {
        unsigned index;
        const char *cidr, *gw, *proxy, *agent;
    } cases[] = {
        { 0, "10.213.0.0/24", "10.213.0.1", "10.213.0.2", "10.213.0.3" },
        { 1, "10.213.1.0/24", "10.213.1.1", "10.213.1.2", "10.213.1.3" },
        { 255, "10.213.255.0/24", "10.213.255.1", "10.213.255.2",
          "10.213.255.3" },
    };
    struct cfg *cfg = load_cfg("");
    struct cfg *small = load_cfg("subnetPool: 192.168.7.0/24\n");
    struct cfg *big = load_cfg("subnetPool: 10.0.0.0/8\n");
    char cidr[RC_CIDR_MAX], gw[RC_IP_MAX], px[RC_IP_MAX], ag[RC_IP_MAX];
    struct err e = { 0 };

    (void)state;
    assert_int_equal(rc_subnet_count(cfg), 256);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(
            rc_subnet_for(cfg, cases[i].index, cidr, gw, px, ag, &e), 0);
        assert_string_equal(cidr, cases[i].cidr);
        assert_string_equal(gw, cases[i].gw);
        assert_string_equal(px, cases[i].proxy);
        assert_string_equal(ag, cases[i].agent);
    }
    assert_int_equal(rc_subnet_for(cfg, 256, cidr, gw, px, ag, &e), -1);
    assert_int_equal(e.code, ERR_LIMIT);
    assert_non_null(strstr(e.msg, "outside subnetPool 10.213.0.0/16"));
    assert_int_equal(rc_subnet_count(small), 1);
    assert_int_equal(rc_subnet_for(small, 0, cidr, gw, px, ag, &e), 0);
    assert_string_equal(cidr, "192.168.7.0/24");
    assert_int_equal(rc_subnet_for(small, 1, cidr, gw, px, ag, &e), -1);
    assert_int_equal(rc_subnet_count(big), 65536);
    assert_int_equal(rc_subnet_for(big, 65535, cidr, gw, px, ag, &e), 0);
    assert_string_equal(cidr, "10.255.255.0/24");
    assert_string_equal(ag, "10.255.255.3");
    cfg_free(cfg);
    cfg_free(small);
    cfg_free(big);
}

static void
test_rc_desired_refusals(void **state)
{
    struct fixture *fx = fixture_new("execute", true, true);
    struct spec_invocation *inv;
    struct rc_inputs in;
    struct err e = { 0 };
    static const char prompt_spec[] =
        "apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n"
        "metadata: {name: p}\nspec:\n  vendor: fake\n  phase: planning\n"
        "  image: a:1\n  prompt: fix it\n  deadlineSeconds: 60\n"
        "  env: {AGENT_PROMPT: x}\n";
    struct spec_file f;

    (void)state;
    /* A prompt spec may not set a variable its adapter sets. */
    assert_int_equal(
        spec_load_buffer("p.yaml", prompt_spec, strlen(prompt_spec), &f), 0);
    inv = spec_file_take(&f, 0);
    spec_file_cleanup(&f);
    in = fx->in;
    in.credential = NULL;
    assert_null(rc_desired_build(inv, fx->cfg, &in, &e));
    assert_string_equal(e.field, "spec.env");
    assert_string_equal(e.msg, "AGENT_PROMPT is set by the generic adapter");
    spec_invocation_free(inv);

    /* Admission runs again: an unknown vendor is refused. */
    inv = load_spec("nope", "execute", "", "");
    in.credential = NULL;
    assert_null(rc_desired_build(inv, fx->cfg, &in, &e));
    assert_string_equal(e.field, "spec.vendor");
    spec_invocation_free(inv);

    /* Inputs. */
    in = fx->in;
    in.subnet_index = 256;
    assert_null(rc_desired_build(fx->inv, fx->cfg, &in, &e));
    assert_int_equal(e.code, ERR_LIMIT);
    in = fx->in;
    in.credential = NULL; /* spec names one */
    assert_null(rc_desired_build(fx->inv, fx->cfg, &in, &e));
    assert_non_null(strstr(e.msg, "given together"));
    in = fx->in;
    in.controller_id = "a b";
    assert_null(rc_desired_build(fx->inv, fx->cfg, &in, &e));
    assert_non_null(strstr(e.msg, "controller ID"));
    in = fx->in;
    in.uid = "short";
    assert_null(rc_desired_build(fx->inv, fx->cfg, &in, &e));
    assert_non_null(strstr(e.msg, "uid"));
    fixture_free(fx);
}

static void
test_rc_desired_order_and_determinism(void **state)
{
    static const enum rc_role create[] = {
        RC_ROLE_NETWORK, RC_ROLE_PROXY, RC_ROLE_WORKSPACE, RC_ROLE_GIT,
        RC_ROLE_CONFIG,  RC_ROLE_KEY,   RC_ROLE_SCRATCH,   RC_ROLE_KEEPER,
        RC_ROLE_GATEWAY, RC_ROLE_AGENT,
    };
    const enum rc_role *c = rc_role_order(false), *d = rc_role_order(true);
    struct fixture *a = fixture_new("fix", true, true);
    struct fixture *b = fixture_new("fix", true, true);

    (void)state;
    for (int i = 0; i < RC_ROLE_COUNT; i++) {
        char *ta, *tb;

        assert_int_equal(c[i], create[i]);
        assert_int_equal(d[i], create[RC_ROLE_COUNT - 1 - i]);
        if (rc_desired_object(a->d, (enum rc_role)i) == NULL)
            continue;
        ta = body_text(a->d, (enum rc_role)i);
        tb = body_text(b->d, (enum rc_role)i);
        assert_string_equal(ta, tb);
        free(ta);
        free(tb);
    }
    assert_int_equal(a->d->objects[RC_ROLE_NETWORK].kind, RC_KIND_NETWORK);
    assert_int_equal(a->d->objects[RC_ROLE_SCRATCH].kind, RC_KIND_VOLUME);
    assert_int_equal(a->d->objects[RC_ROLE_AGENT].kind, RC_KIND_CONTAINER);
    assert_string_equal(a->d->proxy_url, "http://10.213.5.2:3128");
    fixture_free(a);
    fixture_free(b);
}

static void
test_rc_json_at_pointers(void **state)
{
    cJSON *j = cJSON_Parse("{\"a/b\":{\"c~d\":[1,{\"e\":true}]},\"\":2}");

    (void)state;
    assert_ptr_equal(rc_json_at(j, ""), j);
    assert_true(cJSON_IsTrue(rc_json_at(j, "/a~1b/c~0d/1/e")));
    assert_int_equal(rc_json_at(j, "/a~1b/c~0d/0")->valueint, 1);
    assert_int_equal(rc_json_at(j, "/")->valueint, 2);
    assert_null(rc_json_at(j, "/a~1b/c~0d/2"));
    assert_null(rc_json_at(j, "/a~1b/c~0d/01"));
    assert_null(rc_json_at(j, "/a~1b/c~0d/-1"));
    assert_null(rc_json_at(j, "/a~2b"));
    assert_null(rc_json_at(j, "a"));
    assert_null(rc_json_at(j, "/a~1b/c~0d/1/e/f"));
    cJSON_Delete(j);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rc_desired_golden_hardening),
        cmocka_unit_test(test_rc_desired_golden_catches_a_flip),
        cmocka_unit_test(test_rc_desired_apparmor_only_where_the_host_has_it),
        cmocka_unit_test(test_rc_desired_legacy_bodies_leave_the_defaults_out),
        cmocka_unit_test(test_rc_desired_work_read_only_by_phase),
        cmocka_unit_test(test_rc_desired_pins_image_id),
        cmocka_unit_test(test_rc_desired_pins_helper_images),
        cmocka_unit_test(test_rc_desired_one_endpoint_at_create),
        cmocka_unit_test(test_rc_desired_credential_only_in_agent_env),
        cmocka_unit_test(test_rc_desired_labels_exact_on_every_object),
        cmocka_unit_test(test_rc_desired_without_workspace),
        cmocka_unit_test(test_rc_subnet_allocation),
        cmocka_unit_test(test_rc_desired_refusals),
        cmocka_unit_test(test_rc_desired_order_and_determinism),
        cmocka_unit_test(test_rc_json_at_pointers),
        cmocka_unit_test(test_rc_desired_warm_box_names_its_network_and_proxy),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
