/* ctl_testhooks.h - named kill points and switched-off protections for the
 * test-hooks build (ctl_testhooks.c); no-ops in every other build. */
#ifndef CTL_TESTHOOKS_H
#define CTL_TESTHOOKS_H

#include "ctl.h"

/* SIGKILL self at a named point (test-hooks build). */
void ctl_test_point(const char *kind, const char *what);
/* AGENTCTL_TEST_DISABLE names this protection (test-hooks build only). */
bool ctl_test_disabled(const char *protection);
/* AGENTCTL_TEST_PROBE_SILENT=N: the first N pre-start probe verdicts of
 * the process count as inconclusive (test-hooks build only). */
bool ctl_test_probe_silent(void);
/* AGENTCTL_TEST_SLOW_UPLOAD=MS: every workspace upload waits MS ms before
 * its walk, as from a slow disk (test-hooks build only; else 0). */
unsigned ctl_test_slow_upload_ms(void);

#endif
