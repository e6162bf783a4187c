/* ctl_testhooks.c - crash points for the SIGKILL walk (issue 5): in the
 * test-hooks build, AGENTCTL_TEST_CRASH_AT=<point> makes the controller
 * kill itself with SIGKILL when it reaches that point, so a test can stop
 * it at every step of preparing, starting, running and cleaning up and
 * check that the next controller converges without leaks and without
 * starting the attempt twice. In the production build ctl_test_point()
 * does nothing.
 *
 * Points: created:<role> (Docker made the object, its ID is not recorded
 * yet), done:<action> (a connect/start/upload succeeded, not recorded
 * yet), exited (the agent's exit was seen, not recorded), removed:<role>
 * (a cleanup removal succeeded, not recorded), and recorded:<phase> (the
 * status of that phase was just written).
 */
#include "ctl.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

void
ctl_test_point(const char *kind, const char *what)
{
#ifdef AGENTCTL_TEST_HOOKS
    const char *at = getenv("AGENTCTL_TEST_CRASH_AT");
    char point[96];

    snprintf(point, sizeof(point), "%s:%s", kind, what);
    if (at == NULL || strcmp(at, point) != 0)
        return;
    log_kv(LOG_WARN, "TEST HOOK: crashing", "point", point, NULL);
    raise(SIGKILL);
#else
    (void)kind;
    (void)what;
#endif
}
