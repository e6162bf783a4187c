/* out_egress.c - the attempt's egress audit (docs/gateway.md "Audit
 * line", issue 16, issue 35 item 5): the lines about the agent's traffic,
 * kept beside its output while the attempt runs (store_egress_path,
 * `agentctl logs --egress`): the credential gateway's request lines
 * (stdout, "msg":"request") and the egress proxy's tunnel lines (stderr,
 * "msg":"tunnel"), each with a "source" key in front. An EgressAudit
 * event gives the counts (what `agentctl describe` shows among the
 * events), and a request the budget refused raises VendorBudgetSpent.
 *
 * Followed, not read once: from the start of each container on, its log
 * is followed, and whenever the follow shows new bytes (EGRESS_WAKE_S
 * later, coalesced) the log is read from the position to its end
 * (timestamps=1, in the log's order) and every audit line is appended
 * through a bounded queue (EGRESS_QUEUE_MAX, written at the end of each
 * chunk Docker sends), so a flood cannot push lines out of the log's
 * rotation before they are read. The follow's own lines are not taken:
 * read slower than written, Docker's follow sends lines out of order and
 * leaves some out across a rotation (measured: 38,760 of 100,000 with a
 * reader at 1.5 MB/s), while a read that ends at the log's end is in
 * order. A read that finds its first line after the position (the lines
 * in between rotated out first) says so (EgressAuditGap). The file is capped
 * (EGRESS_FILE_MAX per attempt); a line over the cap, over CTL_AUDIT_LINE_MAX,
 * not strict UTF-8 JSON, or that the queue or the disk could not take is
 * counted in status.egress.dropped, never lost unsaid.
 *
 * Restart: after each chunk the record gets the counts, the file's length
 * and, per container, the position read up to (inv_auditline.h: the
 * timestamp of the last line and how many lines had it). A restarted
 * controller cuts the file back to the recorded length (what was
 * appended after the last status write is read again) and follows again
 * with since= the position, passing over the lines already taken: no
 * line twice, none skipped that Docker still holds.
 *
 * Cleanup (PLAN_READ_EGRESS, before the gateway and proxy go): the
 * follows are cancelled and each log is read one last time from its
 * position to its end (EGRESS_DRAIN_MS at most), then the file is
 * complete and progress egressRead recorded. A log Docker cannot give is
 * a Warning event and cleanup goes on: the audit never holds the key's
 * removal back. The credential, if the agent put it into a target or a
 * path, is redacted before anything is written; a credential that cannot
 * be read makes every line dropped (counted), never written in clear. */
#include "out_egress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "inv_auditline.h"
#include "inv_egressjob.h"
#include "inv_queue.h"
#include "ctl_record.h"
#include "try_result.h"
#include "out_secret.h"
#include "inv_status.h"
#include "ctl_testhooks.h"
#include "obs_usage.h"
#include "log.h"

#define EGRESS_FILE_MAX   (16u * 1024 * 1024) /* egress.jsonl per attempt */
#define EGRESS_QUEUE_MAX  (256u * 1024)       /* lines not yet written */
#define EGRESS_DRAIN_MS   60000L              /* cleanup's last read, each */
#define EGRESS_TAIL_LINES 20000u /* the read before (test hook live-audit) */
#define EGRESS_RECORD_S   1.0    /* a status write at most this often */
#define EGRESS_WAKE_S     0.2    /* data seen: read after this long */
#define EGRESS_RETRY_S    5.0    /* a read failed: again after this long */

/* The containers read, in order, and what is kept of each. */
static const struct {
    int role;
    enum ctl_progress started;
    int stream; /* 1 stdout, 2 stderr */
    const char *msg;
    const char *source;
} sources[] = {
    { RC_ROLE_GATEWAY, CTL_PROG_GATEWAY_STARTED, 1, "\"msg\":\"request\"",
      "gateway" },
    { RC_ROLE_PROXY, CTL_PROG_PROXY_STARTED, 2, "\"msg\":\"tunnel\"", "proxy" },
};
#define N_SOURCES (sizeof(sources) / sizeof(sources[0]))
_Static_assert(N_SOURCES == CTL_EGRESS_SOURCES, "inv_egressjob.h");

static void on_wake(struct ev_loop *loop, ev_timer *w, int revents);

/* "status":N of a line, or -1. */
static int
line_status(const char *line)
{
    const char *s = strstr(line, "\"status\":");

    return s != NULL ? atoi(s + strlen("\"status\":")) : -1;
}

