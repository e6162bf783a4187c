/* parsebench.c - load one spec file ROUNDS times with spec_load_file()
 * (read, parse, validate: what agentctl and the directory store do per
 * file) and print one line: the median CPU time of a load (the process's
 * CPU clock: on a shared, loaded machine wall time mostly measures the
 * neighbours), the median and best wall time, the process's peak RSS, how
 * many specs loaded and the first error.
 * Usage: parsebench FILE [ROUNDS]. Built once against each tree being
 * compared (hack/bench/parse/run.sh); uses only spec.h, which both share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "spec.h"

static double
now_ms(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    double *ms, *cpu;
    char first[600] = "-";
    size_t specs = 0, errors = 0;
    struct rusage ru;

    if (argc < 2 || rounds < 1) {
        fprintf(stderr, "usage: parsebench FILE [ROUNDS]\n");
        return 2;
    }
    ms = calloc((size_t)rounds, sizeof(*ms));
    cpu = calloc((size_t)rounds, sizeof(*cpu));
    if (ms == NULL || cpu == NULL)
        return 1;
    for (int r = 0; r < rounds; r++) {
        struct spec_file f;
        double t0 = now_ms(CLOCK_MONOTONIC);
        double c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);

        spec_load_file(argv[1], &f);
        ms[r] = now_ms(CLOCK_MONOTONIC) - t0;
        cpu[r] = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
        specs = f.n;
        errors = f.errors.n + f.errors.dropped;
        if (f.errors.n > 0)
            err_format(&f.errors.items[0], first, sizeof(first));
        spec_file_cleanup(&f);
    }
    qsort(ms, (size_t)rounds, sizeof(*ms), cmp_double);
    qsort(cpu, (size_t)rounds, sizeof(*cpu), cmp_double);
    getrusage(RUSAGE_SELF, &ru);
    /* line:col: message, without the path the caller knows */
    if (strncmp(first, argv[1], strlen(argv[1])) == 0)
        memmove(first, first + strlen(argv[1]) + 1,
                strlen(first + strlen(argv[1]) + 1) + 1);
    printf("cpu_ms=%.2f median_ms=%.2f best_ms=%.2f maxrss_kib=%ld specs=%zu "
           "errors=%zu first=%s\n",
           cpu[rounds / 2], ms[rounds / 2], ms[0], ru.ru_maxrss, specs,
           errors, first);
    free(cpu);
    free(ms);
    return 0;
}
