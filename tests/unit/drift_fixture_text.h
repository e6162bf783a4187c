/* drift_fixture_text.h - what tests/unit/fixtures/drift/ was captured
 * from (README.md there): the config, the spec, the inputs and the IDs.
 * Plain C, no cmocka: the drift unit tests (drift_fixture.c) and the
 * inspect fuzzer (hack/fuzz/fuzz_rc_drift.c) build the same desired
 * state from it. */
#ifndef AGENTCTL_TESTS_DRIFT_FIXTURE_TEXT_H
#define AGENTCTL_TESTS_DRIFT_FIXTURE_TEXT_H

#include <string.h>

#include "rc_desired.h"

/* The fake credential the fixtures were made with (not a secret). */
#define SECRET "FAKE-cred-not-a-secret-0000"
#define NET    "agentctl-driftfx-5eedf00d-net"
#define EGRESS "agentctl-driftfx-egress"
#define PROXY_ID                                                               \
    "2d0e76472d09ff85d80a488d6a29d600a11dd2217c13998c3033e269a5a67e99"
#define AGENT_ID                                                               \
    "4d8f8c4d992ac1aee4ed3bcbc0646552b97bce7efa03ad2f836b61dad09c7602"
#define NET_ID                                                                 \
    "3a9063d4ead6c0dadeb89226b357190becabf3793a10365ff1fcccecc7eafb86"
#define OTHER_ID                                                               \
    "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
#define AGENT_IMAGE                                                            \
    "sha256:a2ba02a51fbc089b4c2be476972fd3b030f600740b70d8b8e99fd320140d8268"

/* The config and spec the fixtures were made from (README.md there). */
#define DRIFT_FX_CFG                                                           \
    "vendors:\n"                                                               \
    "  fake: {hosts: [\"vendor.test:443\"], credentialEnv: FAKE_API_KEY, "     \
    "credentialMode: env, allowPrivate: true}\n"                               \
    "egressNetwork: " EGRESS "\n"                                              \
    "subnetPool: 10.250.0.0/16\n"

#define DRIFT_FX_SPEC                                                          \
    "apiVersion: agentctl.dev/v1alpha1\n"                                      \
    "kind: AgentInvocation\n"                                                  \
    "metadata: {name: driftfx}\n"                                              \
    "spec:\n"                                                                  \
    "  vendor: fake\n"                                                         \
    "  phase: execute\n"                                                       \
    "  image: agentctl/demo-agent:0.1.0\n"                                     \
    "  command: [/demo-agent, --write-work, --sleep, \"300\"]\n"               \
    "  env: {LOG_LEVEL: debug}\n"                                              \
    "  workspace: {source: repos/web, size: 8Mi, inodes: 1000}\n"              \
    "  credential: fk\n"                                                       \
    "  scratch: {size: 16Mi, inodes: 1000}\n"                                  \
    "  resources: {memory: 256Mi, cpus: \"0.5\", pids: 64}\n"                  \
    "  deadlineSeconds: 600\n"                                                 \
    "  output: {maxBytes: 1048576}\n"                                          \
    "  attempt: a1\n"

/* The capture-time inputs the fixture's desired state (d) was built
 * with; a test changes a copy to build another. */
static inline void
drift_fx_inputs(struct rc_inputs *in)
{
    memset(in, 0, sizeof(*in));
    in->controller_id = "ctl-fx";
    in->uid = "5eedf00d-0000-4000-8000-000000000001";
    in->image_id = AGENT_IMAGE;
    in->subnet_index = 7;
    in->credential = SECRET;
}

#endif
