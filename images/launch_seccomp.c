/* launch_seccomp.c - a seccomp filter of ours, stacked on the one Docker
 * loads (docs/phase-policy.md "seccomp"): the kernel runs every filter
 * and the strictest answer wins, so the box gets Docker's default profile
 * minus the calls below, whatever the daemon's profile says about them.
 * They are the kernel's largest attack surfaces that no agent, CLI or
 * test runner needs: io_uring (its own syscall path past seccomp),
 * userfaultfd (the classic race widener), bpf, perf_event_open and the
 * key-retention calls. They fail with EPERM, not a kill, so a runtime
 * that probes for io_uring falls back as it does on older kernels.
 * Anything but native x86-64 (the i386 entry, x32 numbers) is refused as
 * a whole: the numbers below mean other calls there. */
#include "launch.h"

#include <errno.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define X32_SYSCALL_BIT 0x40000000u

#define DENY(nr)                                                              \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),                          \
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)

int
launch_seccomp_apply(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        DENY(__NR_io_uring_setup),
        DENY(__NR_io_uring_enter),
        DENY(__NR_io_uring_register),
        DENY(__NR_userfaultfd),
        DENY(__NR_bpf),
        DENY(__NR_perf_event_open),
        DENY(__NR_keyctl),
        DENY(__NR_add_key),
        DENY(__NR_request_key),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

    /* Docker sets it too (no-new-privileges); a filter needs it or
     * CAP_SYS_ADMIN, and the launcher must not depend on either being
     * there already. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}
