/* ctl_fixture.h - a controller for the unit tests that drive its own code
 * (ctlcore): a directory store in a temp directory holding one spec, a
 * fake Docker daemon and the client talking to it, the invocation made
 * by loop_sync_all() - its queued passes do nothing, the test makes the
 * steps itself - and a watchdog that fails a test that hangs. */
#ifndef CTL_FIXTURE_H
#define CTL_FIXTURE_H

#include "ctl.h"
#include "test_dk_fake.h"

struct ctl_fixture {
    char dir[64]; /* <dir>/specs/<name>.yaml, <dir>/state */
    struct fake_srv *srv;
    ev_timer watchdog;
};

/* Fill c (zeroed by the caller) and return the invocation of the spec
 * `name` written from yaml; the fake daemon answers through handler. */
struct ctl_inv *ctl_fixture_open(struct ctl_fixture *fx, struct ctl *c,
                                 const char *name, const char *yaml,
                                 fake_handler_fn *handler, void *arg);
/* Write a file (a spec the test changes), or fail the test. */
void ctl_fixture_write(const char *path, const char *text);
/* Every invocation forgotten, everything freed, the directory removed. */
void ctl_fixture_close(struct ctl_fixture *fx, struct ctl *c);

#endif
