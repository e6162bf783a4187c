/* ctl_record_int.h - helpers shared by ctl_record.c and ctl_record_json.c
 * (not for the rest of the daemon). */
#ifndef CTL_RECORD_INT_H
#define CTL_RECORD_INT_H

#include <stdbool.h>

#include "ctl_record.h"

/* strdup(s), or NULL for NULL. */
char *ctl_record__dup_or_null(const char *s);
bool ctl_record__str_eq(const char *a, const char *b);
/* Append copies; on no memory nothing is added. */
void ctl_record__pair_add(struct ctl_record_pair **p, size_t *n,
                          const char *key, const char *value);
/* status: the text as written ("True" is true; NULL when absent). */
void ctl_record__cond_append(struct ctl_record *r, const char *type,
                             const char *status, const char *reason,
                             const char *message, const char *time);
/* Free the plain string fields (cleanup). */
void ctl_record__free_strings(struct ctl_record *r);

#endif
