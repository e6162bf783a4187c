/* px_listen.h - the listening socket both proxies open. */
#ifndef PX_LISTEN_H
#define PX_LISTEN_H

#include <stddef.h>

#include "err.h"
#include "px_dns.h"

/* Open a non-blocking listening TCP socket on a; name gets the bound
 * "ip:port" (the kernel's port when a asked for 0). Returns the fd or -1
 * with e. */
int px_listen_open(const union px_sockaddr *a, char *name, size_t size,
                   struct err *e);

#endif
