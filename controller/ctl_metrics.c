/* ctl_metrics.c - the metrics registry, its Prometheus text rendering, and
 * the /metrics + /healthz endpoint (libmicrohttpd driven by libev).
 *
 * Families live in an array sorted by name and each family's series in an
 * array sorted by label text, so lookups are binary searches and a render
 * is a plain walk: the output order never depends on the order things were
 * created in.
 */
#include "ctl_metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <ev.h>
#include <microhttpd.h>

#define container_of(p, type, member)                                          \
    ((type *)((char *)(p)-offsetof(type, member)))

struct ctl_family {
    char *name;
    char *help;
    enum ctl_metric_type type;
    size_t n_bounds;
    double bounds[CTL_METRICS_MAX_BUCKETS];
    struct ctl_series **series; /* sorted by labels */
    size_t n_series, cap_series;
};

struct ctl_series {
    const struct ctl_family *fam;
    char *labels;       /* rendered `k="v",...`, keys sorted; "" for none */
    double value;       /* counter, gauge; histogram: _sum */
    uint64_t count;     /* histogram: _count */
    uint64_t buckets[]; /* histogram: n_bounds + 1 (+Inf), not cumulative */
};

struct ctl_metrics {
    struct ctl_family *fams[CTL_METRICS_MAX_FAMILIES]; /* sorted by name */
    size_t n_fams;
    ctl_metrics_hook_fn *hook;
    void *hook_arg;
};

struct ctl_metrics *
ctl_metrics_new(void)
{
    return calloc(1, sizeof(struct ctl_metrics));
}

static void
family_free(struct ctl_family *f)
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
ctl_metrics_free(struct ctl_metrics *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->n_fams; i++)
        family_free(m->fams[i]);
    free(m);
}

