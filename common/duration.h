/* duration.h - Go-style durations ("1h30m", "2.5s", "500ms", "90"). */
#ifndef DURATION_H
#define DURATION_H

/* "1h30m", "2.5s", "500ms", "90" (seconds) -> seconds; -1 when s is not a
 * duration (also for a negative one). */
int duration_parse(const char *s, double *seconds);

#endif
