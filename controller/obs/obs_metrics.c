/* obs_metrics.c - the metrics registry and its Prometheus text rendering,
 * and the controller's own families (obs_metrics_register_agentctl). The
 * HTTP endpoint that serves the render is obs_metrics_http.c.
 *
 * Families live in an array sorted by name and each family's series in an
 * array sorted by label text, so lookups are binary searches and a render
 * is a plain walk: the output order never depends on the order things were
 * created in.
 */
#include "obs_metrics.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct obs_family {
    char *name;
    char *help;
    enum obs_metric_type type;
    size_t n_bounds;
    double bounds[CTL_METRICS_MAX_BUCKETS];
    struct obs_series **series; /* sorted by labels */
    size_t n_series, cap_series;
};

struct obs_series {
    const struct obs_family *fam;
    char *labels;       /* rendered `k="v",...`, keys sorted; "" for none */
    double value;       /* counter, gauge; histogram: _sum */
    uint64_t count;     /* histogram: _count */
    uint64_t buckets[]; /* histogram: n_bounds + 1 (+Inf), not cumulative */
};

struct obs_metrics {
    struct obs_family *fams[CTL_METRICS_MAX_FAMILIES]; /* sorted by name */
    size_t n_fams;
    obs_metrics_hook_fn *hook;
    void *hook_arg;
};

struct obs_metrics *
obs_metrics_new(void)
{
    return calloc(1, sizeof(struct obs_metrics));
}

static void
family_free(struct obs_family *f)
{
    for (size_t i = 0; i < f->n_series; i++) {
        free(f->series[i]->labels);
        free(f->series[i]);
    }
    free(f->series);
    free(f->name);
    free(f->help);
    free(f);
}

void
obs_metrics_free(struct obs_metrics *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->n_fams; i++)
        family_free(m->fams[i]);
    free(m);
}

/* Index of name in m->fams, or -(insertion point) - 1. */
static long
family_find(const struct obs_metrics *m, const char *name)
{
    size_t lo = 0, hi = m->n_fams;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(m->fams[mid]->name, name);

        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -(long)lo - 1;
}

static bool
name_ok(const char *s, bool colon)
{
    if (s == NULL || *s == '\0' || (*s >= '0' && *s <= '9'))
        return false;
    for (; *s != '\0'; s++) {
        char c = *s;
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                     (c >= '0' && c <= '9') || c == '_';

        if (!alnum && !(colon && c == ':'))
            return false;
    }
    return true;
}

static int
family_add(struct obs_metrics *m, enum obs_metric_type type, const char *name,
           const char *help, const double *bounds, size_t n, struct err *e)
{
    long at = family_find(m, name);
    struct obs_family *f;

    if (at >= 0) {
        if (m->fams[at]->type != type)
            return err_set(e, ERR_CONFLICT,
                           "metric %s is already declared with another type",
                           name);
        return 0;
    }
    if (!name_ok(name, true))
        return err_set(e, ERR_INVALID, "bad metric name \"%s\"", name);
    if (m->n_fams == CTL_METRICS_MAX_FAMILIES)
        return err_set(e, ERR_LIMIT, "more than %d metric families",
                       CTL_METRICS_MAX_FAMILIES);
    f = calloc(1, sizeof(*f));
    if (f == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    f->name = strdup(name);
    f->help = strdup(help != NULL ? help : "");
    if (f->name == NULL || f->help == NULL) {
        family_free(f);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    f->type = type;
    f->n_bounds = n;
    if (n > 0)
        memcpy(f->bounds, bounds, n * sizeof(*bounds));
    at = -at - 1;
    memmove(&m->fams[at + 1], &m->fams[at],
            (m->n_fams - (size_t)at) * sizeof(m->fams[0]));
    m->fams[at] = f;
    m->n_fams++;
    return 0;
}

int
obs_metrics_register(struct obs_metrics *m, enum obs_metric_type type,
                     const char *name, const char *help, struct err *e)
{
    if (type == CTL_METRIC_HISTOGRAM)
        return err_set(e, ERR_INVALID,
                       "histogram %s needs obs_metrics_register_histogram",
                       name);
    return family_add(m, type, name, help, NULL, 0, e);
}

int
obs_metrics_register_histogram(struct obs_metrics *m, const char *name,
                               const char *help, const double *bounds, size_t n,
                               struct err *e)
{
    if (n == 0 || n > CTL_METRICS_MAX_BUCKETS)
        return err_set(e, ERR_INVALID, "histogram %s: 1 to %d buckets", name,
                       CTL_METRICS_MAX_BUCKETS);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1]))
            return err_set(e, ERR_INVALID,
                           "histogram %s: bucket bounds must be finite and "
                           "strictly increasing",
                           name);
    return family_add(m, CTL_METRIC_HISTOGRAM, name, help, bounds, n, e);
}

