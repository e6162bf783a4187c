/* drift_nscache.h - PidMode and IpcMode of the other containers on the
 * daemon, by container ID, for the neighbours' check (drift_neighbours.c).
 * A list entry lacks them and they are fixed at create, so each
 * container is inspected once; the cache is a hash table, since every
 * round of every invocation looks up every listed container (a linear
 * lookup was a quarter of the controller's CPU at N = 50). Past
 * CTL_NSCACHE_MAX entries it starts over: a host that churns containers
 * must not grow the controller without bound. */
#ifndef DRIFT_NSCACHE_H
#define DRIFT_NSCACHE_H

#include <stddef.h>

#define CTL_NSCACHE_MAX 4096

struct drift_nscache;

/* The modes of a container; a mode Docker did not give is NULL. */
struct drift_ns_modes {
    const char *pid_mode;
    const char *ipc_mode;
};

/* Remember id's modes (*cache made on first use). -1: out of memory
 * (nothing kept: the container is inspected again next time). */
int drift_nscache_put(struct drift_nscache **cache, const char *id,
                    const char *pid_mode, const char *ipc_mode);
/* id's modes, or NULL when not known. */
const struct drift_ns_modes *drift_nscache_get(const struct drift_nscache *cache,
                                           const char *id);
void drift_nscache_free(struct drift_nscache *cache);

#endif