/* The one place an audit line is counted: every whole, strict line of
 * source src, once, whether the file still takes it or not. */
static void
count(struct inv_egress *g, size_t src, const char *line)
{
    int st = line_status(line);

    if (sources[src].role == RC_ROLE_PROXY) {
        g->tunnels++;
        g->denied += st != 200;
        return;
    }
    /* the boundary probe's and canary's own check of the gateway */
    if (strstr(line, "\"path\":\"/agentctl-probe/") != NULL)
        return;
    g->requests++;
    obs_usage_add_line(&g->usage, line);
    if (strstr(line, "\"reason\":\"forwarded\"") != NULL)
        g->forwarded++;
    else
        g->refused++;
    g->spent += strstr(line, "budget spent\"") != NULL;
}

/* --- the record (status.egress) ----------------------------------------- */

static unsigned long long
num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsNumber(v) && v->valuedouble > 0
               ? (unsigned long long)v->valuedouble
               : 0;
}

/* The counters: status.egress.counts.<name>. */
#define COUNTERS(X)                                                            \
    X(requests) X(forwarded) X(refused) X(spent) X(tunnels) X(denied)

/* status.egress: lines and dropped (stable), the file's length, the
 * counts and each container's position (internal, for a restart). Made
 * after each chunk, once the queue is written: it says exactly what the
 * file holds. */
static void
record(struct ctl_inv *inv)
{
    const struct inv_egress *g = inv->cleanup.egress;
    cJSON *o = cJSON_CreateObject(), *c;

    cJSON_AddNumberToObject(o, "lines", (double)g->lines);
    cJSON_AddNumberToObject(o, "dropped", (double)g->dropped);
    cJSON_AddNumberToObject(o, "bytes", (double)g->bytes);
    if (g->gaps > 0)
        cJSON_AddNumberToObject(o, "gaps", g->gaps);
    c = cJSON_AddObjectToObject(o, "counts");
#define ADD(n) cJSON_AddNumberToObject(c, #n, g->n);
    COUNTERS(ADD)
#undef ADD
    /* status.usage goes in the same snapshot: after a restart count()
     * sees again the lines read after it, and must not add them twice */
    cJSON_AddNumberToObject(c, "tokenSpent", (double)g->usage.token_spent);
    out_usage_record(inv, &g->usage);
    for (size_t i = 0; i < N_SOURCES; i++) {
        const struct inv_egress_src *s = &g->src[i];
        cJSON *p;

        if (s->id[0] == '\0')
            continue;
        p = cJSON_AddObjectToObject(o, sources[i].source);
        cJSON_AddStringToObject(p, "id", s->id);
        cJSON_AddStringToObject(p, "at", s->pos.at);
        cJSON_AddNumberToObject(p, "seen", (double)s->pos.seen);
    }
    if (cJSON_GetObjectItemCaseSensitive(o, "counts") == NULL) {
        cJSON_Delete(o); /* out of memory: the last record stands */
        return;
    }
    ctl_record_set_egress(&inv->rec, o);
}

/* What the record says was read before a restart. */
static void
restore(struct inv_egress *g, const cJSON *o)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "counts");

    g->lines = num(o, "lines");
    g->dropped = num(o, "dropped");
    g->bytes = num(o, "bytes");
    g->gaps = (unsigned)num(o, "gaps");
#define GET(n) g->n = (unsigned)num(c, #n);
    COUNTERS(GET)
#undef GET
    g->usage.token_spent = num(c, "tokenSpent");
    for (size_t i = 0; i < N_SOURCES; i++) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, sources[i].source);
        const char *id =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "id"));
        const char *at =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "at"));

        if (id == NULL || at == NULL ||
            (at[0] != '\0' && !inv_audit_ts_valid(at, strlen(at))))
            continue; /* read from its first line */
        snprintf(g->src[i].id, sizeof(g->src[i].id), "%s", id);
        snprintf(g->src[i].pos.at, sizeof(g->src[i].pos.at), "%s", at);
        g->src[i].pos.seen = num(p, "seen");
    }
}

/* The file: new for an attempt, or (a restart) cut back to the length
 * recorded with the positions, so what comes again is written once. */
