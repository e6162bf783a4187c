/* container_of.h - the object that embeds a member, from the member's
 * address: how a libev callback finds its owner (an ev_io embedded in a
 * struct px_conn, an ev_timer in a struct ctl_inv). The one definition
 * every part uses. */
#ifndef CONTAINER_OF_H
#define CONTAINER_OF_H

#include <stddef.h>

#define container_of(p, type, member)                                          \
    ((type *)(void *)((char *)(p)-offsetof(type, member)))

#endif
