/* test_rc_drift.c - the drift checker against real inspect results
 * (tests/unit/fixtures/drift/, captured from dockerd 20.10 for the bodies
 * rc_desired_build() makes from the spec below): every fixture as captured
 * shows no drift; for every rule a mutation that breaks exactly that rule
 * is reported with that rule, field, expected and observed value, and is
 * not reported with the rule in disabled_rules (the negative control
 * the integration tests rely on); the rule table and docs/drift-rules.md
 * agree row for row; no report holds the credential.
 *
 * `test_rc_drift --write-doc docs/drift-rules.md` rewrites the generated
 * table of the doc from the code. */
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

#define DOC_BEGIN                                                              \
    "<!-- rules:begin (generated: test_rc_drift --write-doc) -->\n"
#define DOC_END "<!-- rules:end -->\n"

/* s holds exactly rules a and b (a == b: one rule). */
static bool
same_set(const struct rc_drift_set *s, size_t a, size_t b)
{
    struct rc_drift_set want = { { 0 } };

    rc_drift_set_add(&want, a);
    rc_drift_set_add(&want, b);
    return memcmp(s, &want, sizeof(want)) == 0;
}

static const char *
str_at(const cJSON *j, const char *ptr)
{
    const cJSON *v = rc_json_at(j, ptr);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The image's Config for the container's recorded .Image. */
static const cJSON *
image_config(const struct drift_fx *fx, const char *image_id)
{
    const cJSON *im;

    cJSON_ArrayForEach(im, fx->images)
    {
        if (strcmp(str_at(im, "/Id"), image_id) == 0)
            return rc_json_at(im, "/Config");
    }
    fail_msg("no image %s in images.json", image_id);
    return NULL;
}

static const char *const both[] = { PROXY_ID, AGENT_ID };

/* What the controller recorded when it made the fixture objects: the
 * agent runs, so {proxy, agent} are allowed and required. */
static void
expect_for(const struct drift_fx *fx, enum rc_role role,
           struct rc_drift_expect *x)
{
    const cJSON *o = fx->obj[role];

    memset(x, 0, sizeof(*x));
    x->id = str_at(o, "/Id");
    x->created_at = str_at(o, "/CreatedAt");
    if (role == RC_ROLE_NETWORK) {
        x->allowed = both;
        x->n_allowed = 2;
        x->required = both;
        x->n_required = 2;
    } else if (x->id != NULL) {
        x->image_id = str_at(o, "/Image");
        x->image_config = image_config(fx, x->image_id);
    }
}

/* Set (json != NULL) or delete the value at an RFC 6901 pointer of the
 * test's own copy; "-" appends to an array. */
static void
mutate(cJSON *root, const char *ptr, const char *json)
{
    char parent[512], key[256];
    const char *slash = strrchr(ptr, '/');
    cJSON *p, *v = NULL;
    size_t k = 0;

    snprintf(parent, sizeof(parent), "%.*s", (int)(slash - ptr), ptr);
    for (const char *s = slash + 1; *s != '\0' && k + 1 < sizeof(key); s++)
        if (s[0] == '~' && (s[1] == '1' || s[1] == '0')) {
            key[k++] = s[1] == '1' ? '/' : '~';
            s++;
        } else {
            key[k++] = *s;
        }
    key[k] = '\0';
    p = (cJSON *)rc_json_at(root, parent);
    if (p == NULL)
        fail_msg("no parent %s", parent);
    if (json != NULL && (v = cJSON_Parse(json)) == NULL)
        fail_msg("bad JSON %s", json);
    if (cJSON_IsArray(p) && strcmp(key, "-") == 0)
        cJSON_AddItemToArray(p, v);
    else if (cJSON_IsArray(p) && v != NULL)
        cJSON_ReplaceItemInArray(p, atoi(key), v);
    else if (cJSON_IsArray(p))
        cJSON_DeleteItemFromArray(p, atoi(key));
    else if (v == NULL)
        cJSON_DeleteItemFromObjectCaseSensitive(p, key);
    else if (cJSON_GetObjectItemCaseSensitive(p, key) != NULL)
        cJSON_ReplaceItemInObjectCaseSensitive(p, key, v);
    else
        cJSON_AddItemToObject(p, key, v);
}

static void
assert_no_secret(const struct rc_drift_report *r)
{
    assert_null(strstr(r->field, SECRET));
    assert_null(strstr(r->expected, SECRET));
    assert_null(strstr(r->observed, SECRET));
    assert_null(strstr(r->message, SECRET));
}

/* ---- one mutation per rule (at least) ----------------------------------- */

/* A change to one fixture and what must be reported: rule, field,
 * expected and observed (NULL: too long to spell out, not compared). */
struct mut {
    enum rc_role role;
    const char *rule;
    const char *ptr;  /* JSON pointer into the inspect result */
    const char *json; /* new value; NULL deletes */
    const char *field;
    const char *exp;
    const char *obs;
};

#define N        RC_ROLE_NETWORK
#define P        RC_ROLE_PROXY
#define K        RC_ROLE_KEEPER
#define A        RC_ROLE_AGENT
#define WS       RC_ROLE_WORKSPACE
#define SC       RC_ROLE_SCRATCH
#define Q        "\""
#define NETS_PTR "/NetworkSettings/Networks/"
#define RED      "=<redacted>\""

static const struct mut muts[] = {
    /* network */
    { N, "network.id", "/Id", Q OTHER_ID Q, "Id", Q NET_ID Q, Q OTHER_ID Q },
    { N, "network.labels", "/Labels/agentctl.dev~1attempt", "\"a2\"",
      "Labels.agentctl.dev/attempt", "\"a1\"", "\"a2\"" },
    { N, "network.labels", "/Labels/extra", "\"1\"", "Labels.extra", "null",
      "\"1\"" },
    { N, "network.driver", "/Driver", "\"macvlan\"", "Driver", "\"bridge\"",
      "\"macvlan\"" },
    { N, "network.internal", "/Internal", "false", "Internal", "true",
      "false" },
    { N, "network.enable-ipv6", "/EnableIPv6", "true", "EnableIPv6", "false",
      "true" },
    { N, "network.ipam", "/IPAM/Config/0/Subnet", "\"10.250.8.0/24\"",
      "IPAM.Config",
      "[{\"Subnet\":\"10.250.7.0/24\",\"Gateway\":\"10.250.7.1\"}]",
      "[{\"Subnet\":\"10.250.8.0/24\",\"Gateway\":\"10.250.7.1\"}]" },
    { N, "network.ipam", "/IPAM/Config/-", "{\"Subnet\":\"10.9.0.0/24\"}",
      "IPAM.Config", NULL, NULL },
    { N, "network.options", "/Options/com.docker.network.bridge.inhibit_ipv4",
      NULL, "Options", "{\"com.docker.network.bridge.inhibit_ipv4\":\"true\"}",
      "{}" },
    { N, "network.options", "/Options/com.docker.network.bridge.inhibit_ipv4",
      "\"false\"", "Options.com.docker.network.bridge.inhibit_ipv4", "\"true\"",
      "\"false\"" },
    { N, "network.endpoint-extra", "/Containers/" OTHER_ID,
      "{\"Name\":\"intruder\",\"IPv4Address\":\"10.250.7.9/24\"}", "Containers",
      "[\"2d0e76472d09\",\"4d8f8c4d992a\"]",
      "{\"eeeeeeeeeeee\":\"intruder\"}" },
    { N, "network.endpoint-missing", "/Containers/" PROXY_ID, NULL,
      "Containers", "[\"2d0e76472d09\",\"4d8f8c4d992a\"]",
      "[\"4d8f8c4d992a\"]" },
    /* containers: identity and command */
    { P, "container.id", "/Id", Q OTHER_ID Q, "Id", Q PROXY_ID Q,
      Q OTHER_ID Q },
    { K, "container.name", "/Name", "\"/old-keeper\"", "Name",
      "\"/agentctl-driftfx-5eedf00d-keeper\"", "\"/old-keeper\"" },
    { A, "container.labels", "/Config/Labels/agentctl.dev~1role", "\"proxy\"",
      "Config.Labels.agentctl.dev/role", "\"agent\"", "\"proxy\"" },
    { P, "container.labels", "/Config/Labels/agentctl.dev~1image", NULL,
      "Config.Labels.agentctl.dev/image", "\"true\"", "null" },
    { A, "container.image-id", "/Image", "\"sha256:" OTHER_ID "\"", "Image",
      Q AGENT_IMAGE Q, "\"sha256:" OTHER_ID "\"" },
    { P, "container.image", "/Config/Image", "\"agentctl/egress-proxy:0.2.0\"",
      "Config.Image", "\"agentctl/egress-proxy:0.1.0\"",
      "\"agentctl/egress-proxy:0.2.0\"" },
    { A, "container.entrypoint", "/Config/Entrypoint/-", "\"--evil\"",
      "Config.Entrypoint",
      "[\"/demo-agent\",\"--write-work\",\"--sleep\",\"300\"]",
      "[\"/demo-agent\",\"--write-work\",\"--sleep\",\"300\",\"--evil\"]" },
    { P, "container.entrypoint", "/Config/Entrypoint", "[\"/bin/sh\"]",
      "Config.Entrypoint", "[\"/egress-proxy\"]", "[\"/bin/sh\"]" },
    { P, "container.cmd", "/Config/Cmd/3", "\"evil.test:443\"", "Config.Cmd",
      "[\"--listen\",\"10.250.7.2:3128\",\"--allow\",\"vendor.test:443\","
      "\"--allow-private\"]",
      "[\"--listen\",\"10.250.7.2:3128\",\"--allow\",\"evil.test:443\","
      "\"--allow-private\"]" },
    { A, "container.cmd", "/Config/Cmd", "[\"x\"]", "Config.Cmd", "null",
      "[\"x\"]" },
    { A, "container.env", "/Config/Env/-", "\"LD_PRELOAD=/x.so\"", "Config.Env",
      "null", "\"LD_PRELOAD" RED },
    { A, "container.env", "/Config/Env/1", "\"FAKE_API_KEY=other\"",
      "Config.Env", "\"FAKE_API_KEY" RED, "\"FAKE_API_KEY" RED },
    { A, "container.env", "/Config/Env/3", NULL, "Config.Env",
      "\"HTTPS_PROXY" RED, "null" },
    { A, "container.env", "/Config/Env/6", "\"PATH=/evil\"", "Config.Env",
      "\"PATH" RED, "\"PATH" RED },
    { A, "container.env", "/Config/Env/-", "\"LOG_LEVEL=debug\"", "Config.Env",
      "7", "8" },
    { P, "container.env", "/Config/Env/-", "\"NO_PROXY=*\"", "Config.Env",
      "null", "\"NO_PROXY=*\"" },
    { K, "container.user", "/Config/User", "\"0:0\"", "Config.User",
      "\"1000:1000\"", "\"0:0\"" },
    { A, "container.workdir", "/Config/WorkingDir", "\"/\"",
      "Config.WorkingDir", "\"/work\"", "\"/\"" },
    { A, "container.stdin", "/Config/OpenStdin", "true", "Config.OpenStdin",
      "false", "true" },
    { A, "container.exec-ids", "/ExecIDs", "[\"3c5e0a\"]", "ExecIDs", "null",
      "[\"3c5e0a\"]" },
    { P, "container.exec-ids", "/ExecIDs", "[\"3c5e0a\"]", "ExecIDs", "null",
      "[\"3c5e0a\"]" },
    /* containers: privilege */
    { A, "container.privileged", "/HostConfig/Privileged", "true",
      "HostConfig.Privileged", "false", "true" },
    { P, "container.cap-add", "/HostConfig/CapAdd", "[\"NET_ADMIN\"]",
      "HostConfig.CapAdd", "null", "[\"NET_ADMIN\"]" },
    { K, "container.cap-drop", "/HostConfig/CapDrop", "[]",
      "HostConfig.CapDrop", "[\"ALL\"]", "[]" },
    { A, "container.readonly-rootfs", "/HostConfig/ReadonlyRootfs", "false",
      "HostConfig.ReadonlyRootfs", "true", "false" },
    { A, "container.security-opt", "/HostConfig/SecurityOpt/-",
      "\"seccomp=unconfined\"", "HostConfig.SecurityOpt",
      "[\"no-new-privileges\"]",
      "[\"no-new-privileges\",\"seccomp=unconfined\"]" },
    /* Docker's defaults, stated in the bodies (plan/rc_harden.c) */
    { A, "container.apparmor", "/AppArmorProfile", "\"unconfined\"",
      "AppArmorProfile", "\"\"", "\"unconfined\"" },
    { A, "container.masked-paths", "/HostConfig/MaskedPaths", "[]",
      "HostConfig.MaskedPaths", NULL, "[]" },
    { P, "container.masked-paths", "/HostConfig/MaskedPaths/2", NULL,
      "HostConfig.MaskedPaths", NULL, NULL },
    { K, "container.readonly-paths", "/HostConfig/ReadonlyPaths", "[]",
      "HostConfig.ReadonlyPaths", NULL, "[]" },
    { A, "container.sysctls", "/HostConfig/Sysctls/net.ipv6.conf.all.disable_ipv6",
      "\"0\"", "HostConfig.Sysctls.net.ipv6.conf.all.disable_ipv6", "\"1\"",
      "\"0\"" },
    /* the proxy routes nothing: forwarding on under it is drift */
    { P, "container.sysctls", "/HostConfig/Sysctls/net.ipv4.ip_forward",
      "\"1\"", "HostConfig.Sysctls.net.ipv4.ip_forward", "\"0\"",
      "\"1\"" },
    { A, "container.ulimits", "/HostConfig/Ulimits/0/Hard", "1048576",
      "HostConfig.Ulimits", NULL, NULL },
    { K, "container.ulimits", "/HostConfig/Ulimits", "[]", "HostConfig.Ulimits",
      NULL, "[]" },
    { A, "container.shm-size", "/HostConfig/ShmSize", "67108864",
      "HostConfig.ShmSize", "16777216", "67108864" },
    { P, "container.shm-size", "/HostConfig/ShmSize", "2147483648",
      "HostConfig.ShmSize", "1048576", "2147483648" },
    { P, "container.restart-policy", "/HostConfig/RestartPolicy/Name",
      "\"always\"", "HostConfig.RestartPolicy.Name", "\"no\"", "\"always\"" },
    { K, "container.restart-policy", "/HostConfig/RestartPolicy",
      "{\"Name\":\"on-failure\",\"MaximumRetryCount\":3}",
      "HostConfig.RestartPolicy.Name", "\"no\"", "\"on-failure\"" },
    { A, "container.restart-policy",
      "/HostConfig/RestartPolicy/MaximumRetryCount", "5",
      "HostConfig.RestartPolicy.MaximumRetryCount", "0", "5" },
    /* containers: network */
    { A, "container.dns", "/HostConfig/Dns/-", "\"8.8.8.8\"", "HostConfig.Dns",
      "[\"0.0.0.0\"]", "[\"0.0.0.0\",\"8.8.8.8\"]" },
    { P, "container.dns", "/HostConfig/Dns", "[\"1.1.1.1\"]", "HostConfig.Dns",
      "null", "[\"1.1.1.1\"]" },
    { A, "container.dns-options", "/HostConfig/DnsOptions", "[\"ndots:5\"]",
      "HostConfig.DnsOptions", "[\"timeout:1\",\"attempts:1\"]",
      "[\"ndots:5\"]" },
    { A, "container.dns-search", "/HostConfig/DnsSearch", "[\"corp.invalid\"]",
      "HostConfig.DnsSearch", "[]", "[\"corp.invalid\"]" },
    { A, "container.extra-hosts", "/HostConfig/ExtraHosts/-",
      "\"vendor.test:10.250.7.9\"", "HostConfig.ExtraHosts", "[]",
      "[\"vendor.test:10.250.7.9\"]" },
    { K, "container.network-mode", "/HostConfig/NetworkMode", "\"host\"",
      "HostConfig.NetworkMode", "\"none\"", "\"host\"" },
    { P, "container.networks", NETS_PTR EGRESS, NULL,
      "NetworkSettings.Networks", "[\"" NET "\",\"" EGRESS "\"]",
      "[\"" NET "\"]" },
    { A, "container.networks", NETS_PTR "bridge", "{}",
      "NetworkSettings.Networks", "[\"" NET "\"]", "[\"" NET "\",\"bridge\"]" },
    { P, "container.internal-ip", NETS_PTR NET "/IPAddress", "\"10.250.7.9\"",
      "NetworkSettings.Networks." NET ".IPAddress", "\"10.250.7.2\"",
      "\"10.250.7.9\"" },
    { A, "container.internal-ip", NETS_PTR NET "/IPAMConfig/IPv4Address",
      "\"10.250.7.9\"",
      "NetworkSettings.Networks." NET ".IPAMConfig.IPv4Address",
      "\"10.250.7.3\"", "\"10.250.7.9\"" },
    { K, "container.port-bindings", "/HostConfig/PortBindings/8080~1tcp",
      "[{\"HostIp\":\"127.0.0.1\",\"HostPort\":\"18090\"}]",
      "HostConfig.PortBindings", "{}",
      "{\"8080/tcp\":[{\"HostIp\":\"127.0.0.1\",\"HostPort\":\"18090\"}]}" },
    { A, "container.publish-all-ports", "/HostConfig/PublishAllPorts", "true",
      "HostConfig.PublishAllPorts", "false", "true" },
    { P, "container.ports-live", "/NetworkSettings/Ports/3128~1tcp",
      "[{\"HostIp\":\"0.0.0.0\",\"HostPort\":\"3128\"}]",
      "NetworkSettings.Ports.3128/tcp", "null",
      "[{\"HostIp\":\"0.0.0.0\",\"HostPort\":\"3128\"}]" },
    /* containers: storage */
    { K, "container.mounts", "/HostConfig/Mounts/-",
      "{\"Type\":\"bind\",\"Source\":\"/\",\"Target\":\"/host\"}",
      "HostConfig.Mounts", NULL, NULL },
    { A, "container.mounts", "/HostConfig/Mounts/0/ReadOnly", "true",
      "HostConfig.Mounts", NULL, NULL },
    { P, "container.mounts", "/HostConfig/Mounts",
      "[{\"Type\":\"volume\",\"Source\":\"x\",\"Target\":\"/x\"}]",
      "HostConfig.Mounts", "null",
      "[{\"Type\":\"volume\",\"Source\":\"x\",\"Target\":\"/x\"}]" },
    { A, "container.live-mounts", "/Mounts/1/RW", "false", "Mounts", NULL,
      NULL },
    { P, "container.live-mounts", "/Mounts/-",
      "{\"Type\":\"bind\",\"Source\":\"/var/run/docker.sock\","
      "\"Destination\":\"/run/docker.sock\",\"RW\":true}",
      "Mounts", "[]",
      "[{\"Type\":\"bind\",\"Source\":\"/var/run/docker.sock\","
      "\"Destination\":\"/run/docker.sock\",\"RW\":true}]" },
    { K, "container.binds", "/HostConfig/Binds", "[\"/:/host\"]",
      "HostConfig.Binds", "null", "[\"/:/host\"]" },
    { A, "container.volumes-from", "/HostConfig/VolumesFrom", "[\"other\"]",
      "HostConfig.VolumesFrom", "null", "[\"other\"]" },
    { A, "container.tmpfs", "/HostConfig/Tmpfs", "{\"/run\":\"size=1g\"}",
      "HostConfig.Tmpfs", "null", "{\"/run\":\"size=1g\"}" },
    { P, "container.devices", "/HostConfig/Devices",
      "[{\"PathOnHost\":\"/dev/kmsg\",\"PathInContainer\":\"/dev/kmsg\","
      "\"CgroupPermissions\":\"r\"}]",
      "HostConfig.Devices", "null", NULL },
    /* containers: namespaces and limits */
    { A, "container.pid-mode", "/HostConfig/PidMode", "\"host\"",
      "HostConfig.PidMode", "\"\"", "\"host\"" },
    { K, "container.ipc-mode", "/HostConfig/IpcMode", "\"host\"",
      "HostConfig.IpcMode", "\"private\"", "\"host\"" },
    { P, "container.uts-mode", "/HostConfig/UTSMode", "\"host\"",
      "HostConfig.UTSMode", "\"\"", "\"host\"" },
    { A, "container.userns-mode", "/HostConfig/UsernsMode", "\"host\"",
      "HostConfig.UsernsMode", "\"\"", "\"host\"" },
    { K, "container.cgroupns-mode", "/HostConfig/CgroupnsMode", "\"private\"",
      "HostConfig.CgroupnsMode", "\"host\"", "\"private\"" },
    { A, "container.memory", "/HostConfig/Memory", "1073741824",
      "HostConfig.Memory", "268435456", "1073741824" },
    { P, "container.memory-swap", "/HostConfig/MemorySwap", "-1",
      "HostConfig.MemorySwap", "67108864", "-1" },
    { A, "container.nano-cpus", "/HostConfig/NanoCpus", "2000000000",
      "HostConfig.NanoCpus", "500000000", "2000000000" },
    { K, "container.nano-cpus", "/HostConfig/NanoCpus", "1000000000",
      "HostConfig.NanoCpus", "100000000", "1000000000" },
    { P, "container.nano-cpus", "/HostConfig/NanoCpus", "0",
      "HostConfig.NanoCpus", "1000000000", "0" },
    { A, "container.pids-limit", "/HostConfig/PidsLimit", "-1",
      "HostConfig.PidsLimit", "64", "-1" },
    { P, "container.init", "/HostConfig/Init", "false", "HostConfig.Init",
      "true", "false" },
    /* volumes */
    { WS, "volume.created-at", "/CreatedAt", "\"2026-12-02T10:09:00Z\"",
      "CreatedAt", "\"2026-12-02T10:05:06Z\"", "\"2026-12-02T10:09:00Z\"" },
    { SC, "volume.labels", "/Labels/agentctl.dev~1managed-by", "\"other\"",
      "Labels.agentctl.dev/managed-by", "\"ctl-fx\"", "\"other\"" },
    { WS, "volume.driver", "/Driver", "\"nfs\"", "Driver", "\"local\"",
      "\"nfs\"" },
    { WS, "volume.options", "/Options/o",
      "\"size=1073741824,nr_inodes=1000,uid=1000,gid=1000,mode=0700\"",
      "Options.o",
      "\"size=8388608,nr_inodes=1000,uid=1000,gid=1000,mode=0700,nosuid,nodev\"",
      "\"size=1073741824,nr_inodes=1000,uid=1000,gid=1000,mode=0700\"" },
    /* nosuid,nodev lost: setuid binaries and device nodes on the tmpfs */
    { WS, "volume.options", "/Options/o",
      "\"size=8388608,nr_inodes=1000,uid=1000,gid=1000,mode=0700\"",
      "Options.o", NULL,
      "\"size=8388608,nr_inodes=1000,uid=1000,gid=1000,mode=0700\"" },
    { SC, "volume.options", "/Options/type", "\"ext4\"", "Options.type",
      "\"tmpfs\"", "\"ext4\"" },
};

static void
check_mut(struct drift_fx *fx, size_t i, const struct mut *m)
{
    struct rc_drift_expect x;
    struct rc_drift_report r;
    cJSON *obj = cJSON_Duplicate(fx->obj[m->role], true);
    int bit = rc_drift_rule_by_id(m->rule);
    int rc;

    assert_non_null(obj);
    if (bit < 0)
        fail_msg("case %zu: unknown rule %s", i, m->rule);
    mutate(obj, m->ptr, m->json);
    expect_for(fx, m->role, &x);
    rc = rc_drift_check(fx->d, m->role, obj, &x, &r);
    if (rc != 1)
        fail_msg("case %zu (%s %s): rc %d", i, m->rule, m->ptr, rc);
    print_message("case %zu: %s\n", i, r.message);
    assert_string_equal(r.rule, m->rule);
    assert_int_equal(r.role, m->role);
    /* exactly this rule and no other */
    assert_int_equal(r.count, 1);
    assert_true(same_set(&r.drifted, (size_t)bit, (size_t)bit));
    assert_string_equal(r.field, m->field);
    if (m->exp != NULL)
        assert_string_equal(r.expected, m->exp);
    if (m->obs != NULL)
        assert_string_equal(r.observed, m->obs);
    assert_non_null(strstr(r.message, rc_desired_object(fx->d, m->role)->name));
    assert_no_secret(&r);
    /* negative control: the switch turns exactly this finding off */
    rc_drift_set_add(&x.disabled_rules, (size_t)bit);
    assert_int_equal(rc_drift_check(fx->d, m->role, obj, &x, &r), 0);
    assert_int_equal(r.count, 0);
    cJSON_Delete(obj);
}

static void
test_mutations_reported(void **state)
{
    for (size_t i = 0; i < sizeof(muts) / sizeof(muts[0]); i++)
        check_mut(*state, i, &muts[i]);
}

/* Every rule of the table has a mutation above; object.gone (no inspect
 * to mutate) is test_rc_drift_ids.c's, the rules about other containers
 * (container.joined, volume.foreign-mount) test_rc_drift_neighbour.c's, the
 * canary's (probe.*) test_rc_probe.c's and drift/test_canary.sh's,
 * container.waiting (a record that says the agent waits)
 * test_rc_drift_wait.c's. */
static void
test_every_rule_mutated(void **state)
{
    (void)state;
    for (size_t i = 0; i < rc_drift_rule_count(); i++) {
        size_t j;

        /* container.image-pinned is about the record, not the inspect:
         * test_image_pinned */
        if (strcmp(rc_drift_rule_id(i), "object.gone") == 0 ||
            strcmp(rc_drift_rule_id(i), "container.image-pinned") == 0 ||
            rc_drift_rule_at(i)->cmp == RC_CMP_NEIGHBOUR ||
            rc_drift_rule_at(i)->cmp == RC_CMP_CANARY ||
            rc_drift_rule_at(i)->cmp == RC_CMP_WAITING)
            continue;
        for (j = 0; j < sizeof(muts) / sizeof(muts[0]); j++)
            if (strcmp(muts[j].rule, rc_drift_rule_id(i)) == 0)
                break;
        if (j == sizeof(muts) / sizeof(muts[0]))
            fail_msg("rule %s has no mutation test", rc_drift_rule_id(i));
    }
}

/* ---- the fixtures as captured ------------------------------------------- */

static void
test_fixtures_clean(void **state)
{
    struct drift_fx *fx = *state;

    for (int role = 0; role < RC_ROLE_COUNT; role++) {
        struct rc_drift_expect x;
        struct rc_drift_report r;
        int rc;

        if (fx->obj[role] == NULL)
            continue;
        expect_for(fx, role, &x);
        rc = rc_drift_check(fx->d, role, fx->obj[role], &x, &r);
        if (rc != 0)
            fail_msg("%s: rc %d: %s", rc_role_name(role), rc, r.message);
        assert_int_equal(r.count, 0);
        assert_true(rc_drift_set_empty(&r.drifted));
    }
}

/* An attempt captured before the proxy's body stated ip_forward off
 * (rc_inputs forwarding_unstated): its running proxy, made without the
 * sysctl, is no drift; the same proxy is drift for an attempt captured
 * now (the upgrade path of docs/security-defaults.md). */
static void
test_forwarding_unstated_clean(void **state)
{
    struct drift_fx *fx = *state;
    struct rc_inputs in;
    struct err e = { 0 };
    struct rc_desired *older, *keep = fx->d;
    cJSON *old = cJSON_Duplicate(fx->obj[RC_ROLE_PROXY], true);
    struct rc_drift_expect x;
    struct rc_drift_report r;

    mutate(old, "/HostConfig/Sysctls", "null");
    expect_for(fx, RC_ROLE_PROXY, &x);
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_PROXY, old, &x, &r), 1);
    assert_string_equal(r.rule, "container.sysctls");
    drift_fx_inputs(&in);
    in.forwarding_unstated = true;
    older = rc_desired_build(fx->inv, fx->cfg, &in, &e);
    assert_non_null(older);
    fx->d = older;
    expect_for(fx, RC_ROLE_PROXY, &x);
    if (rc_drift_check(older, RC_ROLE_PROXY, old, &x, &r) != 0)
        fail_msg("older proxy: %s", r.message);
    fx->d = keep;
    rc_desired_free(older);
    cJSON_Delete(old);
}

