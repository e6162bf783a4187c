/* dk_smoke.c - a small driver of the dk_ client for
 * tests/integration/docker/test_dk_client.sh, against the real daemon.
 *
 *   dk_smoke [--docker URL] version
 *   dk_smoke [--docker URL] req METHOD PATH [--json TEXT] [--tar FILE]
 *            [--query KEY VALUE]... [--filters JSON] [--field NAME]
 *   dk_smoke [--docker URL] events [--query KEY VALUE]... [--filters JSON]
 *            --count N
 *   dk_smoke [--docker URL] run CONTAINER
 *   dk_smoke [--docker URL] bench N IN_FLIGHT PATH
 *
 * req prints the body (or one top-level field) on stdout and "status N" on
 * stderr; an error prints "error: <kind>: <message>" and exits 1. events
 * prints "<Type> <Action> <Actor.ID>" per event and stops after N. run
 * registers a wait (condition=next-exit), starts the container once the
 * wait is registered, follows its logs (demultiplexed) and prints
 * "out: ..." / "err: ..." lines and "exit: N". bench sends N GETs keeping
 * IN_FLIGHT outstanding and prints requests per second (hack/bench use).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dk.h"

#define SMOKE_MAX_TAR (64u * 1024 * 1024)

struct smoke {
    struct ev_loop *loop;
    struct dk *dk;
    int rc;      /* exit status once finished */
    int pending; /* requests still expected to finish */
    long want, seen;
    const char *id;
    struct dk_logs_demux demux;
    struct buf out, err; /* demultiplexed logs */
    long exit_code;
    const char *bench_path;
    long started, failed;
};

static void
smoke_fail(struct smoke *s, const struct err *e)
{
    fprintf(stderr, "error: %s: %s\n", err_code_name(e->code), e->msg);
    s->rc = 1;
}

static void
smoke_on_watchdog(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
    fprintf(stderr, "error: dk_smoke: no result within 60 s\n");
    exit(1);
}

static void
smoke_run(struct smoke *s)
{
    while (s->pending > 0)
        ev_run(s->loop, EVRUN_ONCE);
}

/* --query/--filters options into a path. Returns the next argv index. */
static int
smoke_path(int argc, char **argv, int i, struct buf *path, struct err *e)
{
    while (i < argc) {
        if (strcmp(argv[i], "--query") == 0 && i + 2 < argc) {
            if (dk_query_add(path, argv[i + 1], argv[i + 2], e) == -1)
                return -1;
            i += 3;
        } else if (strcmp(argv[i], "--filters") == 0 && i + 1 < argc) {
            cJSON *f = cJSON_Parse(argv[i + 1]);
            int rc;

            if (f == NULL)
                return err_set(e, ERR_SYNTAX, "--filters: not JSON");
            rc = dk_query_add_json(path, "filters", f, e);
            cJSON_Delete(f);
            if (rc == -1)
                return -1;
            i += 2;
        } else {
            break;
        }
    }
    return i;
}

static void
smoke_print_field(const cJSON *json, const char *field)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, field);
    char *text;

    if (cJSON_IsString(v)) {
        printf("%s\n", v->valuestring);
        return;
    }
    text = v != NULL ? cJSON_PrintUnformatted(v) : NULL;
    printf("%s\n", text != NULL ? text : "");
    cJSON_free(text);
}

static int
smoke_read_file(const char *name, struct buf *b, struct err *e)
{
    FILE *f = fopen(name, "rb");
    char tmp[65536];
    size_t n;

    if (f == NULL)
        return err_sys(e, "%s", name);
    while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0) {
        if (buf_append(b, tmp, n, e) == -1) {
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    return 0;
}

static int
cmd_req(struct smoke *s, int argc, char **argv)
{
    struct dk_request_opts o = { .method = argv[0] };
    struct dk_sync_result res;
    struct buf path, body;
    const char *field = NULL;
    struct err e = { 0 };
    int i, rc = -1;

    buf_init(&path, 8192);
    buf_init(&body, SMOKE_MAX_TAR);
    if (buf_puts(&path, argv[1], &e) == -1)
        goto out;
    for (i = 2; i < argc;) {
        int next = smoke_path(argc, argv, i, &path, &e);

        if (next == -1)
            goto out;
        if (next > i) {
            i = next;
        } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            if (buf_puts(&body, argv[i + 1], &e) == -1)
                goto out;
            o.content_type = "application/json";
            i += 2;
        } else if (strcmp(argv[i], "--tar") == 0 && i + 1 < argc) {
            if (smoke_read_file(argv[i + 1], &body, &e) == -1)
                goto out;
            o.content_type = "application/x-tar";
            i += 2;
        } else if (strcmp(argv[i], "--field") == 0 && i + 1 < argc) {
            field = argv[i + 1];
            i += 2;
        } else {
            err_set(&e, ERR_INVALID, "req: unknown option %s", argv[i]);
            goto out;
        }
    }
    if (o.content_type != NULL) {
        o.body = body.data != NULL ? body.data : "";
        o.body_len = body.len;
    }
    o.path = path.data;
    rc = dk_sync_request(s->dk, &o, &res, &e);
    fprintf(stderr, "status %ld\n", res.status);
    if (rc == 0 && field != NULL)
        smoke_print_field(res.json, field);
    else if (rc == 0 && res.len > 0)
        printf("%s%s", res.body, res.body[res.len - 1] == '\n' ? "" : "\n");
    dk_sync_cleanup(&res);
out:
    buf_cleanup(&path);
    buf_cleanup(&body);
    if (rc == -1)
        smoke_fail(s, &e);
    return s->rc;
}

