/* inv_resultjob.h - the agent's result being read, as the controller
 * holds it (inv->cleanup.result): what was kept of the channel and what the
 * read found. Below ctl_queue, which frees it; the steps that read it are
 * out_resultread.h. */
#ifndef INV_RESULTJOB_H
#define INV_RESULTJOB_H

#include <stdbool.h>
#include <stddef.h>

#include "ctl.h"
#include "rc_result.h"

struct inv_resultread {
    struct dk_logs_demux demux;
    char *buf; /* stdout (the envelope), or the archive of the file */
    size_t len, max;
    bool over;   /* more than max came: the rest was dropped */
    bool broken; /* the log stream's framing was bad */
    bool done;   /* read and recorded for this exit */
    enum rc_result_problem problem;
    bool is_error;
    char detail[300];
};

/* Let go of inv->result (NULL is a no-op). */
void inv_resultread_free(struct ctl_inv *inv);

#endif