/* An attempt an older version captured: its bodies (rc_inputs
 * legacy_bodies) leave Docker's defaults out, and its boxes - the fixtures
 * as they were before the bodies stated them - show Docker's defaults:
 * no drift, AppArmor's docker-default allowed too, unconfined not. */
static void
test_legacy_bodies_clean(void **state)
{
    struct drift_fx *fx = *state;
    struct rc_inputs in;
    static const enum rc_role roles[] = { RC_ROLE_PROXY, RC_ROLE_KEEPER,
                                          RC_ROLE_AGENT, RC_ROLE_WORKSPACE,
                                          RC_ROLE_SCRATCH };
    struct err e = { 0 };
    struct rc_desired *legacy;
    struct rc_desired *keep = fx->d;

    drift_fx_inputs(&in);
    in.legacy_bodies = true;
    legacy = rc_desired_build(fx->inv, fx->cfg, &in, &e);
    assert_non_null(legacy);
    fx->d = legacy; /* expect_for reads fx */
    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
        enum rc_role role = roles[i];
        cJSON *old = cJSON_Duplicate(fx->obj[role], true);
        struct rc_drift_expect x;
        struct rc_drift_report r;

        if (rc_role_kind(role) == RC_KIND_VOLUME) {
            char o[200];

            snprintf(o, sizeof(o), "%s", str_at(old, "/Options/o"));
            *strstr(o, ",nosuid,nodev") = '\0';
            mutate(old, "/Options/o", NULL);
            cJSON_AddStringToObject(
                cJSON_GetObjectItemCaseSensitive(old, "Options"), "o", o);
        } else {
            mutate(old, "/HostConfig/Ulimits", "null");
            mutate(old, "/HostConfig/ShmSize", "67108864");
            mutate(old, "/HostConfig/Sysctls", "null");
            if (role != RC_ROLE_AGENT)
                mutate(old, "/HostConfig/NanoCpus", "0");
        }
        expect_for(fx, role, &x);
        if (rc_drift_check(legacy, role, old, &x, &r) != 0)
            fail_msg("legacy %s: %s", rc_role_name(role), r.message);
        if (rc_role_kind(role) == RC_KIND_CONTAINER) {
            mutate(old, "/AppArmorProfile", "\"docker-default\"");
            assert_int_equal(rc_drift_check(legacy, role, old, &x, &r), 0);
            mutate(old, "/AppArmorProfile", "\"unconfined\"");
            assert_int_equal(rc_drift_check(legacy, role, old, &x, &r), 1);
            assert_string_equal(r.rule, "container.apparmor");
        }
        cJSON_Delete(old);
    }
    fx->d = keep;
    rc_desired_free(legacy);
}

