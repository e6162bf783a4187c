/* file.h - open a file that a flag or a config names. */
#ifndef AGENTCTL_FILE_H
#define AGENTCTL_FILE_H

#include "err.h"

/* Open path read-only; it must be a regular file. A FIFO, a device or a
 * directory is refused at once with "a FIFO, not a regular file" (the
 * message never names the path: callers prefix it with err_prefix()):
 * the open itself never blocks (a FIFO with no writer would stall a start
 * for ever). extra_flags is OR-ed into open()'s (O_NOFOLLOW, say; a
 * link is then refused as "a symbolic link, not a regular file").
 * Returns the descriptor (blocking, close-on-exec), or -1 with e set. */
int file_open_regular(const char *path, int extra_flags, struct err *e);

#endif