/* Index of name in m->fams, or -(insertion point) - 1. */
static long
family_find(const struct ctl_metrics *m, const char *name)
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
family_add(struct ctl_metrics *m, enum ctl_metric_type type, const char *name,
           const char *help, const double *bounds, size_t n, struct err *e)
{
    long at = family_find(m, name);
    struct ctl_family *f;

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
ctl_metrics_register(struct ctl_metrics *m, enum ctl_metric_type type,
                     const char *name, const char *help, struct err *e)
{
    if (type == CTL_METRIC_HISTOGRAM)
        return err_set(e, ERR_INVALID,
                       "histogram %s needs ctl_metrics_register_histogram",
                       name);
    return family_add(m, type, name, help, NULL, 0, e);
}

int
ctl_metrics_register_histogram(struct ctl_metrics *m, const char *name,
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
labels_render(const struct ctl_family *f, const char *const *labels,
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
series_find(const struct ctl_family *f, const char *labels)
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

static struct ctl_series *
series_insert(struct ctl_family *f, long at, struct buf *labels, struct err *e)
{
    size_t nb = f->type == CTL_METRIC_HISTOGRAM ? f->n_bounds + 1 : 0;
    struct ctl_series *s;

    if (f->n_series == CTL_METRICS_MAX_SERIES) {
        err_set(e, ERR_LIMIT, "%s: more than %d series", f->name,
                CTL_METRICS_MAX_SERIES);
        return NULL;
    }
    if (f->n_series == f->cap_series) {
        size_t cap = f->cap_series ? f->cap_series * 2 : 8;
        struct ctl_series **p = realloc(f->series, cap * sizeof(*p));

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

struct ctl_series *
ctl_metrics_series(struct ctl_metrics *m, const char *name,
                   const char *const *labels, struct err *e)
{
    long fi = family_find(m, name);
    struct ctl_family *f;
    struct ctl_series *s = NULL;
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
ctl_series_add(struct ctl_series *s, double v)
{
    if (s->fam->type == CTL_METRIC_GAUGE ||
        (s->fam->type == CTL_METRIC_COUNTER && v >= 0))
        s->value += v;
}

void
ctl_series_set(struct ctl_series *s, double v)
{
    if (s->fam->type != CTL_METRIC_HISTOGRAM)
        s->value = v;
}

void
ctl_series_observe(struct ctl_series *s, double v)
{
    const struct ctl_family *f = s->fam;
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
ctl_series_value(const struct ctl_series *s)
{
    return s->fam->type == CTL_METRIC_HISTOGRAM ? 0 : s->value;
}

typedef void series_op_fn(struct ctl_series *s, double v);

/* The by-name shorthands: look the series up, check its type, update. */
static int
by_name(struct ctl_metrics *m, const char *name, const char *const *labels,
        enum ctl_metric_type type, series_op_fn *op, double v)
{
    struct ctl_series *s = ctl_metrics_series(m, name, labels, NULL);

    if (s == NULL || s->fam->type != type)
        return -1;
    op(s, v);
    return 0;
}

int
ctl_metrics_counter_add(struct ctl_metrics *m, const char *name,
                        const char *const *labels, double v)
{
    return by_name(m, name, labels, CTL_METRIC_COUNTER, ctl_series_add, v);
}

int
ctl_metrics_counter_set(struct ctl_metrics *m, const char *name,
                        const char *const *labels, double v)
{
    return by_name(m, name, labels, CTL_METRIC_COUNTER, ctl_series_set, v);
}

int
ctl_metrics_gauge_set(struct ctl_metrics *m, const char *name,
                      const char *const *labels, double v)
{
    return by_name(m, name, labels, CTL_METRIC_GAUGE, ctl_series_set, v);
}

int
ctl_metrics_observe(struct ctl_metrics *m, const char *name,
                    const char *const *labels, double v)
{
    return by_name(m, name, labels, CTL_METRIC_HISTOGRAM, ctl_series_observe,
                   v);
}

void
ctl_metrics_set_hook(struct ctl_metrics *m, ctl_metrics_hook_fn *fn, void *arg)
{
    m->hook = fn;
    m->hook_arg = arg;
}

void
ctl_metrics_refresh(struct ctl_metrics *m)
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
render_histogram(const struct ctl_series *s, struct buf *b, struct err *e)
{
    const struct ctl_family *f = s->fam;
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
render_family(const struct ctl_family *f, struct buf *b, struct err *e)
{
    static const char *const type_names[] = { "counter", "gauge", "histogram" };
    char num[40];

    if (buf_printf(b, e, "# HELP %s ", f->name) == -1 ||
        put_escaped(b, f->help, false, e) == -1 ||
        buf_printf(b, e, "\n# TYPE %s %s\n", f->name, type_names[f->type]) ==
            -1)
        return -1;
    for (size_t i = 0; i < f->n_series; i++) {
        const struct ctl_series *s = f->series[i];

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
ctl_metrics_render(const struct ctl_metrics *m, struct buf *out, struct err *e)
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
    enum ctl_metric_type type;
    const char *help;
    const char *label;           /* NULL: one series without labels */
    const char *const values[7]; /* label values made at zero */
};

static const struct family_def agentctl_families[] = {
    { CTL_M_RECONCILES,
      CTL_METRIC_COUNTER,
      "Reconcile passes by result (ok, error, requeue).",
      "result",
      { "ok", "error", "requeue" } },
    { CTL_M_DOCKER_REQUESTS,
      CTL_METRIC_COUNTER,
      "Docker Engine API requests by outcome.",
      "result",
      { "ok", "4xx", "5xx", "transport", "timeout", "cancelled" } },
    { CTL_M_DOCKER_IN_FLIGHT,
      CTL_METRIC_GAUGE,
      "Docker Engine API requests started and not finished.",
      NULL,
      { 0 } },
    { CTL_M_INVOCATIONS,
      CTL_METRIC_GAUGE,
      "Known invocations by phase.",
      "phase",
      { "Pending", "Preparing", "Running", "Succeeded", "Failed",
        "Cancelled" } },
    { CTL_M_DOCKER_UP,
      CTL_METRIC_GAUGE,
      "1 when the Docker daemon answered the last request, else 0.",
      NULL,
      { 0 } },
    { CTL_M_STORE_UP,
      CTL_METRIC_GAUGE,
      "1 when the spec store is readable and watched, else 0.",
      NULL,
      { 0 } },
};

static int
register_def(struct ctl_metrics *m, const struct family_def *d, struct err *e)
{
    if (ctl_metrics_register(m, d->type, d->name, d->help, e) == -1)
        return -1;
    if (d->label == NULL)
        return ctl_metrics_series(m, d->name, NULL, e) != NULL ? 0 : -1;
    for (size_t i = 0; i < 7 && d->values[i] != NULL; i++)
        if (ctl_metrics_series(m, d->name, CTL_LABELS(d->label, d->values[i]),
                               e) == NULL)
            return -1;
    return 0;
}

int
ctl_metrics_register_agentctl(struct ctl_metrics *m, const char *version,
                              struct err *e)
{
    struct ctl_series *s;

    for (size_t i = 0;
         i < sizeof(agentctl_families) / sizeof(agentctl_families[0]); i++)
        if (register_def(m, &agentctl_families[i], e) == -1)
            return -1;
    if (ctl_metrics_register_histogram(
            m, CTL_M_RECONCILE_SECONDS, "Duration of one reconcile pass.",
            duration_buckets,
            sizeof(duration_buckets) / sizeof(duration_buckets[0]), e) == -1 ||
        ctl_metrics_series(m, CTL_M_RECONCILE_SECONDS, NULL, e) == NULL ||
        ctl_metrics_register(m, CTL_METRIC_GAUGE, CTL_M_BUILD_INFO,
                             "Always 1; the version is in the label.", e) == -1)
        return -1;
    s = ctl_metrics_series(m, CTL_M_BUILD_INFO, CTL_LABELS("version", version),
                           e);
    if (s == NULL)
        return -1;
    ctl_series_set(s, 1);
    return 0;
}

/* --- health ----------------------------------------------------------- */

void
ctl_health_add(struct ctl_health *h, const char *name, bool ok, const char *fmt,
               ...)
{
    struct ctl_health_check *c;
    va_list ap;

    if (!ok)
        h->ok = false;
    if (h->n_checks == CTL_HEALTH_MAX_CHECKS)
        return;
    c = &h->checks[h->n_checks++];
    snprintf(c->name, sizeof(c->name), "%s", name);
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
    va_end(ap);
    c->ok = ok;
}

/* --- HTTP endpoint ---------------------------------------------------- */

struct ctl_http {
    struct ev_loop *loop;
    struct MHD_Daemon *d;
    ev_io io;    /* MHD's epoll fd: readable = some connection has work */
    ev_timer tm; /* MHD_get_timeout(): idle timeouts, buffered data */
    ctl_health_fn *health;
    void *arg;
    struct ctl_metrics *m;
    int port;
};

/* "1.2.3.4:port" or "[v6]:port", numeric only. */
static int
parse_addr(const char *s, struct sockaddr_storage *ss, struct err *e)
{
    char host[64];
    const char *colon = strrchr(s, ':'), *h = s;
    size_t hlen;
    char *end;
    long port;

    memset(ss, 0, sizeof(*ss));
    if (colon == NULL)
        goto bad;
    hlen = (size_t)(colon - s);
    if (s[0] == '[') {
        if (hlen < 2 || s[hlen - 1] != ']')
            goto bad;
        h = s + 1;
        hlen -= 2;
    }
    if (hlen == 0 || hlen >= sizeof(host))
        goto bad;
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    errno = 0;
    port = strtol(colon + 1, &end, 10);
    if (colon[1] == '\0' || *end != '\0' || errno != 0 || port < 0 ||
        port > 65535)
        goto bad;
    if (s[0] == '[') {
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1)
            return 0;
    } else {
        struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, host, &a4->sin_addr) == 1)
            return 0;
    }
bad:
    return err_set(e, ERR_INVALID,
                   "metrics address \"%s\": want IPv4:port or [IPv6]:port, "
                   "e.g. 127.0.0.1:9464",
                   s);
}

/* Queue a response that takes body (malloc'd, may be NULL = no memory). */
static enum MHD_Result
respond(struct MHD_Connection *c, unsigned status, const char *type, char *body)
{
    struct MHD_Response *r;
    enum MHD_Result ret;

    if (body == NULL)
        return MHD_NO; /* out of memory: MHD drops the connection */
    r = MHD_create_response_from_buffer(strlen(body), body,
                                        MHD_RESPMEM_MUST_FREE);
    if (r == NULL) {
        free(body);
        return MHD_NO;
    }
    if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type) ==
            MHD_NO ||
        (status == MHD_HTTP_METHOD_NOT_ALLOWED &&
         MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") ==
             MHD_NO)) {
        MHD_destroy_response(r);
        return MHD_NO;
    }
    ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result
serve_metrics(struct ctl_http *h, struct MHD_Connection *c)
{
    struct buf b;
    struct err e = { 0 };

    buf_init(&b, CTL_HTTP_MAX_BODY);
    ctl_metrics_refresh(h->m);
    if (buf_puts(&b, "", &e) == -1 || ctl_metrics_render(h->m, &b, &e) == -1) {
        buf_cleanup(&b);
        return respond(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
                       "text/plain; charset=utf-8",
                       strdup("cannot render metrics\n"));
    }
    return respond(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8",
                   buf_take(&b));
}

static enum MHD_Result
serve_health(struct ctl_http *h, struct MHD_Connection *c)
{
    struct ctl_health st = { .ok = true };
    struct buf b;
    struct err e = { 0 };
    int rc;

    if (h->health != NULL)
        h->health(&st, h->arg);
    buf_init(&b, 4096);
    rc = buf_puts(&b, st.ok ? "ok\n" : "unhealthy\n", &e);
    for (size_t i = 0; rc == 0 && i < st.n_checks; i++)
        if (st.ok || !st.checks[i].ok)
            rc = buf_printf(&b, &e, "%s: %s\n", st.checks[i].name,
                            st.checks[i].detail);
    if (rc == -1) {
        buf_cleanup(&b);
        return MHD_NO;
    }
    return respond(c, st.ok ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE,
                   "text/plain; charset=utf-8", buf_take(&b));
}

/* True when the request announces a body (MHD 0.9.75 accepts an answer
 * only before it starts reading one, so this is decided on the headers). */
static bool
has_body(struct MHD_Connection *c)
{
    const char *len = MHD_lookup_connection_value(
        c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

    return MHD_lookup_connection_value(
               c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL ||
           (len != NULL && strcmp(len, "0") != 0);
}

/* MHD's access handler. It is called once when the headers are in, then
 * for each piece of body, then once more at the end. Answering GETs on the
 * last call keeps the connection alive for the next scrape (an answer
 * queued on the first call makes MHD close it); a request with a body is
 * refused on the first call, so the body is never read. */
static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url,
           const char *method, const char *version, const char *upload_data,
           size_t *upload_data_size, void **con_cls)
{
    struct ctl_http *h = cls;
    const char *plain = "text/plain; charset=utf-8";

    (void)version;
    (void)upload_data;
    if (*con_cls == NULL) {
        if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
            strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
            return respond(c, MHD_HTTP_METHOD_NOT_ALLOWED, plain,
                           strdup("method not allowed\n"));
        if (has_body(c))
            return respond(c, MHD_HTTP_CONTENT_TOO_LARGE, plain,
                           strdup("a GET takes no body\n"));
        *con_cls = h; /* headers seen; the answer comes on the last call */
        return MHD_YES;
    }
    if (*upload_data_size != 0)
        return MHD_NO; /* a body nobody announced: drop the connection */
    if (strcmp(url, "/metrics") == 0)
        return serve_metrics(h, c);
    if (strcmp(url, "/healthz") == 0)
        return serve_health(h, c);
    return respond(c, MHD_HTTP_NOT_FOUND, plain, strdup("not found\n"));
}

/* MHD asks to be run again within its timeout even without socket events
 * (connection timeouts, data already buffered): keep the timer in step. */
static void
http_arm_timer(struct ctl_http *h)
{
    MHD_UNSIGNED_LONG_LONG ms;

    ev_timer_stop(h->loop, &h->tm);
    if (MHD_get_timeout(h->d, &ms) != MHD_YES)
        return;
    ev_timer_set(&h->tm, (double)ms / 1000.0, 0.);
    ev_timer_start(h->loop, &h->tm);
}

static unsigned
http_connections(struct ctl_http *h)
{
    const union MHD_DaemonInfo *i =
        MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);

    return i != NULL ? i->num_connections : 0;
}

/* One MHD step. At its connection limit MHD takes the listening socket out
 * of its epoll set and only puts it back at the start of a later
 * MHD_run(); with no event and no timeout pending, a client waiting in the
 * backlog would wait for good. So when connections closed, run once more. */
static void
http_drive(struct ctl_http *h)
{
    unsigned before = http_connections(h);

    MHD_run(h->d);
    if (http_connections(h) < before)
        MHD_run(h->d);
    http_arm_timer(h);
}

static void
http_on_io(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    http_drive(container_of(w, struct ctl_http, io));
}

static void
http_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    http_drive(container_of(w, struct ctl_http, tm));
}

static struct MHD_Daemon *
http_daemon(struct ctl_http *h, const char *addr_port, struct err *e)
{
    struct sockaddr_storage ss;
    struct MHD_Daemon *d;
    unsigned flags = MHD_USE_EPOLL;

    if (parse_addr(addr_port, &ss, e) == -1)
        return NULL;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    errno = 0;
    d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)CTL_HTTP_MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)CTL_HTTP_TIMEOUT_SECONDS, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)CTL_HTTP_MEMORY_LIMIT, MHD_OPTION_END);
    if (d == NULL)
        err_set(e, ERR_IO,
                "metrics endpoint: cannot listen on %s: %s (is the port "
                "taken, or the address not one of this host?)",
                addr_port, errno != 0 ? strerror(errno) : "unknown reason");
    return d;
}

