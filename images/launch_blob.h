/* launch_blob.h - the agent-launch executable, embedded in the controller
 * at build time (launch_blob.c), so the launcher a box gets is always the
 * one built with the controller that wrote its policy, whatever image the
 * agent runs. */
#ifndef LAUNCH_BLOB_H
#define LAUNCH_BLOB_H

#include <stddef.h>

extern const char launch_blob[];
extern const char launch_blob_end[];

static inline size_t
launch_blob_size(void)
{
    return (size_t)(launch_blob_end - launch_blob);
}

#endif
