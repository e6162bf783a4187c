/* pass_waiting.h - what an invocation that is not being worked on waits
 * for, as the condition Waiting and an event when that changes
 * (pass_waiting.c). */
#ifndef PASS_WAITING_H
#define PASS_WAITING_H

#include "ctl.h"

enum pass_wait {
    CTL_WAIT_NONE,       /* nothing holds it back (any more) */
    CTL_WAIT_DOCKER,     /* DockerUnreachable: the daemon does not answer */
    CTL_WAIT_SECCOMP,    /* DockerUnconfined: it answers, runs no seccomp */
    CTL_WAIT_ADMISSION,  /* NotAdmitted: the config refuses the spec */
    CTL_WAIT_BUILD_SLOT, /* BuildQueued: every --max-building slot taken */
};

/* Says what inv waits for now (detail: the error or the figures the
 * message names; NULL for none). Waiting=True with the wait's reason and
 * a message that says what to do, and an event only when the reason
 * changes (not at every pass of the wait). CTL_WAIT_NONE turns a
 * Waiting=True into Waiting=False/WaitOver with a Normal event WaitOver;
 * an invocation that never waited gets no Waiting condition. */
void pass_waiting(struct ctl_inv *inv, enum pass_wait w, const char *detail);

/* Before capture: no box is built before GET /info said the daemon
 * confines it with seccomp (loop_docker.c). true, and Waiting says so,
 * while the daemon is unreachable or unconfined; the next resync asks
 * again. */
bool pass_waiting_for_docker(struct ctl_inv *inv);

/* Admission's verdict: Admitted=True, or Admitted=False/NotAdmitted and
 * Waiting=True/NotAdmitted with the refusal (NULL: admitted). */
void pass_waiting_admission(struct ctl_inv *inv, const char *refusal);

/* The wait's reason (the condition's and the event's), "" for none. */
const char *pass_wait_reason(enum pass_wait w);

#endif
