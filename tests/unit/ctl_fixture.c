/* ctl_fixture.c - a controller for unit tests (ctl_fixture.h). */
#include "ctl_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pass_inv.h"
#include "inv_queue.h"
#include "loop_sync.h"

/* A queued pass would talk to Docker: the tests make the steps
 * themselves, so a queued pass does nothing. */
static void
on_kick(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
}

static void
on_watchdog(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
    fail_msg("the test did not finish: the fake Docker daemon never "
             "answered, or the loop went idle");
}

void
ctl_fixture_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

struct ctl_inv *
ctl_fixture_open(struct ctl_fixture *fx, struct ctl *c, const char *name,
                 const char *yaml, fake_handler_fn *handler, void *arg)
{
    char specs[96], statedir[96], path[192];
    struct spec_errors es;
    struct err e = { 0 };
    struct ctl_inv *inv;

    snprintf(fx->dir, sizeof(fx->dir), "/tmp/ctlfx.XXXXXX");
    assert_non_null(mkdtemp(fx->dir));
    snprintf(specs, sizeof(specs), "%s/specs", fx->dir);
    snprintf(statedir, sizeof(statedir), "%s/state", fx->dir);
    assert_int_equal(mkdir(specs, 0700), 0);
    snprintf(path, sizeof(path), "%s/%s.yaml", specs, name);
    ctl_fixture_write(path, yaml);

    c->loop = ev_loop_new(EVFLAG_AUTO);
    assert_non_null(c->loop);
    snprintf(c->opts.controller_id, sizeof(c->opts.controller_id),
             "test-fixture");
    c->store = store_dir_open(specs, statedir, &e);
    assert_non_null(c->store);
    c->cfg = cfg_parse("empty", "", 0, &es);
    assert_non_null(c->cfg);
    fx->srv = fake_start(c->loop, handler, arg);
    assert_non_null(fx->srv);
    c->dk = dk_new(c->loop, fake_url(fx->srv), &e);
    assert_non_null(c->dk);

    loop_sync_all(c);
    inv = inv_find(c, name);
    assert_non_null(inv);
    assert_non_null(inv->spec);
    ev_set_cb(&inv->queue.kick, on_kick);
    /* not a timed assertion: only stops a broken test from hanging */
    ev_timer_init(&fx->watchdog, on_watchdog, 20., 0.);
    ev_timer_start(c->loop, &fx->watchdog);
    return inv;
}

void
ctl_fixture_close(struct ctl_fixture *fx, struct ctl *c)
{
    char cmd[128];

    ev_timer_stop(c->loop, &fx->watchdog);
    while (c->invs != NULL)
        pass_inv_forget(c->invs);
    dk_free(c->dk);
    fake_stop(fx->srv);
    cfg_free(c->cfg);
    store_close(c->store);
    ev_loop_destroy(c->loop);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
    assert_int_equal(system(cmd), 0);
}