static void
on_event(struct dk_req *req, const char *line, size_t len, void *arg)
{
    struct smoke *s = arg;
    cJSON *ev = cJSON_ParseWithLength(line, len);
    const cJSON *actor = cJSON_GetObjectItemCaseSensitive(ev, "Actor");

    printf("%s %s %s\n",
           cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "Type")),
           cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "Action")),
           cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(actor, "ID")));
    fflush(stdout);
    cJSON_Delete(ev);
    if (++s->seen == s->want) {
        dk_cancel(req); /* no done callback will come */
        s->pending--;
    }
}

static void
on_events_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct smoke *s = arg;
    struct err e = { 0 };

    (void)req;
    s->pending--;
    if (r->err != NULL) {
        smoke_fail(s, r->err);
    } else if (s->seen < s->want) {
        err_set(&e, ERR_INVALID, "events stream ended after %ld of %ld",
                s->seen, s->want);
        smoke_fail(s, &e);
    }
}

static int
cmd_events(struct smoke *s, int argc, char **argv)
{
    struct buf path;
    struct err e = { 0 };
    int i;

    buf_init(&path, 8192);
    i = buf_puts(&path, "/events", &e) == 0
            ? smoke_path(argc, argv, 0, &path, &e)
            : -1;
    if (i >= 0 && i + 1 < argc && strcmp(argv[i], "--count") == 0)
        s->want = strtol(argv[i + 1], NULL, 10);
    else if (i >= 0)
        i = err_set(&e, ERR_INVALID, "events: --count N is required");
    if (i >= 0 && dk_stream(s->dk, path.data, DK_STREAM_LINES, on_event,
                            on_events_done, s, &e) == NULL)
        i = -1;
    buf_cleanup(&path);
    if (i < 0) {
        smoke_fail(s, &e);
        return s->rc;
    }
    s->pending = 1;
    smoke_run(s);
    return s->rc;
}

static void
on_log_piece(int stream, const char *data, size_t len, void *arg)
{
    struct smoke *s = arg;
    struct err e = { 0 };

    if (buf_append(stream == 2 ? &s->err : &s->out, data, len, &e) == -1)
        smoke_fail(s, &e);
}

static void
on_log_data(struct dk_req *req, const char *data, size_t len, void *arg)
{
    struct smoke *s = arg;
    struct err e = { 0 };

    if (dk_logs_demux_feed(&s->demux, data, len, on_log_piece, s, &e) == -1) {
        smoke_fail(s, &e);
        dk_cancel(req);
        s->pending--;
    }
}

static void
on_logs_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct smoke *s = arg;
    struct err e = { 0 };

    (void)req;
    s->pending--;
    if (r->err != NULL)
        smoke_fail(s, r->err);
    else if (dk_logs_demux_end(&s->demux, &e) == -1)
        smoke_fail(s, &e);
}

static void
on_start_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct smoke *s = arg;
    char path[256];
    struct err e = { 0 };

    (void)req;
    s->pending--;
    if (r->err != NULL) {
        smoke_fail(s, r->err);
        return;
    }
    snprintf(path, sizeof(path),
             "/containers/%s/logs?stdout=1&stderr=1&follow=1", s->id);
    if (dk_stream(s->dk, path, DK_STREAM_RAW, on_log_data, on_logs_done, s,
                  &e) == NULL)
        smoke_fail(s, &e);
    else
        s->pending++;
}

/* The wait is registered with the daemon: only now start, so the exit
 * cannot be missed. Runs inside libcurl: the start is queued by dk. */
static void
on_wait_headers(struct dk_req *req, long status, void *arg)
{
    struct smoke *s = arg;
    struct dk_request_opts o = { .method = "POST" };
    char path[256];
    struct err e = { 0 };

    (void)req;
    if (status != 200)
        return; /* the done callback reports the error */
    snprintf(path, sizeof(path), "/containers/%s/start", s->id);
    o.path = path;
    if (dk_request(s->dk, &o, on_start_done, s, &e) == NULL)
        smoke_fail(s, &e);
    else
        s->pending++;
}

static void
on_wait_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct smoke *s = arg;
    const cJSON *code;

    (void)req;
    s->pending--;
    if (r->err != NULL) {
        smoke_fail(s, r->err);
        return;
    }
    code = cJSON_GetObjectItemCaseSensitive(r->json, "StatusCode");
    s->exit_code = cJSON_IsNumber(code) ? (long)code->valuedouble : -1;
}