/* Append s escaped for a label value (\\, \", \n) or, with quote false,
 * for HELP text (\\, \n). */
static int
put_escaped(struct buf *b, const char *s, bool quote, struct err *e)
{
    for (; *s != '\0'; s++) {
        const char *rep = NULL;

        if (*s == '\\')
            rep = "\\\\";
        else if (*s == '\n')
            rep = "\\n";
        else if (*s == '"' && quote)
            rep = "\\\"";
        if ((rep != NULL ? buf_puts(b, rep, e) : buf_append(b, s, 1, e)) == -1)
            return -1;
    }
    return 0;
}

/* Render labels (key, value, ..., NULL) as `k="v",...` with keys sorted,
 * so the same set given in another order is the same series. */
static int
labels_render(const struct obs_family *f, const char *const *labels,
              struct buf *out, struct err *e)
{
    const char *const *kv[CTL_METRICS_MAX_LABELS];
    size_t n = 0;

    for (const char *const *p = labels; p != NULL && *p != NULL; p += 2) {
        if (p[1] == NULL)
            return err_set(e, ERR_INVALID, "%s: label %s has no value", f->name,
                           p[0]);
        if (!name_ok(p[0], false) || strncmp(p[0], "__", 2) == 0 ||
            (f->type == CTL_METRIC_HISTOGRAM && strcmp(p[0], "le") == 0))
            return err_set(e, ERR_INVALID, "%s: bad label name \"%s\"", f->name,
                           p[0]);
        if (n == CTL_METRICS_MAX_LABELS)
            return err_set(e, ERR_LIMIT, "%s: more than %d labels", f->name,
                           CTL_METRICS_MAX_LABELS);
        size_t i = n++;
        for (; i > 0 && strcmp(*kv[i - 1], p[0]) >= 0; i--) {
            if (strcmp(*kv[i - 1], p[0]) == 0)
                return err_set(e, ERR_INVALID, "%s: label %s given twice",
                               f->name, p[0]);
            kv[i] = kv[i - 1];
        }
        kv[i] = p;
    }
    for (size_t i = 0; i < n; i++) {
        if (buf_printf(out, e, "%s%s=\"", i ? "," : "", kv[i][0]) == -1 ||
            put_escaped(out, kv[i][1], true, e) == -1 ||
            buf_puts(out, "\"", e) == -1)
            return -1;
    }
    return 0;
}

/* Index of labels in f->series, or -(insertion point) - 1. */
static long
series_find(const struct obs_family *f, const char *labels)
{
    size_t lo = 0, hi = f->n_series;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(f->series[mid]->labels, labels);

        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -(long)lo - 1;
}