static void
open_file(struct ctl_inv *inv, bool resume)
{
    struct inv_egress *g = inv->cleanup.egress;
    char path[4096];
    struct stat st;
    struct err e;

    if (store_egress_path(inv->ctl->store, inv->name, path, sizeof(path), &e) ==
        -1)
        return;
    g->fd = open(path,
                 O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW |
                     (resume ? 0 : O_TRUNC),
                 0644);
    if (g->fd == -1 || !resume || fstat(g->fd, &st) == -1)
        return;
    if ((unsigned long long)st.st_size > g->bytes &&
        ftruncate(g->fd, (off_t)g->bytes) == -1) {
        close(g->fd);
        g->fd = -1;
    } else if ((unsigned long long)st.st_size < g->bytes) {
        inv_event(inv, true, "EgressAuditShort",
                  "the egress audit holds %lld bytes, %llu were recorded "
                  "(the host lost what it had not written to disk)",
                  (long long)st.st_size, g->bytes);
        g->bytes = (unsigned long long)st.st_size;
    }
}

/* The credential for the redaction; without it nothing is written. */
static void
load_key(struct ctl_inv *inv)
{
    struct err e;

    if (out_inv_secret(inv, &e) != NULL || e.code == ERR_NOTFOUND) {
        /* no captured spec: status.credentialMode still says whether
         * the attempt had a key */
        if (inv->captured != NULL || inv->rec.credential_mode == NULL)
            return;
        err_set(&e, ERR_INVALID, "the captured spec is unreadable");
    }
    inv->cleanup.egress->no_key = true;
    inv_event(inv, true, "EgressAuditUnredactable",
              "the attempt's credential cannot be read (%s): egress audit "
              "lines are counted as dropped, never written unredacted",
              e.msg);
}

/* The audit of the attempt, made (and the record's state restored) when
 * first needed. NULL only when out of memory. */
static struct inv_egress *
egress_open(struct ctl_inv *inv, struct err *e)
{
    const cJSON *rec = ctl_record_egress(&inv->rec);
    struct inv_egress *g;

    if (inv->cleanup.egress != NULL)
        return inv->cleanup.egress;
    g = calloc(1, sizeof(*g));
    if (g == NULL) {
        err_set(e, ERR_NOMEM, "out of memory for the egress audit");
        return NULL;
    }
    inv->cleanup.egress = g;
    g->fd = -1;
    buf_init(&g->q, EGRESS_QUEUE_MAX);
    for (size_t i = 0; i < N_SOURCES; i++) {
        g->src[i].inv = inv;
        g->src[i].idx = i;
        ev_init(&g->src[i].wake, on_wake);
        g->src[i].wake.repeat = EGRESS_WAKE_S;
    }
    if (rec != NULL) {
        restore(g, rec);
        obs_usage_from_json(&g->usage, inv->rec.usage);
    }
    open_file(inv, rec != NULL);
    load_key(inv);
    return g;
}

/* --- the file ------------------------------------------------------------ */

/* Write the queue out; a line the disk does not take is counted. */
static void
flush(struct ctl_inv *inv)
{
    struct inv_egress *g = inv->cleanup.egress;
    size_t off = 0;
    ssize_t n = 0;

    if (g->q.len == 0)
        return;
    while (g->fd >= 0 && off < g->q.len &&
           ((n = write(g->fd, g->q.data + off, g->q.len - off)) > 0 ||
            (n == -1 && errno == EINTR)))
        off += n > 0 ? (size_t)n : 0;
    if (g->fd >= 0 && off == g->q.len) {
        g->bytes += g->q.len;
        g->lines += g->q_lines;
    } else {
        int err = g->fd >= 0 ? errno : 0;

        if (g->fd >= 0 && off > 0 && /* no half line left behind */
            ftruncate(g->fd, (off_t)g->bytes) == -1)
            log_kv(LOG_WARN, "egress audit: a half line stays", "invocation",
                   inv->name, NULL);
        if (!g->write_warned)
            inv_event(inv, true, "EgressAuditUnwritten",
                      "the egress audit could not be written (%s): its "
                      "lines are counted as dropped",
                      err != 0 ? strerror(err) : "not open");
        g->write_warned = true;
        g->dropped += g->q_lines;
    }
    buf_reset(&g->q);
    g->q_lines = 0;
}

