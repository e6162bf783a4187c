/* duration.c - durations as kubectl takes them (Go's
 * time.ParseDuration): a sequence of decimal numbers, each with a unit,
 * "1h30m", "2.5s", "500ms", "1m0s"; units h, m, s, ms, us (or µs), ns.
 * A bare number is seconds, as agentctl always took it ("90"). One parser
 * for agentctl's flags, agent-controller's flags and the controller
 * config (probeInterval). */
#include "duration.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *unit;
    double seconds;
} units[] = {
    /* longest first, so "ms" is not read as "m" */
    { "ns", 1e-9 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 }, { "ms", 1e-3 },
    { "h", 3600 },  { "m", 60 },    { "s", 1 },
};

/* The unit at *p: its length and size, or 0 when there is none. */
static size_t
unit_at(const char *p, double *seconds)
{
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        size_t n = strlen(units[i].unit);

        if (strncmp(p, units[i].unit, n) == 0) {
            *seconds = units[i].seconds;
            return n;
        }
    }
    return 0;
}

int
duration_parse(const char *s, double *seconds)
{
    const char *p = s;
    double total = 0;

    if (s == NULL || *s == '\0')
        return -1;
    while (*p != '\0') {
        char *end;
        double v, unit = 0;
        size_t n;

        if (!((*p >= '0' && *p <= '9') || *p == '.'))
            return -1; /* also refuses a sign: no negative waits */
        errno = 0;
        v = strtod(p, &end);
        if (errno != 0 || end == p)
            return -1;
        n = unit_at(end, &unit);
        if (n == 0 && *end == '\0' && p == s) {
            *seconds = v; /* "90": seconds */
            return 0;
        }
        if (n == 0)
            return -1;
        total += v * unit;
        p = end + n;
    }
    *seconds = total;
    return 0;
}