static struct obs_series *
series_insert(struct obs_family *f, long at, struct buf *labels, struct err *e)
{
    size_t nb = f->type == CTL_METRIC_HISTOGRAM ? f->n_bounds + 1 : 0;
    struct obs_series *s;

    if (f->n_series == CTL_METRICS_MAX_SERIES) {
        err_set(e, ERR_LIMIT, "%s: more than %d series", f->name,
                CTL_METRICS_MAX_SERIES);
        return NULL;
    }
    if (f->n_series == f->cap_series) {
        size_t cap = f->cap_series ? f->cap_series * 2 : 8;
        struct obs_series **p = realloc(f->series, cap * sizeof(*p));

        if (p == NULL)
            goto nomem;
        f->series = p;
        f->cap_series = cap;
    }
    s = calloc(1, sizeof(*s) + nb * sizeof(s->buckets[0]));
    if (s == NULL)
        goto nomem;
    s->fam = f;
    s->labels = buf_take(labels);
    if (s->labels == NULL) {
        free(s);
        goto nomem;
    }
    at = -at - 1;
    memmove(&f->series[at + 1], &f->series[at],
            (f->n_series - (size_t)at) * sizeof(f->series[0]));
    f->series[at] = s;
    f->n_series++;
    return s;
nomem:
    err_set(e, ERR_NOMEM, "out of memory");
    return NULL;
}

struct obs_series *
obs_metrics_series(struct obs_metrics *m, const char *name,
                   const char *const *labels, struct err *e)
{
    long fi = family_find(m, name);
    struct obs_family *f;
    struct obs_series *s = NULL;
    struct buf lb;
    long at;

    if (fi < 0) {
        err_set(e, ERR_NOTFOUND, "no metric named %s", name);
        return NULL;
    }
    f = m->fams[fi];
    buf_init(&lb, CTL_METRICS_MAX_LABEL_TEXT);
    if (buf_puts(&lb, "", e) == -1 || labels_render(f, labels, &lb, e) == -1)
        goto out;
    at = series_find(f, lb.data);
    s = at >= 0 ? f->series[at] : series_insert(f, at, &lb, e);
out:
    buf_cleanup(&lb);
    return s;
}

void
obs_series_add(struct obs_series *s, double v)
{
    if (s->fam->type == CTL_METRIC_GAUGE ||
        (s->fam->type == CTL_METRIC_COUNTER && v >= 0))
        s->value += v;
}

void
obs_series_set(struct obs_series *s, double v)
{
    if (s->fam->type != CTL_METRIC_HISTOGRAM)
        s->value = v;
}

void
obs_series_observe(struct obs_series *s, double v)
{
    const struct obs_family *f = s->fam;
    size_t i = 0;

    if (f->type != CTL_METRIC_HISTOGRAM || isnan(v))
        return;
    while (i < f->n_bounds && v > f->bounds[i])
        i++;
    s->buckets[i]++;
    s->count++;
    s->value += v;
}

double
obs_series_value(const struct obs_series *s)
{
    return s->fam->type == CTL_METRIC_HISTOGRAM ? 0 : s->value;
}

typedef void series_op_fn(struct obs_series *s, double v);

/* The by-name shorthands: look the series up, check its type, update. */
static int
by_name(struct obs_metrics *m, const char *name, const char *const *labels,
        enum obs_metric_type type, series_op_fn *op, double v)
{
    struct obs_series *s = obs_metrics_series(m, name, labels, NULL);

    if (s == NULL || s->fam->type != type)
        return -1;
    op(s, v);
    return 0;
}

int
obs_metrics_counter_add(struct obs_metrics *m, const char *name,
                        const char *const *labels, double v)
{
    return by_name(m, name, labels, CTL_METRIC_COUNTER, obs_series_add, v);
}

int
obs_metrics_counter_set(struct obs_metrics *m, const char *name,
                        const char *const *labels, double v)
{
    return by_name(m, name, labels, CTL_METRIC_COUNTER, obs_series_set, v);
}

int
obs_metrics_gauge_set(struct obs_metrics *m, const char *name,
                      const char *const *labels, double v)
{
    return by_name(m, name, labels, CTL_METRIC_GAUGE, obs_series_set, v);
}

int
obs_metrics_observe(struct obs_metrics *m, const char *name,
                    const char *const *labels, double v)
{
    return by_name(m, name, labels, CTL_METRIC_HISTOGRAM, obs_series_observe,
                   v);
}

