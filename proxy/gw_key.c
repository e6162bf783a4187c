/* gw_key.c - load and wipe the vendor credential (see gw_key.h). */
#include "gw_key.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "http_rule.h"

#define GW_KEY_PAGE 4096

static int
key_check_file(int fd, const char *path, struct err *e)
{
    struct stat st;

    if (fstat(fd, &st) == -1)
        return err_sys(e, "--key-file %s", path);
    if ((st.st_mode & 077) != 0)
        return err_set(e, ERR_INVALID,
                       "--key-file %s has mode 0%o: group or others may "
                       "use it; want 0400",
                       path, (unsigned)(st.st_mode & 07777));
    if (st.st_size > GW_KEY_MAX + 2)
        return err_set(e, ERR_LIMIT, "--key-file %s is larger than %d bytes",
                       path, GW_KEY_MAX);
    return 0;
}

/* Read the whole file into k->data; k->len is its size. */
static int
key_read(struct gw_key *k, int fd, const char *path, struct err *e)
{
    for (;;) {
        ssize_t r = read(fd, k->data + k->len, GW_KEY_PAGE - 1 - k->len);

        if (r == 0)
            return 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return err_sys(e, "--key-file %s", path);
        k->len += (size_t)r;
        if (k->len > GW_KEY_MAX + 2)
            return err_set(e, ERR_LIMIT,
                           "--key-file %s is larger than %d bytes", path,
                           GW_KEY_MAX);
    }
}

static int
key_check_text(struct gw_key *k, const char *path, struct err *e)
{
    const char *why;

    while (k->len > 0 && strchr(" \t\r\n", k->data[k->len - 1]) != NULL)
        k->data[--k->len] = '\0';
    if (k->len == 0)
        return err_set(e, ERR_INVALID, "--key-file %s is empty", path);
    why = http_key_check(k->data, k->len);
    if (why != NULL)
        return err_set(e, k->len > GW_KEY_MAX ? ERR_LIMIT : ERR_INVALID,
                       "--key-file %s: %s", path, why);
    return 0;
}

int
gw_key_load(struct gw_key *k, const char *path, struct err *e)
{
    int fd = file_open_regular(path, O_NOFOLLOW, e), rc = -1;

    k->data = NULL;
    k->len = 0;
    if (fd < 0) {
        err_prefix(e, "--key-file %s: ", path);
        return -1;
    }
    if (key_check_file(fd, path, e) == -1)
        goto out;
    k->data = mmap(NULL, GW_KEY_PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (k->data == MAP_FAILED) {
        k->data = NULL;
        err_sys(e, "mmap");
        goto out;
    }
    /* Best effort: kept out of swap and out of core dumps. mlock can
     * fail under RLIMIT_MEMLOCK; the key is then only not dumped. */
    (void)mlock(k->data, GW_KEY_PAGE);
    (void)madvise(k->data, GW_KEY_PAGE, MADV_DONTDUMP);
    if (key_read(k, fd, path, e) == -1 || key_check_text(k, path, e) == -1)
        goto out;
    rc = 0;
out:
    close(fd);
    if (rc == -1)
        gw_key_wipe(k);
    return rc;
}

void
gw_key_wipe(struct gw_key *k)
{
    if (k->data != NULL) {
        explicit_bzero(k->data, GW_KEY_PAGE);
        munlock(k->data, GW_KEY_PAGE);
        munmap(k->data, GW_KEY_PAGE);
    }
    k->data = NULL;
    k->len = 0;
}