/* container.image-pinned: each container runs the image its role was
 * pinned to at capture. The fixtures' helpers were created from tags; an
 * attempt that pinned other IDs (a tag moved between capture and create,
 * or a box adopted from another body) is drift by this rule alone, and
 * not with the rule switched off. With the bodies naming the pinned IDs
 * (as Docker then echoes them in Config.Image) the same boxes are clean;
 * no pin (an attempt captured before helpers were pinned) checks nothing. */
static void
test_image_pinned(void **state)
{
    static const enum rc_role roles[] = { RC_ROLE_PROXY, RC_ROLE_KEEPER,
                                          RC_ROLE_AGENT };
    struct drift_fx *fx = *state;
    int bit = rc_drift_rule_by_id("container.image-pinned");
    struct rc_inputs in;
    struct err e = { 0 };
    struct rc_desired *pinned;

    drift_fx_inputs(&in);
    in.helper_image_ids[RC_HELPER_PROXY] =
        str_at(fx->obj[RC_ROLE_PROXY], "/Image");
    in.helper_image_ids[RC_HELPER_KEEPER] =
        str_at(fx->obj[RC_ROLE_KEEPER], "/Image");
    in.helper_image_ids[RC_HELPER_PROBE] = "sha256:" OTHER_ID;
    pinned = rc_desired_build(fx->inv, fx->cfg, &in, &e);
    assert_true(bit >= 0);
    assert_non_null(pinned);
    assert_true(pinned->helpers_pinned);
    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
        enum rc_role role = roles[i];
        const char *ran = str_at(fx->obj[role], "/Image");
        cJSON *obj = cJSON_Duplicate(fx->obj[role], true);
        struct rc_drift_expect x;
        struct rc_drift_report r;

        expect_for(fx, role, &x);
        x.pinned_image = "sha256:" OTHER_ID;
        assert_int_equal(rc_drift_check(fx->d, role, obj, &x, &r), 1);
        print_message("pinned %s: %s\n", rc_role_name(role), r.message);
        assert_string_equal(r.rule, "container.image-pinned");
        assert_int_equal(r.count, 1);
        assert_string_equal(r.field, "Image");
        assert_string_equal(r.expected, "\"sha256:" OTHER_ID "\"");
        rc_drift_set_add(&x.disabled_rules, (size_t)bit);
        assert_int_equal(rc_drift_check(fx->d, role, obj, &x, &r), 0);
        /* no pin: nothing to compare */
        memset(&x.disabled_rules, 0, sizeof(x.disabled_rules));
        x.pinned_image = NULL;
        assert_int_equal(rc_drift_check(fx->d, role, obj, &x, &r), 0);
        /* created from the pinned ID: clean */
        mutate(obj, "/Config/Image", NULL);
        cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(obj, "Config"),
                                "Image", ran);
        x.pinned_image = ran;
        if (rc_drift_check(pinned, role, obj, &x, &r) != 0)
            fail_msg("pinned %s: %s", rc_role_name(role), r.message);
        cJSON_Delete(obj);
    }
    rc_desired_free(pinned);
}

