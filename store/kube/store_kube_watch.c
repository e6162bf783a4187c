/* store_kube_watch.c - the watch of the AgentInvocations, driven from the
 * caller's loop without ever blocking on the stream (docs/store-kube.md
 * "Watch").
 *
 * The one fd the caller waits on is an epoll fd that stays the same for
 * the store's lifetime: the socket of a curl multi handle, a timerfd for
 * curl's timeouts and a timerfd for restarting after a failure, as the
 * etcd store's watch. The stream is a GET ?watch=1 from the
 * resourceVersion of a list, with bookmarks, so a restart resumes where
 * the last event or bookmark left off and nothing is missed. 410 Gone
 * (the server compacted past that version) lists again from a fresh
 * version and reports RESYNC, as does a list that restarts after a
 * failure. Never polls: the server ends each stream after
 * STORE_KUBE_WATCH_S seconds and it is resumed at once.
 *
 * Reported are the changes the controller acts on: a name added or
 * deleted, a new generation (the spec) or a deletion requested
 * (deletionTimestamp set). Status-only updates, the controller's own
 * writes included, are not. */
#include "store_kube_int.h"

#include "buf.h"
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <curl/curl.h>

#define WATCH_BACKOFF_MIN_MS 100
#define WATCH_BACKOFF_MAX_MS 5000
#define WATCH_LINE_MAX       (8 * 1024 * 1024)

static size_t
on_stream(char *p, size_t size, size_t nmemb, void *arg)
{
    struct store_kube_watch *w = arg;

    if (buf_append(&w->pending, p, size * nmemb, NULL) == -1)
        return 0; /* an event over the cap: end the stream, relist */
    return size * nmemb;
}

static void
stop_stream(struct store_kube_watch *w)
{
    if (w->easy != NULL) {
        curl_multi_remove_handle(w->multi, w->easy);
        curl_easy_cleanup(w->easy);
        w->easy = NULL;
    }
    curl_slist_free_all(w->headers);
    w->headers = NULL;
    buf_reset(&w->pending);
}

static int
start_stream(struct store_kube *s, struct err *e)
{
    struct store_kube_watch *w = s->w;
    char url[2048];

    stop_stream(w);
    if (snprintf(url, sizeof(url),
                 "%s%s/agentinvocations?watch=1&allowWatchBookmarks=true"
                 "&resourceVersion=%s&timeoutSeconds=%d",
                 s->cfg.server, STORE_KUBE_GROUP_PATH, w->rv,
                 STORE_KUBE_WATCH_S) >= (int)sizeof(url))
        return err_set(e, ERR_LIMIT, "API server URL too long");
    if ((w->easy = curl_easy_init()) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (store__kube_secure(&s->cfg, w->easy, &w->headers, e) == -1) {
        stop_stream(w);
        return -1;
    }
    w->headers = curl_slist_append(w->headers, "Accept: application/json");
    curl_easy_setopt(w->easy, CURLOPT_URL, url);
    curl_easy_setopt(w->easy, CURLOPT_HTTPHEADER, w->headers);
    curl_easy_setopt(w->easy, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(w->easy, CURLOPT_WRITEDATA, w);
    curl_easy_setopt(w->easy, CURLOPT_CONNECTTIMEOUT_MS, (long)STORE_KUBE_CONNECT_MS);
    curl_easy_setopt(w->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(w->easy, CURLOPT_PROTOCOLS_STR, "https");
    curl_easy_setopt(w->easy, CURLOPT_FAILONERROR, 1L);
    /* a silent server that vanished is found by TCP keepalive */
    curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPIDLE, 10L);
    curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPINTVL, 5L);
    if (curl_multi_add_handle(w->multi, w->easy) != CURLM_OK) {
        stop_stream(w);
        return err_set(e, ERR_NOMEM, "cannot start the API server watch");
    }
    return 0;
}

/* The generation of name as last reported; 0 when unknown. */
static struct store_kube_seen *
seen_find(struct store_kube_watch *w, const char *name)
{
    for (size_t i = 0; i < w->nseen; i++)
        if (strcmp(w->seen[i].name, name) == 0)
            return &w->seen[i];
    return NULL;
}

/* Remember what obj's name was seen as; true when the controller must
 * hear of it (new, new generation, deletion requested). */
static bool
seen_update(struct store_kube_watch *w, const cJSON *obj, bool deleted)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const char *name = store__kube_str(obj, "metadata", "name");
    const cJSON *gen = cJSON_GetObjectItemCaseSensitive(meta, "generation");
    bool deleting = cJSON_GetObjectItemCaseSensitive(meta, "deletionTimestamp") != NULL;
    double g = cJSON_IsNumber(gen) ? gen->valuedouble : 0;
    struct store_kube_seen *sn, *v;

    if (name == NULL || strlen(name) > STORE_NAME_MAX)
        return false;
    sn = seen_find(w, name);
    if (deleted) {
        if (sn != NULL)
            *sn = w->seen[--w->nseen];
        return true;
    }
    if (sn != NULL && sn->generation == g && sn->deleting == deleting)
        return false;
    if (sn == NULL) {
        if (w->nseen == w->cap) {
            v = realloc(w->seen, (w->cap ? w->cap * 2 : 64) * sizeof(*v));
            if (v == NULL)
                return true; /* report it; it is heard of again later */
            w->seen = v;
            w->cap = w->cap ? w->cap * 2 : 64;
        }
        sn = &w->seen[w->nseen++];
        snprintf(sn->name, sizeof(sn->name), "%s", name);
    }
    sn->generation = g;
    sn->deleting = deleting;
    return true;
}

