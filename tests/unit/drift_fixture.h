/* drift_fixture.h - the fixture the drift unit tests share: the config
 * and spec that tests/unit/fixtures/drift/ was captured from (README.md
 * there), rc_desired_build() of them, and the inspect results as captured
 * from dockerd 20.10 (test_rc_drift.c, test_rc_drift_ids.c). */
#ifndef AGENTCTL_TESTS_DRIFT_FIXTURE_H
#define AGENTCTL_TESTS_DRIFT_FIXTURE_H

#include "cfg.h"
#include "drift_fixture_text.h"
#include "rc_desired.h"
#include "spec.h"

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
/* cmocka group setup/teardown: *state is a struct drift_fx. */
int drift_fx_setup(void **state);
int drift_fx_teardown(void **state);

#endif
