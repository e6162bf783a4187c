/* launch_landlock.c - the CLI's Landlock domain (docs/phase-policy.md
 * "Landlock"): built from the policy and the kernel's ABI, applied to
 * this thread just before the exec, inherited by everything the CLI
 * starts. Reads are not handled (the box's read-only mounts decide what
 * can be read); execution, every kind of write, TCP connect and bind,
 * signals and abstract unix sockets are, as far as the ABI reaches.
 *
 * The kernel headers of the build machine may be older than the kernel
 * the box runs on, so the newer parts of the ABI are spelled out here
 * (values from the kernel's include/uapi/linux/landlock.h). */
#include "launch.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LL_CREATE_VERSION   (1u << 0)
#define LL_RULE_PATH        1
#define LL_RULE_NET_PORT    2

#define LL_FS_EXECUTE       (1ull << 0)
#define LL_FS_WRITE_FILE    (1ull << 1)
#define LL_FS_REMOVE_DIR    (1ull << 4)
#define LL_FS_REMOVE_FILE   (1ull << 5)
#define LL_FS_MAKE_CHAR     (1ull << 6)
#define LL_FS_MAKE_DIR      (1ull << 7)
#define LL_FS_MAKE_REG      (1ull << 8)
#define LL_FS_MAKE_SOCK     (1ull << 9)
#define LL_FS_MAKE_FIFO     (1ull << 10)
#define LL_FS_MAKE_BLOCK    (1ull << 11)
#define LL_FS_MAKE_SYM      (1ull << 12)
#define LL_FS_REFER         (1ull << 13) /* ABI 2 */
#define LL_FS_TRUNCATE      (1ull << 14) /* ABI 3 */
#define LL_NET_BIND_TCP     (1ull << 0)  /* ABI 4 */
#define LL_NET_CONNECT_TCP  (1ull << 1)  /* ABI 4 */
#define LL_SCOPE_ABSTRACT   (1ull << 0)  /* ABI 6 */
#define LL_SCOPE_SIGNAL     (1ull << 1)  /* ABI 6 */

/* The rights that apply to a regular file (the kernel refuses the
 * directory-only ones in a rule on a file). */
#define LL_FILE_WRITE (LL_FS_WRITE_FILE | LL_FS_TRUNCATE)

struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct ll_path_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

struct ll_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

int
launch_landlock_abi(void)
{
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0,
                       LL_CREATE_VERSION);

    return abi < 0 ? 0 : (int)abi;
}

/* What this ABI can handle; rights it does not know would make the
 * ruleset's creation fail. */
static void
ll_handled(int abi, struct ll_ruleset_attr *a, size_t *size)
{
    a->handled_access_fs = LL_FS_EXECUTE | LL_FS_WRITE_FILE |
                           LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE |
                           LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR | LL_FS_MAKE_REG |
                           LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO |
                           LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM;
    if (abi >= 2)
        a->handled_access_fs |= LL_FS_REFER;
    if (abi >= 3)
        a->handled_access_fs |= LL_FS_TRUNCATE;
    a->handled_access_net = abi >= 4 ? LL_NET_BIND_TCP | LL_NET_CONNECT_TCP : 0;
    a->scoped = abi >= 6 ? LL_SCOPE_ABSTRACT | LL_SCOPE_SIGNAL : 0;
    *size = abi >= 6 ? sizeof(*a)
            : abi >= 4 ? offsetof(struct ll_ruleset_attr, scoped)
                       : offsetof(struct ll_ruleset_attr, handled_access_net);
}

/* One path rule. A path that does not exist is skipped with a note: it
 * cannot be used then, and the box's mounts differ by phase. */
static int
ll_allow_path(int rs, const char *path, uint64_t want, uint64_t handled)
{
    struct ll_path_attr pa = { 0 };
    struct stat st;
    int rc;

    pa.parent_fd = open(path, O_PATH | O_CLOEXEC);
    if (pa.parent_fd == -1) {
        int err = errno;

        fprintf(stderr, "agent-launch: landlock: %s: %s (no rule)\n", path,
                strerror(err));
        return err == ENOENT ? 0 : -1;
    }
    if (fstat(pa.parent_fd, &st) == -1) {
        close(pa.parent_fd);
        return -1;
    }
    /* execution is granted file by file, never to a tree */
    if (want == LL_FS_EXECUTE && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "agent-launch: landlock: %s is not a regular file: "
                "no execute rule for it\n", path);
        close(pa.parent_fd);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        want &= LL_FS_EXECUTE | LL_FILE_WRITE;
    pa.allowed_access = want & handled;
    rc = pa.allowed_access == 0
             ? 0
             : (int)syscall(__NR_landlock_add_rule, rs, LL_RULE_PATH, &pa, 0);
    if (rc == -1)
        fprintf(stderr, "agent-launch: landlock: rule for %s: %s\n", path,
                strerror(errno));
    close(pa.parent_fd);
    return rc;
}

/* The ELF interpreter exe names (PT_INTERP), which the kernel opens for
 * execution too; "" for a static binary. */
