/* inv_changesjob.c - an invocation's change-set read as the controller
 * holds it: whether it is wanted, where its files are, whether its
 * worker is in flight, and how it is stopped, freed and forgotten
 * (inv_changesjob.h). Below ctl_result and ctl_queue, which ask and free;
 * the steps that read the set are out_changes.c. */
#include "inv_changesjob.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ctl_record.h"
#include "rc_bg.h"

bool
inv_changes_wanted(const struct ctl_inv *inv)
{
    const struct spec_invocation *s = inv->captured;

    return s != NULL && s->has_workspace && spec_phase_writable(s->phase) &&
           ctl_record_done(&inv->rec, CTL_PROG_AGENT_STARTED);
}

int
inv_changes_path(const struct ctl_inv *inv, const char *ext, char *path,
                 size_t size, struct err *e)
{
    return store_beside_output(inv->ctl->store, inv->name, ext, path, size, e);
}

int
inv_changes_base_path(const struct ctl_inv *inv, char *path, size_t size,
                      struct err *e)
{
    return inv_changes_path(inv, ".changes.base", path, size, e);
}

bool
inv_changes_in_flight(const struct ctl_inv *inv)
{
    return inv->cleanup.changes != NULL &&
           ev_is_active(&inv->cleanup.changes->io);
}

void
inv_changes_free(struct ctl_inv *inv)
{
    struct inv_changes *c = inv->cleanup.changes;

    if (c == NULL)
        return;
    ev_io_stop(inv->ctl->loop, &c->io);
    rc_bg_free(c->job);
    if (c->fd != -1)
        close(c->fd);
    free(c);
    inv->cleanup.changes = NULL;
}

void
inv_changes_forget(struct ctl_inv *inv)
{
    static const char *const ext[] = { ".changes.tar", ".changes.diff",
                                       ".changes.json", ".changes.base",
                                       ".changes.spool" };
    char path[4096];

    for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
        if (inv_changes_path(inv, ext[i], path, sizeof(path), NULL) == 0)
            (void)unlink(path);
}