/* Before the agent starts (a second capture: agent created, not started;
 * the network with only the proxy running): clean, with the endpoint sets
 * the controller passes in that phase. The running agent's fixture is an
 * extra endpoint then. */
static void
test_before_start_clean(void **state)
{
    struct drift_fx *fx = *state;
    static const char *const proxy2[] = {
        "5bd4fb943bb71157fdafa81ec2b9c270ffaf967dbf789de015aa8e93588f2e68"
    };
    cJSON *agent = drift_read_fixture("agent-created.json");
    cJSON *net = drift_read_fixture("network-before-agent.json");
    struct rc_drift_expect x;
    struct rc_drift_report r;

    memset(&x, 0, sizeof(x));
    x.id = str_at(agent, "/Id");
    x.image_id = str_at(agent, "/Image");
    x.image_config = image_config(fx, x.image_id);
    assert_false(cJSON_IsTrue(rc_json_at(agent, "/State/Running")));
    if (rc_drift_check(fx->d, RC_ROLE_AGENT, agent, &x, &r) != 0)
        fail_msg("created agent: %s", r.message);
    memset(&x, 0, sizeof(x));
    x.id = str_at(net, "/Id");
    x.allowed = proxy2;
    x.n_allowed = 1;
    x.required = proxy2;
    x.n_required = 1;
    if (rc_drift_check(fx->d, RC_ROLE_NETWORK, net, &x, &r) != 0)
        fail_msg("network before start: %s", r.message);
    cJSON_Delete(agent);
    cJSON_Delete(net);
}

