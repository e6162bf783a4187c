/* try_build.h - boxes are built a few at a time, oldest first.
 *
 * Boxes begun all at once share the daemon's few cores, so they all finish
 * near the end of its work for them; begun a few at a time, in the order
 * they came, the first are ready sooner and the last about as late. Too
 * few slots leave the daemon idle while a box waits on its own steps
 * (docs/design.md "Build slots"; docs/bench-controller.md run J).
 *
 * An invocation holds a build slot from its first preparation step until
 * it leaves Preparing (its agent started, or the attempt stopped). One
 * that finds every slot taken waits, first in first out, and a slot let
 * go runs the pass of the invocation that waited longest. A box that
 * already has objects (a controller restarted while building it) always
 * gets a slot, even over the limit: what is half built is finished, not
 * left waiting. A step that fails gives the slot up until its retry, and
 * so does a workspace upload while it is in flight.
 * --max-building 0 switches the limit off.
 */
#ifndef TRY_BUILD_H
#define TRY_BUILD_H

#include <stdbool.h>

#include "ctl.h"

/* Whether inv may take its next preparation step now: it holds a slot or
 * gets one (always when `begun`: its box has objects already). false:
 * it waits in line and its pass runs again when a slot is let go. */
bool try_build_admit(struct ctl_inv *inv, bool begun);

/* inv builds no longer (it left Preparing, or is forgotten): its slot, if
 * it holds one, goes to the first in line; it leaves the line if it is
 * in it. */
void try_build_release(struct ctl_inv *inv);

/* inv's workspace upload started (on) or answered (off). While it is in
 * flight the box holds no slot: an upload waits on the disk and the
 * socket, not on the daemon's cores, and a few slow or huge ones would
 * otherwise hold every slot and stall every other invocation while their
 * deadlines run. Its other steps meanwhile go on as a begun box's; after
 * the answer it takes a slot again (a begun box always gets one). */
void try_build_uploading(struct ctl_inv *inv, bool on);

/* inv's step failed and waits for its retry: its slot, if it holds one,
 * goes to the first in line meanwhile, so that boxes whose steps keep
 * failing do not hold the others back. Its retry asks again (a begun box
 * gets one at once; any other lines up at the end); a place in line is
 * kept. */
void try_build_yield(struct ctl_inv *inv);

#endif
