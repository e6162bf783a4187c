/* ctl_resultjob.c - inv->cleanup.result let go (ctl_resultjob.h). */
#include "ctl_resultjob.h"

#include <stdlib.h>

void
ctl_resultread_free(struct ctl_inv *inv)
{
    if (inv->cleanup.result == NULL)
        return;
    free(inv->cleanup.result->buf);
    free(inv->cleanup.result);
    inv->cleanup.result = NULL;
}