/* Which endpoints may and must be there follows the phase: the network
 * before the agent runs, with a probe, and after the agent exited. */
static void
test_endpoints_by_phase(void **state)
{
    struct drift_fx *fx = *state;
    static const char *const proxy_only[] = { PROXY_ID };
    static const char *const with_probe[] = { PROXY_ID, AGENT_ID, OTHER_ID };
    struct rc_drift_expect x;
    struct rc_drift_report r;
    cJSON *net = cJSON_Duplicate(fx->obj[RC_ROLE_NETWORK], true);

    expect_for(fx, RC_ROLE_NETWORK, &x);
    /* before start: the running agent is an extra endpoint */
    x.allowed = proxy_only;
    x.n_allowed = 1;
    x.required = proxy_only;
    x.n_required = 1;
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_NETWORK, net, &x, &r), 1);
    assert_string_equal(r.rule, "network.endpoint-extra");
    assert_string_equal(
        r.observed, "{\"4d8f8c4d992a\":\"agentctl-driftfx-5eedf00d-agent\"}");
    assert_non_null(strstr(r.message, "extra endpoint 4d8f8c4d992a"));
    /* ... and without it, clean */
    mutate(net, "/Containers/" AGENT_ID, NULL);
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_NETWORK, net, &x, &r), 0);
    /* a running probe is allowed while it runs */
    mutate(net, "/Containers/" OTHER_ID, "{\"Name\":\"probe\"}");
    x.allowed = with_probe;
    x.n_allowed = 3;
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_NETWORK, net, &x, &r), 0);
    /* the agent exited (Containers lists running endpoints only): allowed,
     * not required */
    x.required = proxy_only;
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_NETWORK, net, &x, &r), 0);
    cJSON_Delete(net);
}

