/* obs_metrics_process.c - the process_* metrics every Prometheus client
 * library exports (CPU seconds, resident and virtual memory, open and
 * maximum file descriptors, start time), read from /proc/self at scrape
 * time, so a dashboard built for any exporter works on the controller. */
#include "obs_metrics.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const struct {
    const char *name;
    enum obs_metric_type type;
    const char *help;
} process_families[] = {
    { CTL_M_PROCESS_CPU, CTL_METRIC_COUNTER,
      "Total user and system CPU time spent in seconds." },
    { CTL_M_PROCESS_RSS, CTL_METRIC_GAUGE, "Resident memory size in bytes." },
    { CTL_M_PROCESS_VSZ, CTL_METRIC_GAUGE, "Virtual memory size in bytes." },
    { CTL_M_PROCESS_FDS, CTL_METRIC_GAUGE, "Number of open file descriptors." },
    { CTL_M_PROCESS_MAX_FDS, CTL_METRIC_GAUGE,
      "Maximum number of open file descriptors." },
    { CTL_M_PROCESS_START, CTL_METRIC_GAUGE,
      "Start time of the process since unix epoch in seconds." },
};

int
obs_metrics_register_process(struct obs_metrics *m, struct err *e)
{
    for (size_t i = 0;
         i < sizeof(process_families) / sizeof(process_families[0]); i++)
        if (obs_metrics_register(m, process_families[i].type,
                                 process_families[i].name,
                                 process_families[i].help, e) == -1 ||
            obs_metrics_series(m, process_families[i].name, NULL, e) == NULL)
            return -1;
    return 0;
}

/* Fields 14-15 (utime, stime), 22 (starttime), 23 (vsize), 24 (rss) of
 * /proc/self/stat; the command in field 2 may hold spaces, so parsing
 * starts after its closing parenthesis. */
static int
read_stat(double *cpu_ticks, double *start_ticks, double *vsize, double *rss)
{
    char buf[1024], *p;
    unsigned long long f[52] = { 0 };
    FILE *fp = fopen("/proc/self/stat", "re");
    size_t n;
    int k = 3;

    if (fp == NULL)
        return -1;
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    if ((p = strrchr(buf, ')')) == NULL)
        return -1;
    p += 2; /* ") " then the state, field 3 */
    while (*p != '\0' && k < 52) {
        if (k > 3)
            f[k] = strtoull(p, NULL, 10);
        p += strcspn(p, " ");
        p += *p == ' ';
        k++;
    }
    *cpu_ticks = (double)(f[14] + f[15]);
    *start_ticks = (double)f[22];
    *vsize = (double)f[23];
    *rss = (double)f[24];
    return k > 24 ? 0 : -1;
}

/* The boot time (btime of /proc/stat), for the start time. */
static double
boot_time(void)
{
    char line[256];
    double bt = 0;
    FILE *fp = fopen("/proc/stat", "re");

    while (fp != NULL && fgets(line, sizeof(line), fp) != NULL)
        if (sscanf(line, "btime %lf", &bt) == 1)
            break;
    if (fp != NULL)
        fclose(fp);
    return bt;
}

static double
open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *de;
    double n = 0;

    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL)
        n += de->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the descriptor opendir itself holds */
}

void
obs_metrics_process_refresh(struct obs_metrics *m)
{
    double cpu, start, vsize, rss;
    double hz = (double)sysconf(_SC_CLK_TCK),
           page = (double)sysconf(_SC_PAGESIZE);
    struct rlimit rl;

    if (read_stat(&cpu, &start, &vsize, &rss) == 0 && hz > 0) {
        obs_metrics_counter_set(m, CTL_M_PROCESS_CPU, NULL, cpu / hz);
        obs_metrics_gauge_set(m, CTL_M_PROCESS_START, NULL,
                              boot_time() + start / hz);
        obs_metrics_gauge_set(m, CTL_M_PROCESS_VSZ, NULL, vsize);
        obs_metrics_gauge_set(m, CTL_M_PROCESS_RSS, NULL, rss * page);
    }
    obs_metrics_gauge_set(m, CTL_M_PROCESS_FDS, NULL, open_fds());
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        obs_metrics_gauge_set(
            m, CTL_M_PROCESS_MAX_FDS, NULL,
            rl.rlim_cur == RLIM_INFINITY ? -1 : (double)rl.rlim_cur);
}
