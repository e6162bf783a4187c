/* inv_resultjob.c - inv->cleanup.result let go (inv_resultjob.h). */
#include "inv_resultjob.h"

#include <stdlib.h>

void
inv_resultread_free(struct ctl_inv *inv)
{
    if (inv->cleanup.result == NULL)
        return;
    free(inv->cleanup.result->buf);
    free(inv->cleanup.result);
    inv->cleanup.result = NULL;
}
