/* fake_confine.h - the fake vendor CLI's negative probes of the phase
 * policy's kernel layer (fake_confine.c). Test-only. */
#ifndef FAKE_CONFINE_H
#define FAKE_CONFINE_H

/* Print ,"confine":{...} and, when the runner tool's socket exists,
 * ,"runner":"<its answer>" to stdout. */
void fake_confine_report(void);

#endif