static void
print_lines(const char *prefix, const struct buf *b)
{
    const char *p = b->data != NULL ? b->data : "";

    while (*p != '\0') {
        size_t n = strcspn(p, "\n");

        printf("%s: %.*s\n", prefix, (int)n, p);
        p += n + (p[n] == '\n');
    }
}

static int
cmd_run(struct smoke *s, const char *id)
{
    struct dk_request_opts o = {
        .method = "POST",
        .timeout_ms = DK_NO_TIMEOUT,
        .on_headers = on_wait_headers,
    };
    char path[256];
    struct err e = { 0 };

    s->id = id;
    s->exit_code = -1;
    dk_logs_demux_init(&s->demux);
    buf_init(&s->out, 1u << 20);
    buf_init(&s->err, 1u << 20);
    snprintf(path, sizeof(path), "/containers/%s/wait?condition=next-exit", id);
    o.path = path;
    if (dk_request(s->dk, &o, on_wait_done, s, &e) == NULL) {
        smoke_fail(s, &e);
    } else {
        s->pending = 1;
        smoke_run(s);
        print_lines("out", &s->out);
        print_lines("err", &s->err);
        printf("exit: %ld\n", s->exit_code);
    }
    buf_cleanup(&s->out);
    buf_cleanup(&s->err);
    return s->rc;
}

static void bench_next(struct smoke *s);

static void
on_bench_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct smoke *s = arg;

    (void)req;
    s->pending--;
    s->seen++;
    if (r->err != NULL && s->failed++ == 0)
        smoke_fail(s, r->err);
    bench_next(s);
}

static void
bench_next(struct smoke *s)
{
    struct err e = { 0 };

    if (s->started >= s->want)
        return;
    if (dk_get(s->dk, s->bench_path, on_bench_done, s, &e) == NULL) {
        smoke_fail(s, &e);
        s->started = s->want;
        return;
    }
    s->started++;
    s->pending++;
}

static int
cmd_bench(struct smoke *s, long n, long conc, const char *path)
{
    struct dk_stats st;
    double t0, dt;
    long i;

    if (n <= 0 || conc <= 0) {
        fprintf(stderr, "bench: N and IN_FLIGHT must be positive\n");
        return 2;
    }
    s->want = n;
    s->bench_path = path;
    ev_now_update(s->loop);
    t0 = ev_now(s->loop);
    for (i = 0; i < conc; i++)
        bench_next(s);
    smoke_run(s);
    ev_now_update(s->loop);
    dt = ev_now(s->loop) - t0;
    dk_stats(s->dk, &st);
    printf("%ld requests, %ld in flight: %.3f s, %.0f req/s, %.2f ms each; "
           "ok %" PRIu64 ", failed %ld\n",
           s->seen, conc, dt, dt > 0 ? (double)s->seen / dt : 0.,
           s->seen > 0 ? dt * 1000. / (double)s->seen : 0., st.ok, s->failed);
    return s->rc;
}

int
main(int argc, char **argv)
{
    struct smoke s = { .loop = ev_loop_new(EVFLAG_AUTO) };
    const char *url = NULL;
    struct err e = { 0 };
    ev_timer watchdog;
    int i = 1, rc = 2;

    if (argc > 2 && strcmp(argv[1], "--docker") == 0) {
        url = argv[2];
        i = 3;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: dk_smoke [--docker URL] "
                        "version|req|events|run ...\n");
        return 2;
    }
    ev_timer_init(&watchdog, smoke_on_watchdog, 60., 0.);
    ev_timer_start(s.loop, &watchdog);
    s.dk = dk_new(s.loop, url, &e);
    if (s.dk == NULL || dk_sync_negotiate(s.dk, &e) == -1) {
        smoke_fail(&s, &e);
        rc = 1;
    } else if (strcmp(argv[i], "version") == 0) {
        printf("%s\n", dk_api_version(s.dk));
        rc = 0;
    } else if (strcmp(argv[i], "req") == 0 && argc - i >= 3) {
        rc = cmd_req(&s, argc - i - 1, argv + i + 1);
    } else if (strcmp(argv[i], "events") == 0) {
        rc = cmd_events(&s, argc - i - 1, argv + i + 1);
    } else if (strcmp(argv[i], "bench") == 0 && argc - i == 4) {
        rc = cmd_bench(&s, strtol(argv[i + 1], NULL, 10),
                       strtol(argv[i + 2], NULL, 10), argv[i + 3]);
    } else if (strcmp(argv[i], "run") == 0 && argc - i == 2) {
        rc = cmd_run(&s, argv[i + 1]);
    } else {
        fprintf(stderr, "dk_smoke: unknown command or missing arguments\n");
    }
    dk_free(s.dk);
    ev_timer_stop(s.loop, &watchdog);
    ev_loop_destroy(s.loop);
    return rc;
}