void
obs_metrics_set_hook(struct obs_metrics *m, obs_metrics_hook_fn *fn, void *arg)
{
    m->hook = fn;
    m->hook_arg = arg;
}

void
obs_metrics_refresh(struct obs_metrics *m)
{
    if (m->hook != NULL)
        m->hook(m, m->hook_arg);
}

/* The shortest %g text that reads back as v, so 0.1 prints "0.1" and not
 * "0.10000000000000001"; Prometheus spells the infinities +Inf/-Inf. */
static void
fmt_double(char *out, size_t size, double v)
{
    if (isnan(v)) {
        snprintf(out, size, "NaN");
        return;
    }
    if (isinf(v)) {
        snprintf(out, size, "%s", v > 0 ? "+Inf" : "-Inf");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, size, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

/* One sample line: name suffix {labels[,extra]} value. */
static int
put_sample(struct buf *b, const char *name, const char *suffix,
           const char *labels, const char *extra, const char *value,
           struct err *e)
{
    bool any = labels[0] != '\0' || extra != NULL;

    return buf_printf(b, e, "%s%s%s%s%s%s%s %s\n", name, suffix, any ? "{" : "",
                      labels, labels[0] != '\0' && extra != NULL ? "," : "",
                      extra != NULL ? extra : "", any ? "}" : "", value);
}

static int
render_histogram(const struct obs_series *s, struct buf *b, struct err *e)
{
    const struct obs_family *f = s->fam;
    char num[40], le[64];
    uint64_t cum = 0;

    for (size_t i = 0; i <= f->n_bounds; i++) {
        cum += s->buckets[i];
        if (i < f->n_bounds)
            fmt_double(num, sizeof(num), f->bounds[i]);
        else
            snprintf(num, sizeof(num), "+Inf");
        snprintf(le, sizeof(le), "le=\"%s\"", num);
        snprintf(num, sizeof(num), "%" PRIu64, cum);
        if (put_sample(b, f->name, "_bucket", s->labels, le, num, e) == -1)
            return -1;
    }
    fmt_double(num, sizeof(num), s->value);
    if (put_sample(b, f->name, "_sum", s->labels, NULL, num, e) == -1)
        return -1;
    snprintf(num, sizeof(num), "%" PRIu64, s->count);
    return put_sample(b, f->name, "_count", s->labels, NULL, num, e);
}

static int
render_family(const struct obs_family *f, struct buf *b, struct err *e)
{
    static const char *const type_names[] = { "counter", "gauge", "histogram" };
    char num[40];

    if (buf_printf(b, e, "# HELP %s ", f->name) == -1 ||
        put_escaped(b, f->help, false, e) == -1 ||
        buf_printf(b, e, "\n# TYPE %s %s\n", f->name, type_names[f->type]) ==
            -1)
        return -1;
    for (size_t i = 0; i < f->n_series; i++) {
        const struct obs_series *s = f->series[i];

        if (f->type == CTL_METRIC_HISTOGRAM) {
            if (render_histogram(s, b, e) == -1)
                return -1;
            continue;
        }
        fmt_double(num, sizeof(num), s->value);
        if (put_sample(b, f->name, "", s->labels, NULL, num, e) == -1)
            return -1;
    }
    return 0;
}

int
obs_metrics_render(const struct obs_metrics *m, struct buf *out, struct err *e)
{
    for (size_t i = 0; i < m->n_fams; i++)
        if (render_family(m->fams[i], out, e) == -1)
            return -1;
    return 0;
}

/* --- the controller's metrics ----------------------------------------- */

/* Prometheus' default buckets: 5 ms to 10 s covers a pass that only reads
 * state as well as one that waits on a slow daemon. */
static const double duration_buckets[] = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                           0.5,   1,    2.5,   5,    10 };

struct family_def {
    const char *name;
    enum obs_metric_type type;
    const char *help;
    const char *label;           /* NULL: one series without labels */
    const char *const values[7]; /* label values made at zero */
    bool series_on_first_use;    /* labels known only when counted */
};

static const struct family_def agentctl_families[] = {
    { CTL_M_RECONCILES,
      CTL_METRIC_COUNTER,
      "Reconcile passes by result (ok, error, requeue).",
      "result",
      { "ok", "error", "requeue" },
      false },
    { CTL_M_DOCKER_REQUESTS,
      CTL_METRIC_COUNTER,
      "Docker Engine API requests by outcome.",
      "result",
      { "ok", "4xx", "5xx", "transport", "timeout", "cancelled" },
      false },
    { CTL_M_DOCKER_IN_FLIGHT,
      CTL_METRIC_GAUGE,
      "Docker Engine API requests started and not finished.",
      NULL,
      { 0 },
      false },
    { CTL_M_INVOCATIONS,
      CTL_METRIC_GAUGE,
      "Known invocations by phase.",
      "phase",
      { "Pending", "Preparing", "Running", "Succeeded", "Failed", "Cancelled" },
      false },
    { CTL_M_DOCKER_UP,
      CTL_METRIC_GAUGE,
      "1 when the Docker daemon answered the last request, else 0.",
      NULL,
      { 0 },
      false },
    { CTL_M_STORE_UP,
      CTL_METRIC_GAUGE,
      "1 when the spec store is readable and watched, else 0.",
      NULL,
      { 0 },
      false },
    { CTL_M_QUEUE_DEPTH,
      CTL_METRIC_GAUGE,
      "Invocations with a pass queued (now or after a delay).",
      NULL,
      { 0 },
      false },
    { CTL_M_QUEUE_RETRIES,
      CTL_METRIC_COUNTER,
      "Passes queued again with backoff after a step failed.",
      NULL,
      { 0 },
      false },
    { CTL_M_SPECS_INVALID,
      CTL_METRIC_GAUGE,
      "Specs in the store that do not validate (each is logged once per "
      "version: spec invalid, file:line:col: field: problem).",
      NULL,
      { 0 },
      false },
    { CTL_M_BOXES,
      CTL_METRIC_GAUGE,
      "Boxes being built (holding a build slot, --max-building) and "
      "waiting for a slot.",
      "state",
      { "building", "waiting" },
      false },
    { CTL_M_POOL_BOXES,
      CTL_METRIC_GAUGE,
      "Boxes of the warm pool (warmPool) by vendor, being built or ready to "
      "be handed.",
      NULL,
      { NULL },
      true },
    { CTL_M_POOL_HANDOVERS,
      CTL_METRIC_COUNTER,
      "Warm boxes by what became of them: handed to an invocation, removed "
      "for drift while waiting (drifted), or none ready when an invocation "
      "asked (empty: it built its own).",
      NULL,
      { NULL },
      true },
    { CTL_M_ATTEMPTS_FINISHED,
      CTL_METRIC_COUNTER,
      "Attempts that reached a final phase, by phase and stop reason "
      "(reason exit: the agent exited on its own).",
      NULL,
      { NULL },
      true },
    { CTL_M_DRIFT,
      CTL_METRIC_COUNTER,
      "Drift found by the revalidation, by rule (docs/drift-rules.md).",
      NULL,
      { NULL },
      true },
    { CTL_M_CANARY,
      CTL_METRIC_COUNTER,
      "Boundary canary runs inside running agents' network namespaces, by "
      "result.",
      "result",
      { "ok", "vendor-unreachable", "breach", "proxy-broken", "inconclusive",
        "unreadable" },
      false },
    { CTL_M_GC_REMOVALS,
      CTL_METRIC_COUNTER,
      "Orphaned Docker objects the garbage collection removed, by kind.",
      NULL,
      { NULL },
      true },
    { CTL_M_VENDOR_REQUESTS,
      CTL_METRIC_COUNTER,
      "Requests the attempts' credential gateways handled, by vendor, spec "
      "phase and result (answered: by the vendor or cut; refused: the "
      "gateway's own 4xx), counted when an attempt's audit is read.",
      NULL,
      { NULL },
      true },
    { CTL_M_VENDOR_TOKENS,
      CTL_METRIC_COUNTER,
      "Tokens the vendor billed, as its answers through the attempts' "
      "gateways reported them, by vendor, spec phase and kind (input, "
      "output, cacheRead, cacheWrite; OpenAI's cacheRead is part of its "
      "input).",
      NULL,
      { NULL },
      true },
    { CTL_M_TOKEN_BUDGET,
      CTL_METRIC_COUNTER,
      "Requests the attempts' credential gateways refused (429) because the "
      "token budget (vendorBudget.tokens, else limits.maxVendorTokens) was "
      "spent, by vendor and spec phase, counted when an attempt's audit is "
      "read.",
      NULL,
      { NULL },
      true },
    { CTL_M_CONFIG_RELOAD_OK,
      CTL_METRIC_GAUGE,
      "1 when the last config load (the start, or a SIGHUP reload) "
      "succeeded, 0 when the last SIGHUP reload failed and the old config "
      "is kept.",
      NULL,
      { 0 },
      false },
};

/* Requests: 1 ms (a local inspect) to 10 s (a create on a busy daemon). */
static const double request_buckets[] = { 0.001, 0.0025, 0.005, 0.01, 0.025,
                                          0.05,  0.1,    0.25,  0.5,  1,
                                          2.5,   5,      10 };

static int
register_def(struct obs_metrics *m, const struct family_def *d, struct err *e)
{
    if (obs_metrics_register(m, d->type, d->name, d->help, e) == -1)
        return -1;
    if (d->series_on_first_use)
        return 0;
    if (d->label == NULL)
        return obs_metrics_series(m, d->name, NULL, e) != NULL ? 0 : -1;
    for (size_t i = 0; i < 7 && d->values[i] != NULL; i++)
        if (obs_metrics_series(m, d->name, CTL_LABELS(d->label, d->values[i]),
                               e) == NULL)
            return -1;
    return 0;
}

int
obs_metrics_register_agentctl(struct obs_metrics *m, const char *version,
                              struct err *e)
{
    struct obs_series *s;

    for (size_t i = 0;
         i < sizeof(agentctl_families) / sizeof(agentctl_families[0]); i++)
        if (register_def(m, &agentctl_families[i], e) == -1)
            return -1;
    if (obs_metrics_register_histogram(
            m, CTL_M_RECONCILE_SECONDS, "Duration of one reconcile pass.",
            duration_buckets,
            sizeof(duration_buckets) / sizeof(duration_buckets[0]), e) == -1 ||
        obs_metrics_series(m, CTL_M_RECONCILE_SECONDS, NULL, e) == NULL ||
        obs_metrics_register_histogram(
            m, CTL_M_DOCKER_SECONDS,
            "Docker Engine API request latency by operation (streams "
            "excluded).",
            request_buckets,
            sizeof(request_buckets) / sizeof(request_buckets[0]), e) == -1 ||
        obs_metrics_register_histogram(
            m, CTL_M_ETCD_SECONDS,
            "etcd request latency by operation (the watch excluded).",
            request_buckets,
            sizeof(request_buckets) / sizeof(request_buckets[0]), e) == -1 ||
        obs_metrics_register(m, CTL_METRIC_GAUGE, CTL_M_BUILD_INFO,
                             "Always 1; the version is in the label.", e) == -1)
        return -1;
    s = obs_metrics_series(m, CTL_M_BUILD_INFO, CTL_LABELS("version", version),
                           e);
    if (s == NULL)
        return -1;
    obs_series_set(s, 1);
    /* The controller does not start on a config that fails to load, so
     * the first load succeeded; a failed SIGHUP reload sets it to 0. */
    s = obs_metrics_series(m, CTL_M_CONFIG_RELOAD_OK, NULL, e);
    if (s == NULL)
        return -1;
    obs_series_set(s, 1);
    return 0;
}
