/* fuzz_sock.h - the socket chores the connection-loop fuzzers share
 * (fuzz_px_conn.c, fuzz_gw_conn.c): draining a socket into a buffer,
 * closing a descriptor once, and which descriptors of a run are open. */
#ifndef FUZZ_SOCK_H
#define FUZZ_SOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"

/* Read what is there from fd into b without waiting; true when something
 * came. Aborts when b's cap is reached: a runaway copy. */
bool fuzz_slurp(int fd, struct buf *b);

/* Close *fd if it is open, and mark it closed (-1). */
void fuzz_close_fd(int *fd);

/* The open descriptors among floor .. floor + 63, as bits: a run that
 * ends with more than it began with leaked one. */
uint64_t fuzz_open_fds(int floor);

#endif