/* While a container of the attempt is torn down, Docker lists its
 * endpoint as "ep-<endpoint id>" with the container's name: that is the
 * agent or probe on its way out, not an extra endpoint. The same key with
 * any other name is a stranger (negative control). */
static void
test_own_endpoint_going(void **state)
{
    struct drift_fx *fx = *state;
    static const char *const proxy_only[] = { PROXY_ID };
    struct rc_drift_expect x;
    struct rc_drift_report r;
    cJSON *net = cJSON_Duplicate(fx->obj[RC_ROLE_NETWORK], true);
    static const char *const own[] = {
        "{\"Name\":\"agentctl-driftfx-5eedf00d-agent\"}",
        "{\"Name\":\"agentctl-driftfx-5eedf00d-probe\"}",
    };
    static const char *const strangers[] = {
        "{\"Name\":\"agentctl-driftfx-5eedf00d-agentx\"}",
        "{\"Name\":\"intruder\"}",
        "{}",
    };

    expect_for(fx, RC_ROLE_NETWORK, &x);
    x.allowed = proxy_only;
    x.n_allowed = 1;
    x.required = proxy_only;
    x.n_required = 1;
    mutate(net, "/Containers/" AGENT_ID, NULL);
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
        mutate(net, "/Containers/ep-0123456789ab", own[i]);
        assert_int_equal(rc_drift_check(fx->d, RC_ROLE_NETWORK, net, &x, &r),
                         0);
    }
    for (size_t i = 0; i < sizeof(strangers) / sizeof(strangers[0]); i++) {
        mutate(net, "/Containers/ep-0123456789ab", strangers[i]);
        assert_int_equal(rc_drift_check(fx->d, RC_ROLE_NETWORK, net, &x, &r),
                         1);
        assert_string_equal(r.rule, "network.endpoint-extra");
    }
    /* an own name under a container-ID key is an endpoint like any other */
    mutate(net, "/Containers/ep-0123456789ab", NULL);
    mutate(net, "/Containers/" OTHER_ID, own[0]);
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_NETWORK, net, &x, &r), 1);
    cJSON_Delete(net);
}

