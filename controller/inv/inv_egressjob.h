/* inv_egressjob.h - an invocation's live egress audit as the controller
 * holds it (inv_egressjob.c): its follows, its file and queue, its
 * counts; freed and forgotten. Below ctl_attempt and ctl_queue, which
 * free it; the steps that follow and drain the logs are out_egress.h. */
#ifndef INV_EGRESSJOB_H
#define INV_EGRESSJOB_H

#include <stdbool.h>

#include "buf.h"
#include "ctl.h"
#include "inv_auditline.h"
#include "obs_usage.h"

/* The containers whose logs are audited: the gateway and the proxy. */
#define CTL_EGRESS_SOURCES 2

/* One container's log being read. */
struct inv_egress_src {
    struct ctl_inv *inv;
    size_t idx;            /* which source (out_egress.c sources[]) */
    struct dk_req *follow; /* the follow in flight (a wake-up only: its
                              lines are not taken), or NULL */
    bool ended;            /* the follow reached the end: it stopped */
    struct dk_req *read;   /* the ordered read from pos in flight */
    bool wanted;           /* the follow saw data since that read began */
    bool first;            /* the read's first line is still to come */
    ev_timer wake;         /* the next read, a little after the data */
    char id[72];           /* the container pos is of ("" none yet) */
    struct inv_audit_pos pos;
    struct dk_logs_demux dm;
    struct inv_audit_framer fr;
};

/* inv->cleanup.egress: made at the first start of a source, or at cleanup. */
struct inv_egress {
    struct inv_egress_src src[CTL_EGRESS_SOURCES];
    int fd;                /* egress.jsonl, appended; -1 unwritable */
    struct buf q;          /* rendered lines not yet written: empty
                              between two chunks of a log */
    unsigned long q_lines; /* lines in q */
    /* the file's bytes and lines; the lines lost, counted */
    unsigned long long bytes, lines, dropped;
    bool no_key;       /* the credential is unreadable */
    bool write_warned; /* EgressAuditUnwritten said once */
    unsigned gaps;     /* reads that found lines rotated out */
    size_t next;       /* cleanup: the source drained next */
    unsigned requests, forwarded, refused, spent; /* gateway lines */
    unsigned tunnels, denied;                     /* proxy lines */
    struct obs_usage usage; /* status.usage (obs_usage.c), recorded with
                               the counts above */
};

/* Stop the follows, close the file, free. What the file holds is what
 * the record says (status.egress). NULL-safe (inv->cleanup.egress NULL). */
void inv_egress_free(struct ctl_inv *inv);

#endif
