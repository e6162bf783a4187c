/* store_etcd_async.c - a request to etcd's JSON gateway that never blocks
 * the caller's loop: it runs on the curl multi handle of the watch
 * (store_etcd_watch.c), whose fd the loop already waits on, and its answer
 * comes back through a callback from store_watch_read(). The same
 * endpoint order, timeouts, answer cap and observer as the blocking
 * client (store_etcd_http.c), which agentctl keeps using.
 *
 * Used for what the controller sends on a timer whatever else happens:
 * the lease keep-alive. A keep-alive stuck behind a slow etcd would
 * otherwise stall every other watcher of the loop (Docker events, drift,
 * deadlines) for up to the request timeout per endpoint. */
#include "store_etcd_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

struct store_etcd_req {
    struct store_etcd_req *next;
    CURL *easy;
    struct curl_slist *headers;
    char *body;
    struct buf ans;
    char errbuf[CURL_ERROR_SIZE];
    char path[64];
    size_t tried; /* endpoints tried, the current one included */
    size_t ep;    /* the endpoint of this try */
    double started;
    store__etcd_done_fn *done;
    void *arg;
};

static void
req_free(struct store_etcd *s, struct store_etcd_req *r)
{
    CURLM *multi = store__etcd_watch_multi(s);

    for (struct store_etcd_req **p = &s->reqs; *p != NULL; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    if (r->easy != NULL) {
        if (multi != NULL)
            curl_multi_remove_handle(multi, r->easy);
        curl_easy_cleanup(r->easy);
    }
    curl_slist_free_all(r->headers);
    buf_cleanup(&r->ans);
    free(r->body);
    free(r);
}

/* Send r to endpoint r->ep. */
static int
send_to(struct store_etcd *s, struct store_etcd_req *r, struct err *e)
{
    char url[1024];

    if (r->easy != NULL) {
        curl_multi_remove_handle(store__etcd_watch_multi(s), r->easy);
        curl_easy_cleanup(r->easy);
    }
    curl_slist_free_all(r->headers);
    r->headers = NULL;
    buf_reset(&r->ans);
    r->errbuf[0] = '\0';
    r->easy = curl_easy_init();
    if (r->easy == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    snprintf(url, sizeof(url), "%s%s", s->eps[r->ep], r->path);
    curl_easy_setopt(r->easy, CURLOPT_URL, url);
    curl_easy_setopt(r->easy, CURLOPT_POSTFIELDS, r->body);
    curl_easy_setopt(r->easy, CURLOPT_WRITEFUNCTION, store__etcd_on_body);
    curl_easy_setopt(r->easy, CURLOPT_WRITEDATA, &r->ans);
    curl_easy_setopt(r->easy, CURLOPT_ERRORBUFFER, r->errbuf);
    curl_easy_setopt(r->easy, CURLOPT_TIMEOUT_MS, (long)STORE_ETCD_TIMEOUT_MS);
    curl_easy_setopt(r->easy, CURLOPT_CONNECTTIMEOUT_MS,
                     (long)STORE_ETCD_CONNECT_MS);
    curl_easy_setopt(r->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(r->easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(r->easy, CURLOPT_PRIVATE, r);
    if (store__etcd_secure(s, r->easy, &r->headers) == -1)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (curl_multi_add_handle(store__etcd_watch_multi(s), r->easy) != CURLM_OK)
        return err_set(e, ERR_NOMEM, "cannot start an etcd request");
    return 0;
}

int
store__etcd_call_async(struct store_etcd *s, const char *path,
                       const cJSON *body, store__etcd_done_fn *done, void *arg,
                       struct err *e)
{
    struct store_etcd_req *r;

    if (store__etcd_watch_multi(s) == NULL)
        return err_set(e, ERR_INVALID, "no etcd watch to send on");
    /* no token yet: get one the blocking way, once (auth is rare) */
    if (s->sec.user != NULL && s->token[0] == '\0' &&
        store__etcd_authenticate(s, e) == -1)
        return -1;
    r = calloc(1, sizeof(*r));
    if (r == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    buf_init(&r->ans, STORE_ETCD_BODY_MAX);
    snprintf(r->path, sizeof(r->path), "%s", path);
    r->body = cJSON_PrintUnformatted(body);
    r->done = done;
    r->arg = arg;
    r->ep = s->cur;
    r->tried = 1;
    r->started = store__etcd_now();
    r->next = s->reqs;
    s->reqs = r;
    if (r->body == NULL) {
        req_free(s, r);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    if (send_to(s, r, e) == -1) {
        req_free(s, r);
        return -1;
    }
    return 0;
}

bool
store__etcd_async_finished(struct store_etcd *s, void *easy, int result)
{
    struct store_etcd_req *r = NULL;
    struct err e = { 0 };
    char why[256];
    cJSON *ans = NULL;
    long status = 0;
    int rc = -1;

    for (struct store_etcd_req *i = s->reqs; i != NULL; i = i->next)
        if (i->easy == easy)
            r = i;
    if (r == NULL)
        return false;
    if (result == CURLE_OK) {
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
        s->cur = r->ep;
        rc = store__etcd_take_answer(s->eps[r->ep], status, &r->ans, &ans, &e);
        /* a token etcd no longer takes: renewed for the next request */
        if (rc == -1 && s->sec.user != NULL && store__etcd_token_refused(&e))
            (void)store__etcd_authenticate(s, NULL);
    } else if (result == CURLE_WRITE_ERROR) {
        err_set(&e, ERR_LIMIT, "etcd %s: answer over %u MiB", s->eps[r->ep],
                STORE_ETCD_BODY_MAX >> 20);
    } else {
        store__etcd_reach_error(r->easy, result, r->errbuf, why, sizeof(why));
        err_set(&e, store__etcd_unreachable(result) ? ERR_UNAVAIL : ERR_REMOTE,
                "etcd %s: %s (tried %zu endpoint%s)", s->eps[r->ep], why,
                r->tried, r->tried > 1 ? "s" : "");
        /* the next endpoint, as the blocking client does */
        if (store__etcd_unreachable(result) && r->tried < s->neps) {
            r->ep = (r->ep + 1) % s->neps;
            r->tried++;
            if (send_to(s, r, NULL) == 0)
                return true;
        }
    }
    store__etcd_observe(s, r->path, r->started, rc, false);
    r->done(r->arg, rc, ans, &e);
    cJSON_Delete(ans);
    req_free(s, r);
    return true;
}

void
store__etcd_async_free(struct store_etcd *s)
{
    while (s->reqs != NULL)
        req_free(s, s->reqs);
}