static int
ll_interpreter(const char *exe, char *out, size_t size)
{
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    Elf64_Ehdr eh;
    Elf64_Phdr ph;
    int rc = 0;

    out[0] = '\0';
    if (fd == -1 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64) {
        rc = fd == -1 ? -1 : 0; /* a script: its #! line is not ours */
        goto out;
    }
    for (unsigned i = 0; i < eh.e_phnum && i < 64; i++) {
        if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
            sizeof(ph))
            break;
        if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz >= size)
            continue;
        if (pread(fd, out, ph.p_filesz, (off_t)ph.p_offset) !=
            (ssize_t)ph.p_filesz)
            out[0] = '\0';
        else
            out[ph.p_filesz - 1] = '\0';
        break;
    }
out:
    if (fd != -1)
        close(fd);
    return rc;
}

/* Whether path lies on a filesystem the policy lets the domain write (a
 * device file such as /dev/null aside): an executable there could be
 * rewritten in place and then run, so it gets no execute rule. */
static bool
ll_writable_fs(const struct launch_policy *p, const char *path)
{
    struct stat t, w;

    if (stat(path, &t) == -1)
        return false;
    for (size_t i = 0; i < p->n_write; i++)
        if (stat(p->write[i], &w) == 0 && !S_ISCHR(w.st_mode) &&
            w.st_dev == t.st_dev)
            return true;
    return false;
}

/* Execution of path and of the ELF interpreter it names, never of a file
 * the domain may write. */
static int
ll_allow_exec(int rs, const struct launch_policy *p, const char *path,
              uint64_t handled)
{
    char interp[256];
    int rc;

    if (ll_writable_fs(p, path)) {
        fprintf(stderr, "agent-launch: landlock: %s is on a filesystem the "
                "CLI may write: it will not be executable (put the CLI in "
                "the image)\n", path);
        return -1;
    }
    rc = ll_allow_path(rs, path, LL_FS_EXECUTE, handled);

    if (rc == 0 && ll_interpreter(path, interp, sizeof(interp)) == 0 &&
        interp[0] != '\0')
        rc = ll_writable_fs(p, interp)
                 ? -1
                 : ll_allow_path(rs, interp, LL_FS_EXECUTE, handled);
    return rc;
}

/* name in exe's directory. */
static int
ll_allow_sibling(int rs, const struct launch_policy *p, const char *exe,
                 const char *name, uint64_t handled)
{
    char real[4096], path[4096];
    const char *slash;

    /* beside the file itself, as the CLI's own current_exe() sees it
     * (the PATH entry may be a link) */
    if (realpath(exe, real) == NULL)
        return 0;
    exe = real;
    slash = strrchr(exe, '/');
    if (slash == NULL ||
        snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - exe), exe,
                 name) >= (int)sizeof(path))
        return 0;
    return ll_allow_exec(rs, p, path, handled);
}

static int
ll_rules(int rs, const struct launch_policy *p, const char *exe,
         const struct ll_ruleset_attr *h)
{
    uint64_t write = h->handled_access_fs & ~LL_FS_EXECUTE;
    int rc = ll_allow_exec(rs, p, exe, h->handled_access_fs);

    for (size_t i = 0; rc == 0 && i < p->n_exec; i++)
        rc = ll_allow_exec(rs, p, p->exec[i], h->handled_access_fs);
    for (size_t i = 0; rc == 0 && i < p->n_exec_sibling; i++)
        rc = ll_allow_sibling(rs, p, exe, p->exec_sibling[i],
                              h->handled_access_fs);
    for (size_t i = 0; rc == 0 && i < p->n_write; i++)
        rc = ll_allow_path(rs, p->write[i], write, h->handled_access_fs);
    for (size_t i = 0; rc == 0 && h->handled_access_net != 0 &&
                       i < p->n_connect; i++) {
        struct ll_port_attr pa = { LL_NET_CONNECT_TCP, p->connect[i] };

        rc = (int)syscall(__NR_landlock_add_rule, rs, LL_RULE_NET_PORT, &pa, 0);
    }
    return rc;
}

int
launch_landlock_apply(const struct launch_policy *p, const char *exe)
{
    struct ll_ruleset_attr h = { 0 };
    int abi = launch_landlock_abi(), rs;
    size_t size;

    if (abi < 1) {
        fprintf(stderr, "agent-launch: landlock: this kernel has none%s\n",
                p->landlock_required ? "; the config requires it"
                                     : " (optional: running without it)");
        return p->landlock_required ? -1 : 0;
    }
    ll_handled(abi, &h, &size);
    rs = (int)syscall(__NR_landlock_create_ruleset, &h, size, 0);
    if (rs == -1) {
        fprintf(stderr, "agent-launch: landlock: ruleset (ABI %d): %s\n", abi,
                strerror(errno));
        return -1;
    }
    if (ll_rules(rs, p, exe, &h) == -1) { /* (each says why) */
        close(rs);
        return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
        syscall(__NR_landlock_restrict_self, rs, 0) == -1) {
        fprintf(stderr, "agent-launch: landlock: %s\n", strerror(errno));
        close(rs);
        return -1;
    }
    close(rs);
    return 0;
}