/* An audit line to the queue, as the file will hold it. */
static void
keep(struct ctl_inv *inv, size_t src, const char *line)
{
    struct inv_egress *g = inv->cleanup.egress;
    struct err e;
    size_t was;

    if (g->no_key) {
        g->dropped++;
        return;
    }
    if (EGRESS_QUEUE_MAX - g->q.len < CTL_AUDIT_LINE_MAX + 64)
        flush(inv);
    was = g->q.len;
    if (inv_audit_render(&g->q, sources[src].source, line, inv->credential,
                         &e) == -1) {
        g->dropped++;
        return;
    }
    if (g->bytes + g->q.len > EGRESS_FILE_MAX) {
        g->q.len = was; /* over the attempt's cap */
        g->q.data[was] = '\0';
        g->dropped++;
        return;
    }
    g->q_lines++;
}

/* A read from the position starts with the last line taken (since= is
 * inclusive); a later one means Docker rotated the lines in between out
 * before they were read: not in the file and not countable, said. */
static void
check_gap(struct inv_egress_src *s, const char *ts)
{
    struct inv_egress *g = s->inv->cleanup.egress;

    s->first = false;
    if (s->pos.at[0] == '\0' || s->pos.seen == 0 || strcmp(ts, s->pos.at) <= 0)
        return;
    if (g->gaps++ == 0)
        inv_event(s->inv, true, "EgressAuditGap",
                  "the %s's log lost lines between %s and %s to its rotation "
                  "before they were read: they are not in the egress audit "
                  "and cannot be counted",
                  rc_role_name((enum rc_role)sources[s->idx].role), s->pos.at,
                  ts);
}

/* One whole line of a source's log, Docker's timestamp in front. */
static void
on_line(const char *line, size_t len, bool over, void *arg)
{
    struct inv_egress_src *s = arg;
    struct inv_egress *g = s->inv->cleanup.egress;
    const char *msg = sources[s->idx].msg;
    char ts[CTL_AUDIT_TS_LEN + 1];
    enum inv_audit_verdict v;
    size_t took = inv_audit_ts_take(line, len, ts);

    if (took == 0) {
        g->dropped += strstr(line, msg) != NULL; /* cannot be placed */
        return;
    }
    if (s->first)
        check_gap(s, ts);
    if (!inv_audit_pos_take(&s->pos, ts))
        return; /* taken before a restart */
    line += took;
    len -= took;
    v = over ? (strstr(line, msg) ? CTL_AUDIT_BAD : CTL_AUDIT_OTHER)
             : inv_audit_judge(line, len, msg);
    if (v == CTL_AUDIT_BAD)
        g->dropped++;
    if (v != CTL_AUDIT_KEEP)
        return;
    count(g, s->idx, line);
    keep(s->inv, s->idx, line);
}

static void
on_frame(int stream, const char *data, size_t len, void *arg)
{
    struct inv_egress_src *s = arg;

    if (stream == sources[s->idx].stream)
        inv_audit_framer_feed(&s->fr, data, len, on_line, s);
}

/* A chunk of a log: its lines taken, written, and recorded. */
static void
feed(struct inv_egress_src *s, const char *data, size_t len)
{
    struct err e;

    if (dk_logs_demux_feed(&s->dm, data, len, on_frame, s, &e) == -1)
        log_kv(LOG_WARN, "egress audit: unreadable log stream", "invocation",
               s->inv->name, "error", e.msg, NULL);
    flush(s->inv);
    record(s->inv);
    inv_kick(s->inv, EGRESS_RECORD_S); /* the pass writes the status */
}

/* --- reads ------------------------------------------------------------- */

/* A read of source s starts: from its position, or (the container is
 * not the one the position is of) from the first line. */
static int
read_query(struct inv_egress_src *s, const char *id, struct dk_logs_query *q,
           char *since, size_t size, struct err *e)
{
    if (strcmp(s->id, id) != 0) {
        memset(&s->pos, 0, sizeof(s->pos));
        snprintf(s->id, sizeof(s->id), "%s", id);
    }
    dk_logs_demux_init(&s->dm);
    inv_audit_framer_init(&s->fr);
    inv_audit_pos_begin(&s->pos);
    s->first = true;
    memset(q, 0, sizeof(*q));
    q->stream = sources[s->idx].stream;
    q->timestamps = true;
    if (ctl_test_disabled("live-audit")) { /* the read before: a tail */
        q->tail = EGRESS_TAIL_LINES;
        return 0;
    }
    if (s->pos.at[0] != '\0') {
        if (inv_audit_since(s->pos.at, since, size, e) == -1)
            return -1;
        q->since = since;
    }
    return 0;
}