/* A created, not started agent has no IPAddress yet; a running one must. */
static void
test_internal_ip_before_start(void **state)
{
    struct drift_fx *fx = *state;
    struct rc_drift_expect x;
    struct rc_drift_report r;
    cJSON *a = cJSON_Duplicate(fx->obj[RC_ROLE_AGENT], true);

    expect_for(fx, RC_ROLE_AGENT, &x);
    mutate(a, NETS_PTR NET "/IPAddress", "\"\"");
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_AGENT, a, &x, &r), 1);
    assert_string_equal(r.rule, "container.internal-ip");
    assert_string_equal(r.observed, "\"\"");
    mutate(a, "/State/Running", "false");
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_AGENT, a, &x, &r), 0);
    /* the recorded address wins over the desired one */
    x.internal_ip = "10.250.7.4";
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_AGENT, a, &x, &r), 1);
    assert_string_equal(r.expected, "\"10.250.7.4\"");
    cJSON_Delete(a);
}

/* The workspace fixture's CreatedAt (10:05:06) is not when it was created
 * (10:05:01): while mounted it is the ctime of the tmpfs root, moved by
 * the keeper's mount and the agent's writes. So volume.created-at runs
 * only when the controller passes created_at (before any container holds
 * the volume). */
static void
test_volume_created_at_optional(void **state)
{
    struct drift_fx *fx = *state;
    struct rc_drift_expect x;
    struct rc_drift_report r;
    cJSON *v = cJSON_Duplicate(fx->obj[RC_ROLE_WORKSPACE], true);

    mutate(v, "/CreatedAt", "\"2026-12-02T10:05:01Z\"");
    expect_for(fx, RC_ROLE_WORKSPACE, &x);
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_WORKSPACE, v, &x, &r), 1);
    assert_string_equal(r.rule, "volume.created-at");
    x.created_at = NULL;
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_WORKSPACE, v, &x, &r), 0);
    /* the other volume rules still run */
    mutate(v, "/Driver", "\"nfs\"");
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_WORKSPACE, v, &x, &r), 1);
    assert_string_equal(r.rule, "volume.driver");
    cJSON_Delete(v);
}

/* What the controller may pass instead of the defaults: the daemon's
 * cgroupns default (private on cgroup v2) and the attached networks. */
static void
test_expect_overrides(void **state)
{
    struct drift_fx *fx = *state;
    static const char *const nets[] = { "none", "other" };
    struct rc_drift_expect x;
    struct rc_drift_report r;
    cJSON *k = cJSON_Duplicate(fx->obj[RC_ROLE_KEEPER], true);

    mutate(k, "/HostConfig/CgroupnsMode", "\"private\"");
    expect_for(fx, RC_ROLE_KEEPER, &x);
    x.cgroupns_default = "private";
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_KEEPER, k, &x, &r), 0);
    x.networks = nets;
    x.n_networks = 2;
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_KEEPER, k, &x, &r), 1);
    assert_string_equal(r.rule, "container.networks");
    assert_string_equal(r.expected, "[\"none\",\"other\"]");
    assert_string_equal(r.observed, "[\"none\"]");
    cJSON_Delete(k);
}

/* Every rule that finds drift is counted; the details are the first's. */
static void
test_all_rules_counted(void **state)
{
    struct drift_fx *fx = *state;
    struct rc_drift_expect x;
    struct rc_drift_report r;
    cJSON *p = cJSON_Duplicate(fx->obj[RC_ROLE_PROXY], true);
    int id = rc_drift_rule_by_id("container.id");
    int rp = rc_drift_rule_by_id("container.restart-policy");

    mutate(p, "/HostConfig/RestartPolicy/Name", "\"always\"");
    mutate(p, "/Id", Q OTHER_ID Q);
    expect_for(fx, RC_ROLE_PROXY, &x);
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_PROXY, p, &x, &r), 1);
    assert_int_equal(r.count, 2);
    assert_true(same_set(&r.drifted, (size_t)id, (size_t)rp));
    assert_string_equal(r.rule, "container.id");
    rc_drift_set_add(&x.disabled_rules, (size_t)id);
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_PROXY, p, &x, &r), 1);
    assert_string_equal(r.message,
                        "proxy agentctl-driftfx-5eedf00d-proxy: "
                        "HostConfig.RestartPolicy.Name is \"always\", "
                        "expected \"no\"");
    cJSON_Delete(p);
}

/* The credential never reaches a report, wherever a stand-in puts it. */
static void
test_secret_never_reported(void **state)
{
    static const char *const where[] = {
        "/Config/Cmd",
        "/Config/Labels/agentctl.dev~1attempt",
        "/HostConfig/ExtraHosts",
        "/Config/Env/1",
    };
    static const char *const value[] = {
        "[\"" SECRET "\"]",
        "\"x" SECRET "x\"",
        "[\"" SECRET ".test:10.0.0.1\"]",
        "\"FAKE_API_KEY=" SECRET "-longer\"",
    };
    struct drift_fx *fx = *state;

    for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
        struct rc_drift_expect x;
        struct rc_drift_report r;
        cJSON *a = cJSON_Duplicate(fx->obj[RC_ROLE_AGENT], true);

        mutate(a, where[i], value[i]);
        expect_for(fx, RC_ROLE_AGENT, &x);
        assert_int_equal(rc_drift_check(fx->d, RC_ROLE_AGENT, a, &x, &r), 1);
        assert_no_secret(&r);
        assert_non_null(strstr(r.observed, "redacted"));
        cJSON_Delete(a);
    }
}