/* List every object: remember each one and the list's resourceVersion,
 * from which the stream starts. */
static int
relist(struct store_kube *s, struct err *e)
{
    struct store_kube_watch *w = s->w;
    char path[256];
    const char *rv;
    const cJSON *it;
    cJSON *ans;

    if (store__kube_path(path, sizeof(path), NULL, NULL, e) == -1 ||
        store__kube_request(s, "GET", path, NULL, NULL, &ans, NULL, e) == -1)
        return -1;
    rv = store__kube_str(ans, "metadata", "resourceVersion");
    if (rv == NULL || strlen(rv) >= sizeof(w->rv)) {
        cJSON_Delete(ans);
        return err_set(e, ERR_SYNTAX, "the API server's list has no resourceVersion");
    }
    snprintf(w->rv, sizeof(w->rv), "%s", rv);
    w->nseen = 0;
    store__kube_cache_relist_begin(&s->cache);
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ans, "items"))
    {
        seen_update(w, it, false);
        (void)store__kube_cache_take(&s->cache, it); /* a miss reads the server */
    }
    store__kube_cache_relist_end(&s->cache);
    cJSON_Delete(ans);
    w->relists++;
    return 0;
}

/* Try again from a later read: 100 ms doubling to 5 s. */
static void
back_off(struct store_kube_watch *w)
{
    long ms;

    w->fails++;
    ms = WATCH_BACKOFF_MIN_MS << (w->fails < 7 ? w->fails - 1 : 6);
    store__timer_arm(w->retry, ms < WATCH_BACKOFF_MAX_MS ? ms : WATCH_BACKOFF_MAX_MS);
}

/* Watch again: from the last resourceVersion, or (need_list, or a list
 * still owed) from a fresh list, which the caller hears of as RESYNC. */
static void
restart(struct store_kube *s, bool need_list)
{
    struct store_kube_watch *w = s->w;

    stop_stream(w);
    w->need_list = w->need_list || need_list;
    if ((!w->need_list || relist(s, NULL) == 0) && start_stream(s, NULL) == 0) {
        w->resync = w->resync || w->need_list;
        w->need_list = false;
        return;
    }
    back_off(w);
}