static void start_read(struct inv_egress_src *s);

/* A read that failed goes again, later (the daemon may be away). */
static void
retry_later(struct inv_egress_src *s)
{
    struct ev_loop *loop = s->inv->ctl->loop;

    s->wanted = true;
    ev_timer_stop(loop, &s->wake);
    ev_timer_set(&s->wake, EGRESS_RETRY_S, EGRESS_WAKE_S);
    ev_timer_start(loop, &s->wake);
}

static void
on_read_data(struct dk_req *req, const char *data, size_t len, void *arg)
{
    (void)req;
    feed(arg, data, len);
}

static void
on_read_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct inv_egress_src *s = arg;

    (void)req;
    s->read = NULL;
    if (r->err != NULL && r->err->code != ERR_NOTFOUND) {
        log_kv(LOG_WARN, "egress audit: read failed, tried again", "invocation",
               s->inv->name, "source", sources[s->idx].source, "error",
               r->err->msg, NULL);
        retry_later(s);
    } else if (s->wanted) {
        ev_timer_again(s->inv->ctl->loop, &s->wake);
    }
}

static void
on_wake(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct inv_egress_src *s = container_of(w, struct inv_egress_src, wake);

    (void)revents;
    ev_timer_stop(loop, w);
    if (s->read == NULL)
        start_read(s);
}

/* Take what the log holds from the position on: a read that ends at the
 * log's end, in the log's order. (Docker's follow is not that: read
 * slower than written, it sends lines out of order and leaves some out
 * across a rotation - measured, 38,760 of 100,000 - so its bytes only
 * say when to read.) */
static void
start_read(struct inv_egress_src *s)
{
    struct ctl_inv *inv = s->inv;
    const char *id = ctl_record_role_id(&inv->rec, sources[s->idx].role);
    struct dk_logs_query q;
    char since[40];
    struct err e;

    s->wanted = false;
    if (id == NULL)
        return;
    if (read_query(s, id, &q, since, sizeof(since), &e) == 0) {
        q.timeout_ms = EGRESS_DRAIN_MS;
        s->read = dk_container_read_logs(inv->ctl->dk, id, &q, on_read_data,
                                         on_read_done, s, &e);
    }
    if (s->read == NULL) {
        log_kv(LOG_WARN, "egress audit: cannot read", "invocation", inv->name,
               "source", sources[s->idx].source, "error", e.msg, NULL);
        retry_later(s);
    }
}

/* The follow wrote: a read soon (coalesced), or after the one under way. */
static void
on_follow_data(struct dk_req *req, const char *data, size_t len, void *arg)
{
    struct inv_egress_src *s = arg;

    (void)req;
    (void)data;
    (void)len;
    s->wanted = true;
    if (s->read == NULL && !ev_is_active(&s->wake))
        ev_timer_again(s->inv->ctl->loop, &s->wake);
}

static void
on_follow_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct inv_egress_src *s = arg;

    (void)req;
    s->follow = NULL;
    /* the end of the stream: the container stopped; one more read */
    s->ended = r->err == NULL || r->err->code == ERR_NOTFOUND;
    if (r->err != NULL && r->err->code != ERR_NOTFOUND)
        log_kv(LOG_WARN, "egress audit: follow ended, resumed next pass",
               "invocation", s->inv->name, "source", sources[s->idx].source,
               "error", r->err->msg, NULL);
    on_follow_data(NULL, NULL, 0, s);
    inv_kick(s->inv, s->ended ? EGRESS_RECORD_S : 5.0);
}

/* The follows of the containers started so far. */
void
out_egress_follow(struct ctl_inv *inv)
{
    struct inv_egress *g;
    struct err e;

    if (ctl_test_disabled("live-audit") ||
        ctl_record_done(&inv->rec, CTL_PROG_EGRESS_READ))
        return;
    for (size_t i = 0; i < N_SOURCES; i++) {
        const char *id = ctl_record_role_id(&inv->rec, sources[i].role);
        struct dk_logs_query q = { .stream = sources[i].stream,
                                   .follow = true,
                                   .tail = 1 };
        struct inv_egress_src *s;

        if (id == NULL || !ctl_record_done(&inv->rec, sources[i].started) ||
            (g = egress_open(inv, &e)) == NULL)
            continue;
        s = &g->src[i];
        if (s->follow != NULL || (s->ended && strcmp(s->id, id) == 0))
            continue;
        s->ended = false;
        /* (tail=1: what was written before is the read's, below) */
        s->follow = dk_container_read_logs(inv->ctl->dk, id, &q, on_follow_data,
                                           on_follow_done, s, &e);
        if (s->follow == NULL)
            log_kv(LOG_WARN, "egress audit: cannot follow", "invocation",
                   inv->name, "source", sources[i].source, "error", e.msg,
                   NULL);
        else
            on_follow_data(NULL, NULL, 0, s); /* what is there already */
    }
}

