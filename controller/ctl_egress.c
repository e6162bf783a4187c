/* ctl_egress.c - the attempt's egress audit (docs/gateway.md "Audit
 * line", issue 16): when the box is removed, before its gateway and proxy
 * go, their logs are read once and the lines about the agent's traffic are
 * kept beside its output (store_egress_path, `agentctl logs --egress`):
 * the credential gateway's request lines (stdout, "msg":"request") and the
 * egress proxy's tunnel lines (stderr, "msg":"tunnel"), each with a
 * "source" key in front. An EgressAudit event gives the counts (what
 * `agentctl describe` shows among the events), and a request the budget
 * refused raises VendorBudgetSpent.
 *
 * Read at cleanup rather than followed: the lines are the containers' own
 * logs (bounded by their LogConfig) until then, so nothing is lost, and a
 * crash before the file is written reads them again. A log Docker cannot
 * give is said in a Warning event and cleanup goes on: the audit never
 * holds the key's removal back. The credential, if the agent put it into
 * a target or a path, is redacted before anything is written. */
#include "ctl_egress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "ctl_status.h"
#include "ctl_usage.h"
#include "log.h"

#define EGRESS_TAIL_LINES 20000               /* per container */
#define EGRESS_MAX_BODY   (16u * 1024 * 1024) /* one container's logs */
#define EGRESS_LINE_MAX   4096                /* longer is not an audit line */

/* The containers read, in order, and what is kept of each. */
static const struct {
    int role;
    int stream; /* 1 stdout, 2 stderr */
    const char *msg;
    const char *source;
} sources[] = {
    { RC_ROLE_GATEWAY, 1, "\"msg\":\"request\"", "gateway" },
    { RC_ROLE_PROXY, 2, "\"msg\":\"tunnel\"", "proxy" },
};
#define N_SOURCES (sizeof(sources) / sizeof(sources[0]))

struct ctl_egress {
    size_t next;     /* the source to read next */
    struct buf out;  /* the file's lines so far */
    struct buf line; /* the line being gathered from the demuxed stream */
    unsigned requests, forwarded, refused, spent; /* gateway lines */
    unsigned tunnels, denied;                     /* proxy lines */
    struct ctl_usage usage; /* status.usage (ctl_usage.c) */
};

void
ctl_egress_free(struct ctl_inv *inv)
{
    if (inv->egress == NULL)
        return;
    buf_cleanup(&inv->egress->out);
    buf_cleanup(&inv->egress->line);
    free(inv->egress);
    inv->egress = NULL;
}

/* "status":N of a line, or -1. */
static int
line_status(const char *line)
{
    const char *s = strstr(line, "\"status\":");

    return s != NULL ? atoi(s + strlen("\"status\":")) : -1;
}

static void
count(struct ctl_egress *g, size_t src, const char *line)
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
    ctl_usage_add_line(&g->usage, line);
    if (strstr(line, "\"reason\":\"forwarded\"") != NULL)
        g->forwarded++;
    else
        g->refused++;
    g->spent += strstr(line, "budget spent\"") != NULL;
}

/* Every occurrence of the credential in line becomes <redacted>. */
static void
append_redacted(struct ctl_inv *inv, struct buf *out, const char *line)
{
    const char *key = inv->credential;
    size_t klen = key != NULL ? strlen(key) : 0;
    const char *at;

    while (klen > 0 && (at = strstr(line, key)) != NULL) {
        buf_append(out, line, (size_t)(at - line), NULL);
        buf_puts(out, "<redacted>", NULL);
        line = at + klen;
    }
    buf_puts(out, line, NULL);
}

/* One whole line of source src: kept when it is an audit line. */
static void
take_line(struct ctl_inv *inv, size_t src, const char *line)
{
    struct ctl_egress *g = inv->egress;
    char head[64];

    if (line[0] != '{' || strstr(line, sources[src].msg) == NULL)
        return;
    count(g, src, line);
    snprintf(head, sizeof(head), "{\"source\":\"%s\",", sources[src].source);
    buf_puts(&g->out, head, NULL);
    append_redacted(inv, &g->out, line + 1);
    buf_puts(&g->out, "\n", NULL);
}

struct demux_ctx {
    struct ctl_inv *inv;
    size_t src;
};

static void
on_frame(int stream, const char *data, size_t len, void *arg)
{
    struct demux_ctx *d = arg;
    struct ctl_egress *g = d->inv->egress;

    if (stream != sources[d->src].stream)
        return;
    for (size_t i = 0; i < len; i++) {
        if (data[i] != '\n') {
            if (g->line.len < EGRESS_LINE_MAX)
                buf_append(&g->line, data + i, 1, NULL);
            continue;
        }
        if (g->line.len > 0 && g->line.len < EGRESS_LINE_MAX)
            take_line(d->inv, d->src, g->line.data);
        buf_reset(&g->line);
    }
}