void
store__kube_watch_free(struct store_kube *s)
{
    struct store_kube_watch *w = s->w;

    if (w == NULL)
        return;
    stop_stream(w);
    buf_cleanup(&w->pending);
    if (w->multi != NULL)
        curl_multi_cleanup(w->multi);
    if (w->fds.ep != -1)
        close(w->fds.ep);
    if (w->fds.curl_timer != -1)
        close(w->fds.curl_timer);
    if (w->retry != -1)
        close(w->retry);
    free(w->seen);
    free(w);
    s->w = NULL;
    store__kube_cache_cleanup(&s->cache);
}

int
store__kube_watch_fd(struct store *st, struct err *e)
{
    struct store_kube *s = (struct store_kube *)st;
    struct store_kube_watch *w;
    struct epoll_event ev = { .events = EPOLLIN };

    if (s->w != NULL)
        return s->w->fds.ep;
    if ((w = calloc(1, sizeof(*w))) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    s->w = w;
    buf_init(&w->pending, WATCH_LINE_MAX);
    w->fds.ep = epoll_create1(EPOLL_CLOEXEC);
    w->fds.curl_timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    w->retry = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    w->multi = curl_multi_init();
    if (w->fds.ep == -1 || w->fds.curl_timer == -1 || w->retry == -1 || w->multi == NULL) {
        err_sys(e, "cannot set up the API server watch");
        store__kube_watch_free(s);
        return -1;
    }
    ev.data.fd = w->fds.curl_timer;
    epoll_ctl(w->fds.ep, EPOLL_CTL_ADD, w->fds.curl_timer, &ev);
    ev.data.fd = w->retry;
    epoll_ctl(w->fds.ep, EPOLL_CTL_ADD, w->retry, &ev);
    curl_multi_setopt(w->multi, CURLMOPT_SOCKETFUNCTION, store__multi_on_socket);
    curl_multi_setopt(w->multi, CURLMOPT_SOCKETDATA, &w->fds);
    curl_multi_setopt(w->multi, CURLMOPT_TIMERFUNCTION, store__multi_on_timer);
    curl_multi_setopt(w->multi, CURLMOPT_TIMERDATA, &w->fds);
    /* the caller may have listed before: a RESYNC has it list again, so
     * nothing between its list and this one is missed */
    restart(s, true);
    w->resync = true;
    return w->fds.ep;
}

/* Let curl do what the ready fds allow; *ended when the stream ended,
 * *how with curl's result (an HTTP error such as 410: CURLE_HTTP_RETURNED_ERROR). */
static void
drive(struct store_kube *s, bool *ended, int *how, bool *retry_due)
{
    struct store_kube_watch *w = s->w;
    void *call_easy[STORE_KUBE_CALLS_MAX];
    int running, call_result[STORE_KUBE_CALLS_MAX];
    size_t calls = 0;
    CURLMsg *m;

    *retry_due = store__multi_drive(w->multi, &w->fds, w->retry) || *retry_due;
    while ((m = curl_multi_info_read(w->multi, &running)) != NULL) {
        if (m->msg != CURLMSG_DONE)
            continue;
        if (m->easy_handle == w->easy) {
            *ended = true;
            *how = (int)m->data.result;
        } else if (calls < STORE_KUBE_CALLS_MAX) {
            /* store_kube_async.c's (at most that many out), answered
             * after this loop: an answer may send the next request */
            call_easy[calls] = m->easy_handle;
            call_result[calls++] = (int)m->data.result;
        }
    }
    for (size_t i = 0; i < calls; i++)
        (void)store__kube_async_done(s, call_easy[i], call_result[i]);
}

/* One event line: the resourceVersion to resume from, the change (if the
 * controller must hear of it) into out. -1: 410 Gone, list again. */
static int
take_event(struct store_kube *s, const cJSON *ev, struct store_change *out,
           size_t *n)
{
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "type"));
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(ev, "object");
    const char *rv = store__kube_str(obj, "metadata", "resourceVersion");
    const char *name = store__kube_str(obj, "metadata", "name");
    struct store_kube_watch *w = s->w;
    bool deleted;

    if (type == NULL)
        return 0;
    if (strcmp(type, "ERROR") == 0)
        return -1; /* 410 Expired, or any other: list again */
    if (rv != NULL && strlen(rv) < sizeof(w->rv))
        snprintf(w->rv, sizeof(w->rv), "%s", rv);
    w->fails = 0;
    if (strcmp(type, "BOOKMARK") == 0 || name == NULL)
        return 0;
    /* a deletion requested is a spec gone for the controller: it removes
     * the Docker objects, then the finalizer (store_kube_docs.c) */
    deleted = strcmp(type, "DELETED") == 0 || store__kube_deleting(obj);
    /* the cache first: the controller reads it when it hears of this */
    if (strcmp(type, "DELETED") == 0)
        store__kube_cache_drop(&s->cache, obj);
    else
        (void)store__kube_cache_take(&s->cache, obj);
    if (seen_update(w, obj, deleted)) {
        out[*n].kind = deleted ? STORE_CHANGE_DELETE : STORE_CHANGE_PUT;
        snprintf(out[*n].name, sizeof(out[*n].name), "%s", name);
        (*n)++;
    }
    return 0;
}

