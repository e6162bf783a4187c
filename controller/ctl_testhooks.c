/* ctl_testhooks.c - crash points for the SIGKILL walk: in the
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
 * (a cleanup removal succeeded, not recorded), created:canary, and
 * recorded:<phase> (the status of that phase was just written).
 * AGENTCTL_TEST_PROBE_SILENT=<N> makes the first N pre-start probe
 * verdicts of the process inconclusive (box_probe.c's rerun, shown).
 * AGENTCTL_TEST_SLOW_UPLOAD=<ms> makes every workspace upload wait that
 * long before its walk, as from a slow disk (test_build_slots_upload.sh).
 * AGENTCTL_TEST_PAUSE_AT=<point>[,<point>...] stops the controller there
 * (SIGSTOP) instead, for a test that changes something and then sends
 * SIGCONT, at each of the points named, every time it passes one;
 * round:neighbours (a revalidation round has checked every object and
 * is about to list the neighbours) is a point only pauses use.
 *
 * AGENTCTL_TEST_DISABLE=<name>[,<name>...] switches off a protection that
 * is not a drift rule, for a negative control: "probe-egress" creates the
 * first probe without learning the proxy's egress address first
 * (box_probe.c); "pool-stop-drain" leaves
 * the warm pool's boxes on the daemon at a clean stop (box_pool.c);
 * "probe-rerun" fails the
 * attempt at the pre-start probe's first inconclusive run instead of
 * running it again (box_probe.c); "status-hold" starts an
 * invocation whose status cannot be read afresh (pass_inv.c);
 * "network-adoption" makes the listing of the attempt's networks see none
 * (box_network.c);
 * "standin-sweep" lets cleanup's sweep and garbage collection take a
 * container with the labels of a role whose create answered for an
 * unrecorded one of ours (pass_cleanup.c, loop_gc.c); "helper-pin" builds
 * every attempt's helper containers from the config's tags, as for an
 * attempt captured before helper images were pinned (pass_inv.c), which
 * also leaves container.image-pinned nothing to compare for them;
 * "workspace-stream" puts back the buffered upload, walked and packed on
 * the loop into one buffer the archive's size (pass_prepare.c;
 * tests/integration/controller/test_workspace_stream.sh shows the memory
 * it costs); "etcd-cache" sends the controller's reads of specs, status,
 * metadata and claim holders to etcd instead of the informer cache
 * (store_etcd_set_cache), as before the cache: the claim gate reads twice
 * per unclaimed invocation per pass; "etcd-loop-async" makes the lease
 * grant, the pool document and the lists that start the etcd watches
 * blocking requests again (store_etcd_set_loop_blocking); "kube-loop-async"
 * makes the API server store's Lease grant and claims blocking requests
 * again (store_kube_set_loop_blocking); "storage-verify" skips the volumes'
 * identity check before the keeper's create (drift_verify.c); "canary"
 * runs no boundary canary and "canary-pending" creates it without its
 * name on disk first (box_canary.c); "canary-cleanup" leaves a pending
 * canary name to cleanup's sweep, which takes the canary a crash left for
 * a stand-in (box_canary.c, pass_cleanup.c); "network-standin" lets the
 * network step adopt or remove a network by its labels alone, also when
 * no create of ours was sent (box_network.c): a look-alike that copied
 * them is adopted; "upload-slot" keeps the build slot of a box whose
 * workspace upload is in flight (try_build.c), as before; "state-check"
 * keeps a state directory that cannot be written out of /readyz and the
 * log's one line about it (obs_observe.c); "storage-lane" takes the ladder on
 * one lane and "prestart-only-rounds" runs rounds between the steps of a
 * box being built, as before the two lanes (pass_prepare.c, drift_verify.c);
 * "verify-again" lets a round under way absorb the revalidation an event
 * asks for (inv_queue.c); "drift-confirmation" acts on drift without
 * asking the daemon over a new connection first (drift.c);
 * "pool-revalidation" skips the drift rules on a warm box while it
 * waits (box.c), so a changed box is handed; "warm-box-gc" lets
 * garbage collection take a handed warm box's objects, which carry the
 * box's uid and not the invocation's (loop_gc.c); "live-audit" follows
 * no gateway or proxy log and reads the last 20,000 lines of each once at
 * cleanup, as before the live audit (out_egress.c): a flood pushes lines
 * out, uncounted; "result-validation" accepts a result that breaks
 * spec.output.schema (out_resultread.c), as without a schema check;
 * "result-stream-cut" reads a result file past spec.output.maxResultBytes
 * to its end instead of cancelling the read (out_resultread.c);
 * "wait-event-once" writes the Waiting condition's event at every pass
 * of a wait, not once when its reason changes (pass_waiting.c);
 * "invalid-log-once" logs an invalid spec at every resync, not once per
 * version (obs_invalid.c).
 */
#include "ctl_testhooks.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

#ifdef AGENTCTL_TEST_HOOKS
/* name is one of the comma-separated list's entries (list may be NULL). */
static bool
in_list(const char *list, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = list; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);

        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}
#endif

void
ctl_test_point(const char *kind, const char *what)
{
#ifdef AGENTCTL_TEST_HOOKS
    const char *at = getenv("AGENTCTL_TEST_CRASH_AT");
    char point[96];

    snprintf(point, sizeof(point), "%s:%s", kind, what);
    if (in_list(getenv("AGENTCTL_TEST_PAUSE_AT"), point)) {
        /* the test changes something while nothing moves, then SIGCONT */
        log_kv(LOG_WARN, "TEST HOOK: pausing", "point", point, NULL);
        raise(SIGSTOP);
    }
    if (at == NULL || strcmp(at, point) != 0)
        return;
    log_kv(LOG_WARN, "TEST HOOK: crashing", "point", point, NULL);
    raise(SIGKILL);
#else
    (void)kind;
    (void)what;
#endif
}

bool
ctl_test_disabled(const char *protection)
{
#ifdef AGENTCTL_TEST_HOOKS
    return in_list(getenv("AGENTCTL_TEST_DISABLE"), protection);
#else
    (void)protection;
    return false;
#endif
}

bool
ctl_test_probe_silent(void)
{
#ifdef AGENTCTL_TEST_HOOKS
    static long used;
    const char *n = getenv("AGENTCTL_TEST_PROBE_SILENT");

    if (n == NULL || used >= atol(n))
        return false;
    used++;
    log_kv(LOG_WARN, "TEST HOOK: the probe's verdict counts as inconclusive",
           NULL);
    return true;
#else
    return false;
#endif
}

unsigned
ctl_test_slow_upload_ms(void)
{
#ifdef AGENTCTL_TEST_HOOKS
    const char *v = getenv("AGENTCTL_TEST_SLOW_UPLOAD");
    char *end;
    unsigned long ms;

    if (v == NULL || *v == '\0')
        return 0;
    errno = 0;
    ms = strtoul(v, &end, 10);
    return errno == 0 && *end == '\0' && ms <= 3600000UL ? (unsigned)ms : 0;
#else
    return 0;
#endif
}