struct ctl_http *
ctl_http_start(struct ev_loop *loop, const char *addr_port,
               ctl_health_fn *health, void *arg, struct ctl_metrics *m,
               struct err *e)
{
    struct ctl_http *h = calloc(1, sizeof(*h));
    const union MHD_DaemonInfo *fd, *port;

    if (h == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    h->loop = loop;
    h->health = health;
    h->arg = arg;
    h->m = m;
    h->d = http_daemon(h, addr_port, e);
    if (h->d == NULL) {
        free(h);
        return NULL;
    }
    fd = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
    port = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    if (fd == NULL || port == NULL) {
        MHD_stop_daemon(h->d);
        free(h);
        err_set(e, ERR_IO, "metrics endpoint: libmicrohttpd has no epoll");
        return NULL;
    }
    h->port = port->port;
    ev_io_init(&h->io, http_on_io, fd->epoll_fd, EV_READ);
    ev_io_start(loop, &h->io);
    ev_init(&h->tm, http_on_timer);
    http_arm_timer(h);
    return h;
}

int
ctl_http_port(const struct ctl_http *h)
{
    return h->port;
}

void
ctl_http_stop(struct ctl_http *h)
{
    if (h == NULL)
        return;
    ev_io_stop(h->loop, &h->io);
    ev_timer_stop(h->loop, &h->tm);
    MHD_stop_daemon(h->d);
    free(h);
}
