/* ctl_resultjob.c - inv->result let go (ctl_resultjob.h). */
#include "ctl_resultjob.h"

#include <stdlib.h>

void
ctl_resultread_free(struct ctl_inv *inv)
{
    if (inv->result == NULL)
        return;
    free(inv->result->buf);
    free(inv->result);
    inv->result = NULL;
}
