/* fuzz_sock.c - the socket chores of the connection-loop fuzzers
 * (fuzz_sock.h). */
#include "fuzz_sock.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

bool
fuzz_slurp(int fd, struct buf *b)
{
    char tmp[4096];
    bool got = false;
    ssize_t n;

    while ((n = recv(fd, tmp, sizeof(tmp), MSG_DONTWAIT)) > 0) {
        if (buf_append(b, tmp, (size_t)n, NULL) == -1)
            abort();
        got = true;
    }
    return got;
}

void
fuzz_close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

uint64_t
fuzz_open_fds(int floor)
{
    uint64_t set = 0;

    for (int i = 0; i < 64; i++)
        if (fcntl(floor + i, F_GETFD) != -1)
            set |= 1ull << i;
    return set;
}