/* --- cleanup: the last read, the counts -------------------------------- */

static enum ctl_step drain_next(struct ctl_inv *inv);

static void
on_drain_data(struct dk_req *req, const char *data, size_t len, void *arg)
{
    struct ctl_inv *inv = arg;

    (void)req;
    feed(&inv->cleanup.egress->src[inv->cleanup.egress->next], data, len);
}

static enum ctl_step
on_drained(struct ctl_inv *inv, struct dk_response *r)
{
    struct inv_egress *g = inv->cleanup.egress;
    const struct inv_egress_src *s = &g->src[g->next];

    /* the daemon gone: the logs are still there, and nothing can be
     * removed before it is back either (read again from the position) */
    if (r->err != NULL && r->err->code == ERR_UNAVAIL)
        return try_step_failed(inv, r->err);
    if (r->err != NULL && r->err->code != ERR_NOTFOUND)
        inv_event(inv, true, "EgressLogUnread",
                  "the %s's log could not be read to its end for the "
                  "egress audit (lines after %s are not in it): %s",
                  rc_role_name((enum rc_role)sources[g->next].role),
                  s->pos.at[0] ? s->pos.at : "its start", r->err->msg);
    g->next++;
    return drain_next(inv);
}

static enum ctl_step
finish(struct ctl_inv *inv)
{
    struct inv_egress *g = inv->cleanup.egress;

    flush(inv);
    record(inv);
    if (g->requests > 0 || g->tunnels > 0 || g->lines > 0 || g->dropped > 0)
        inv_event(inv, g->dropped > 0, "EgressAudit",
                  "gateway: %u requests (%u forwarded, %u refused or "
                  "failed); proxy: %u CONNECTs (%u not tunnelled); %llu "
                  "lines kept, %llu dropped; agentctl logs --egress %s",
                  g->requests, g->forwarded, g->refused, g->tunnels, g->denied,
                  g->lines, g->dropped, inv->name);
    if (g->spent > 0)
        inv_event(inv, true, "VendorBudgetSpent",
                  "%u requests were refused by the gateway (429): the "
                  "attempt's vendorBudget was spent",
                  g->spent);
    out_usage_finish(inv, &g->usage);
    inv_egress_free(inv);
    ctl_record_set_done(&inv->rec, CTL_PROG_EGRESS_READ);
    return CTL_STEP_DONE;
}

/* Each log once more, from its position to its end, not followed: what
 * the follow had not delivered yet. Bounded in time (EGRESS_DRAIN_MS). */
static enum ctl_step
drain_next(struct ctl_inv *inv)
{
    struct inv_egress *g = inv->cleanup.egress;

    for (; g->next < N_SOURCES; g->next++) {
        struct inv_egress_src *s = &g->src[g->next];
        const char *id = ctl_record_role_id(&inv->rec, sources[g->next].role);
        struct dk_logs_query q;
        char since[40];
        struct err e;

        if (id == NULL)
            continue;
        dk_cancel(s->follow);
        s->follow = NULL;
        dk_cancel(s->read);
        s->read = NULL;
        ev_timer_stop(inv->ctl->loop, &s->wake);
        if (read_query(s, id, &q, since, sizeof(since), &e) == -1)
            return try_step_failed(inv, &e);
        q.timeout_ms = EGRESS_DRAIN_MS;
        return try_step_request(
            inv, on_drained,
            dk_container_read_logs(inv->ctl->dk, id, &q, on_drain_data,
                                   try_step_answered, inv, &e),
            &e);
    }
    return finish(inv);
}

enum ctl_step
out_egress_step(struct ctl_inv *inv)
{
    struct err e;

    if (egress_open(inv, &e) == NULL)
        return try_step_failed(inv, &e);
    return drain_next(inv);
}
