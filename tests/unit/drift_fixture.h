/* drift_fixture.h - the fixture the drift unit tests share: the config
 * and spec that tests/unit/fixtures/drift/ was captured from (README.md
 * there), rc_desired_build() of them, and the inspect results as captured
 * from dockerd 20.10 (test_rc_drift.c, test_rc_drift_ids.c). */
#ifndef AGENTCTL_TESTS_DRIFT_FIXTURE_H
#define AGENTCTL_TESTS_DRIFT_FIXTURE_H

#include "cfg.h"
#include "rc_desired.h"
#include "spec.h"

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

struct drift_fx {
    struct cfg *cfg;
    struct spec_invocation *inv;
    struct rc_desired *d;
    cJSON *obj[RC_ROLE_COUNT]; /* inspect results as captured */
    cJSON *images;             /* [{Id, Config}] */
};

/* A file of the source tree ($AGENTCTL_SOURCE_DIR or the configured one),
 * whole, NUL-terminated; fails the test when it cannot be read. */
char *drift_read_text(const char *rel);
/* tests/unit/fixtures/drift/<name> parsed. */
cJSON *drift_read_fixture(const char *name);
/* The capture-time inputs the fixture's desired state (d) was built
 * with; a test changes a copy to build another. */
void drift_fx_inputs(struct rc_inputs *in);
/* cmocka group setup/teardown: *state is a struct drift_fx. */
int drift_fx_setup(void **state);
int drift_fx_teardown(void **state);

#endif