/* Replace the egress file with out, atomically (temp file, rename). */
static int
write_file(struct ctl_inv *inv, struct err *e)
{
    char path[4096], tmp[4200];
    const struct buf *out = &inv->egress->out;
    int fd, rc = 0;

    if (store_egress_path(inv->ctl->store, inv->name, path, sizeof(path), e) ==
        -1)
        return -1;
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd == -1)
        return err_set(e, ERR_IO, "%s: %s", tmp, strerror(errno));
    if (out->len > 0 && write(fd, out->data, out->len) != (ssize_t)out->len)
        rc = err_set(e, ERR_IO, "%s: %s", tmp, strerror(errno));
    if (close(fd) == -1 && rc == 0)
        rc = err_set(e, ERR_IO, "%s: %s", tmp, strerror(errno));
    if (rc == 0 && rename(tmp, path) == -1)
        rc = err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
    if (rc == -1)
        unlink(tmp);
    return rc;
}

static enum ctl_step
finish(struct ctl_inv *inv)
{
    struct ctl_egress *g = inv->egress;
    struct err e;

    if (write_file(inv, &e) == -1)
        ctl_event(inv, true, "EgressAuditUnwritten",
                  "the egress audit could not be kept: %s", e.msg);
    if (g->requests > 0 || g->tunnels > 0)
        ctl_event(inv, false, "EgressAudit",
                  "gateway: %u requests (%u forwarded, %u refused or "
                  "failed); proxy: %u CONNECTs (%u not tunnelled); agentctl "
                  "logs --egress %s",
                  g->requests, g->forwarded, g->refused, g->tunnels, g->denied,
                  inv->name);
    if (g->spent > 0)
        ctl_event(inv, true, "VendorBudgetSpent",
                  "%u requests were refused by the gateway (429): the "
                  "attempt's vendorBudget was spent",
                  g->spent);
    ctl_usage_finish(inv, &g->usage);
    ctl_egress_free(inv);
    ctl_record_set_done(&inv->rec, CTL_PROG_EGRESS_READ);
    return CTL_STEP_DONE;
}

static enum ctl_step read_next(struct ctl_inv *inv);

static enum ctl_step
on_logs(struct ctl_inv *inv, struct dk_response *r)
{
    struct demux_ctx d = { inv, inv->egress->next };
    struct dk_logs_demux dm;

    /* the daemon gone: the logs are still there, and nothing can be
     * removed before it is back either */
    if (r->err != NULL && r->err->code == ERR_UNAVAIL)
        return ctl_step_failed(inv, r->err);
    if (r->err != NULL && r->err->code != ERR_NOTFOUND)
        ctl_event(inv, true, "EgressLogUnread",
                  "the %s's log could not be read for the egress audit: %s",
                  rc_role_name((enum rc_role)sources[d.src].role), r->err->msg);
    if (r->err == NULL) {
        dk_logs_demux_init(&dm);
        (void)dk_logs_demux_feed(&dm, r->body, r->len, on_frame, &d, NULL);
        buf_reset(&inv->egress->line); /* an unfinished last line */
    }
    inv->egress->next++;
    return read_next(inv);
}

static enum ctl_step
read_next(struct ctl_inv *inv)
{
    struct ctl_egress *g = inv->egress;
    struct err e;

    for (; g->next < N_SOURCES; g->next++) {
        const char *id = ctl_record_role_id(&inv->rec, sources[g->next].role);

        if (id != NULL)
            return ctl_step_request(
                inv, on_logs,
                dk_container_logs_tail(inv->ctl->dk, id, EGRESS_TAIL_LINES,
                                       EGRESS_MAX_BODY, ctl_step_answered, inv,
                                       &e),
                &e);
    }
    return finish(inv);
}

enum ctl_step
ctl_egress_step(struct ctl_inv *inv)
{
    if (inv->egress == NULL) {
        inv->egress = calloc(1, sizeof(*inv->egress));
        if (inv->egress == NULL) {
            struct err e;

            err_set(&e, ERR_NOMEM, "out of memory");
            return ctl_step_failed(inv, &e);
        }
        buf_init(&inv->egress->out, 2 * EGRESS_MAX_BODY);
        buf_init(&inv->egress->line, EGRESS_LINE_MAX + 1);
    }
    return read_next(inv);
}