/* The complete lines of the stream's buffer; -1 when it must relist. */
static int
take_lines(struct store_kube *s, struct store_change *out, size_t max,
           size_t *n, bool *over)
{
    struct store_kube_watch *w = s->w;
    size_t used = 0;
    int rc = 0;

    while (used < w->pending.len) {
        char *start = w->pending.data + used;
        char *nl = memchr(start, '\n', w->pending.len - used);
        cJSON *ev;

        if (nl == NULL)
            break;
        if (*n == max) {
            *over = true; /* the rest is read again by the relist */
            rc = -1;
            break;
        }
        ev = cJSON_ParseWithLength(start, (size_t)(nl - start));
        used = (size_t)(nl - w->pending.data) + 1;
        rc = ev != NULL ? take_event(s, ev, out, n) : -1;
        cJSON_Delete(ev);
        if (rc == -1)
            break;
    }
    if (used == 0)
        return rc; /* nothing taken (the buffer may not exist yet: NULL) */
    memmove(w->pending.data, w->pending.data + used, w->pending.len - used);
    w->pending.len -= used;
    return rc;
}

int
store__kube_watch_read(struct store *st, struct store_change *out, size_t max,
                       size_t *n, struct err *e)
{
    struct store_kube *s = (struct store_kube *)st;
    struct store_kube_watch *w;
    bool over = false, ended = false, retry_due = false;
    int how = 0;

    *n = 0;
    if (max < 2)
        return err_set(e, ERR_INVALID, "room for at least 2 changes needed");
    if (s->w == NULL && store__kube_watch_fd(st, e) == -1)
        return -1;
    w = s->w;
    drive(s, &ended, &how, &retry_due);
    /* keep a slot for RESYNC */
    if (take_lines(s, out, max - 1, n, &over) == -1)
        restart(s, true);
    else if (ended && how == CURLE_OK)
        restart(s, false); /* the server's timeout: resume at once */
    else if (ended) {
        /* refused (410 Gone on a version compacted away, 403) or a
         * break: later, from a list when the server refused */
        stop_stream(w);
        w->need_list = w->need_list || how == CURLE_HTTP_RETURNED_ERROR;
        back_off(w);
    } else if (retry_due && w->easy == NULL)
        restart(s, false);
    if (over || w->resync) {
        out[*n].kind = STORE_CHANGE_RESYNC;
        out[*n].name[0] = '\0';
        (*n)++;
        w->resync = false;
    }
    return 0;
}
