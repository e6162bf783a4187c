/* inv_pinset.c - the capture's pin set as the queue sees it (inv_pinset.h). */
#include "inv_pinset.h"

#include <stdlib.h>

bool
inv_pins_out(const struct ctl_pins *p)
{
    return p != NULL && p->out > 0;
}

void
inv_pins_free(struct ctl_pins *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < sizeof(p->req) / sizeof(p->req[0]); i++)
        dk_cancel(p->req[i]);
    free(p->failed);
    free(p);
}