static void
test_bad_arguments(void **state)
{
    struct drift_fx *fx = *state;
    struct rc_drift_expect x;
    struct rc_drift_report r;
    cJSON *arr = cJSON_CreateArray();

    expect_for(fx, RC_ROLE_AGENT, &x);
    assert_int_equal(
        rc_drift_check(NULL, RC_ROLE_AGENT, fx->obj[RC_ROLE_AGENT], &x, &r),
        -1);
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_AGENT, NULL, &x, &r), -1);
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_AGENT, arr, &x, &r), -1);
    assert_int_equal(
        rc_drift_check(fx->d, RC_ROLE_AGENT, fx->obj[RC_ROLE_AGENT], NULL, &r),
        -1);
    assert_int_equal(rc_drift_check(fx->d, (enum rc_role)RC_ROLE_COUNT,
                                    fx->obj[RC_ROLE_AGENT], &x, &r),
                     -1);
    x.image_config = NULL; /* cannot tell the image's Env from added ones */
    assert_int_equal(
        rc_drift_check(fx->d, RC_ROLE_AGENT, fx->obj[RC_ROLE_AGENT], &x, &r),
        -1);
    expect_for(fx, RC_ROLE_NETWORK, &x);
    x.id = NULL;
    assert_int_equal(rc_drift_check(fx->d, RC_ROLE_NETWORK,
                                    fx->obj[RC_ROLE_NETWORK], &x, &r),
                     -1);
    cJSON_Delete(arr);
}

static void
test_rule_names(void **state)
{
    size_t n = rc_drift_rule_count();

    (void)state;
    assert_true(n > 0 && n <= RC_DRIFT_MAX_RULES);
    for (size_t i = 0; i < n; i++) {
        const struct rc_drift_rule *r = rc_drift_rule_at(i);

        assert_non_null(r);
        assert_ptr_equal(rc_drift_rule_id(i), r->id);
        assert_int_equal(rc_drift_rule_by_id(r->id), (int)i); /* unique */
        assert_true(r->roles != 0);
        assert_non_null(r->path);
        assert_non_null(r->expected);
        assert_non_null(r->why);
    }
    assert_null(rc_drift_rule_at(n));
    assert_null(rc_drift_rule_id(n));
    assert_int_equal(rc_drift_rule_by_id("container.nonsense"), -1);
    assert_int_equal(rc_drift_rule_by_id(NULL), -1);
}

/* ---- docs/drift-rules.md ------------------------------------------------ */

/* The table rows the doc holds between its markers, from the code. */
static void
render_rows(char *out, size_t size)
{
    size_t n = 0;

    n += (size_t)snprintf(out + n, size - n,
                          "| Rule | Objects | Field (inspect) | Expected "
                          "| Why it matters |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < rc_drift_rule_count() && n < size; i++) {
        const struct rc_drift_rule *r = rc_drift_rule_at(i);
        char roles[128] = "";

        for (int role = 0; role < RC_ROLE_COUNT; role++)
            if (r->roles & RC_DRIFT_ROLE(role))
                snprintf(roles + strlen(roles), sizeof(roles) - strlen(roles),
                         "%s%s", roles[0] ? ", " : "", rc_role_name(role));
        if (strchr(r->expected, '|') || strchr(r->why, '|'))
            fail_msg("rule %s: '|' breaks the markdown table", r->id);
        n += (size_t)snprintf(out + n, size - n,
                              "| `%s` | %s | `%s` | %s | %s |\n", r->id, roles,
                              r->path, r->expected, r->why);
    }
    assert_true(n < size);
}

/* The doc's text and where its generated block starts and ends. */
static char *
doc_block(const char **begin, const char **end)
{
    char *doc = drift_read_text("docs/drift-rules.md");

    *begin = strstr(doc, DOC_BEGIN);
    *end = *begin ? strstr(*begin, DOC_END) : NULL;
    if (*begin == NULL || *end == NULL)
        fail_msg("docs/drift-rules.md lacks the rules markers");
    *begin += strlen(DOC_BEGIN);
    return doc;
}

static void
test_doc_matches_table(void **state)
{
    static char rows[64 * 1024];
    const char *b, *e;
    char *doc;

    (void)state;
    render_rows(rows, sizeof(rows));
    doc = doc_block(&b, &e);
    if ((size_t)(e - b) != strlen(rows) || memcmp(b, rows, strlen(rows)) != 0)
        fail_msg("docs/drift-rules.md and the rule table in "
                 "plan/rc_drift_rules.c differ; run `test_rc_drift "
                 "--write-doc docs/drift-rules.md` and review the diff");
    /* every rule of the code is a row, and the doc has no other rule rows */
    for (size_t i = 0; i < rc_drift_rule_count(); i++) {
        char cell[96];

        snprintf(cell, sizeof(cell), "| `%s` |", rc_drift_rule_id(i));
        assert_non_null(strstr(b, cell));
    }
    free(doc);
}

/* --write-doc PATH: replace the generated block of the doc. */
static int
write_doc(const char *path)
{
    static char rows[64 * 1024];
    const char *b, *e;
    char *doc = doc_block(&b, &e);
    FILE *f = fopen(path, "w");

    render_rows(rows, sizeof(rows));
    if (f == NULL)
        return 1;
    fprintf(f, "%.*s%s%s", (int)(b - doc), doc, rows, e);
    free(doc);
    return fclose(f) == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures_clean),
        cmocka_unit_test(test_mutations_reported),
        cmocka_unit_test(test_every_rule_mutated),
        cmocka_unit_test(test_before_start_clean),
        cmocka_unit_test(test_forwarding_unstated_clean),
        cmocka_unit_test(test_legacy_bodies_clean),
        cmocka_unit_test(test_image_pinned),
        cmocka_unit_test(test_endpoints_by_phase),
        cmocka_unit_test(test_own_endpoint_going),
        cmocka_unit_test(test_internal_ip_before_start),
        cmocka_unit_test(test_all_rules_counted),
        cmocka_unit_test(test_volume_created_at_optional),
        cmocka_unit_test(test_expect_overrides),
        cmocka_unit_test(test_secret_never_reported),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_rule_names),
        cmocka_unit_test(test_doc_matches_table),
    };

    if (argc == 3 && strcmp(argv[1], "--write-doc") == 0)
        return write_doc(argv[2]);
    return cmocka_run_group_tests(tests, drift_fx_setup, drift_fx_teardown);
}
