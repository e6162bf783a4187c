/* store_kube_async.c - a request to the API server that does not block
 * the caller's loop: sent on the watch's curl multi handle (its epoll fd
 * is the one the loop waits on), answered from a later
 * store_watch_read(). A few at a time (STORE_KUBE_CALLS_MAX): the
 * controller's Lease renewal and grant (store_kube_lease.c) and the steps
 * of its claims (store_kube_claim_async.c), which must not stall the
 * loop on a slow API server, as etcd's do not (store_etcd_async.c). */
#include "store_kube_int.h"

#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

struct store_kube_call {
    CURL *easy;
    struct curl_slist *headers;
    char *body; /* the request's (curl does not copy it) */
    struct buf answer;
    store_kube_answer_fn *done;
    void *arg;
    const char *what; /* for the error: "renewing the Lease" */
    struct store_kube_call *next;
};

static size_t
on_body(char *p, size_t size, size_t nmemb, void *arg)
{
    if (buf_append(arg, p, size * nmemb, NULL) == -1)
        return 0;
    return size * nmemb;
}

static void
call_free(struct store_kube_call *k)
{
    if (k == NULL)
        return;
    if (k->easy != NULL)
        curl_easy_cleanup(k->easy);
    curl_slist_free_all(k->headers);
    free(k->body);
    buf_cleanup(&k->answer);
    free(k);
}

static int
call_setup(struct store_kube *s, struct store_kube_call *k, const char *method,
           const char *path, struct err *e)
{
    char url[2048];

    if (snprintf(url, sizeof(url), "%s%s", s->cfg.server, path) >=
        (int)sizeof(url))
        return err_set(e, ERR_LIMIT, "API server path too long: %s", path);
    if (store__kube_secure(&s->cfg, k->easy, &k->headers, e) == -1)
        return -1;
    k->headers = curl_slist_append(k->headers, "Accept: application/json");
    k->headers =
        curl_slist_append(k->headers, "Content-Type: application/json");
    curl_easy_setopt(k->easy, CURLOPT_URL, url);
    curl_easy_setopt(k->easy, CURLOPT_CUSTOMREQUEST, method);
    if (k->body != NULL) /* a GET has none */
        curl_easy_setopt(k->easy, CURLOPT_POSTFIELDS, k->body);
    curl_easy_setopt(k->easy, CURLOPT_HTTPHEADER, k->headers);
    curl_easy_setopt(k->easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(k->easy, CURLOPT_WRITEDATA, &k->answer);
    curl_easy_setopt(k->easy, CURLOPT_TIMEOUT_MS, (long)STORE_KUBE_TIMEOUT_MS);
    curl_easy_setopt(k->easy, CURLOPT_CONNECTTIMEOUT_MS,
                     (long)STORE_KUBE_CONNECT_MS);
    curl_easy_setopt(k->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(k->easy, CURLOPT_PROTOCOLS_STR, "https");
    return 0;
}

static size_t
calls_out(const struct store_kube *s)
{
    size_t n = 0;

    for (const struct store_kube_call *k = s->call; k != NULL; k = k->next)
        n++;
    return n;
}

int
store__kube_send_async(struct store_kube *s, const char *method,
                       const char *path, const cJSON *body, const char *what,
                       store_kube_answer_fn *done, void *arg, struct err *e)
{
    struct store_kube_call *k;

    if (s->w == NULL || calls_out(s) >= STORE_KUBE_CALLS_MAX)
        return err_set(e, ERR_INVALID,
                       "no watch yet, or too many requests out");
    if ((k = calloc(1, sizeof(*k))) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    buf_init(&k->answer, STORE_KUBE_ANSWER_MAX);
    k->done = done;
    k->arg = arg;
    k->what = what;
    k->easy = curl_easy_init();
    k->body = body != NULL ? cJSON_PrintUnformatted(body) : NULL;
    if (k->easy == NULL || (body != NULL && k->body == NULL)) {
        call_free(k);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    if (call_setup(s, k, method, path, e) == -1) {
        call_free(k);
        return -1;
    }
    if (curl_multi_add_handle(s->w->multi, k->easy) != CURLM_OK) {
        call_free(k);
        return err_set(e, ERR_INVALID, "curl cannot take the request");
    }
    k->next = s->call;
    s->call = k;
    return 0;
}

/* Take the call of easy out of the list; NULL when none is. */
static struct store_kube_call *
unlink_call(struct store_kube *s, void *easy)
{
    for (struct store_kube_call **p = &s->call; *p != NULL; p = &(*p)->next) {
        struct store_kube_call *k = *p;

        if (k->easy == easy) {
            *p = k->next;
            return k;
        }
    }
    return NULL;
}

bool
store__kube_async_done(struct store_kube *s, void *easy, int result)
{
    struct store_kube_call *k = unlink_call(s, easy);
    struct err e = { 0 };
    cJSON *ans = NULL;
    long http = 0;
    int rc = -1;

    if (k == NULL)
        return false;
    /* out of the list before done: it may send the next one */
    curl_multi_remove_handle(s->w->multi, k->easy);
    curl_easy_getinfo(k->easy, CURLINFO_RESPONSE_CODE, &http);
    if (result != CURLE_OK)
        err_set(&e, ERR_UNAVAIL, "%s: API server %s: %s", k->what,
                s->cfg.server, curl_easy_strerror((CURLcode)result));
    else if (http < 200 || http > 299)
        store__kube_status_error(http, k->answer.data, k->answer.len, k->what,
                                 &e);
    else if ((ans = cJSON_ParseWithLength(k->answer.data ? k->answer.data : "",
                                          k->answer.len)) == NULL)
        err_set(&e, ERR_SYNTAX, "%s: the API server's answer is not JSON",
                k->what);
    else
        rc = 0;
    k->done(s, k->arg, rc, ans, &e);
    cJSON_Delete(ans);
    call_free(k);
    return true;
}

void
store__kube_async_drop(struct store_kube *s)
{
    struct err closed;

    err_set(&closed, ERR_UNAVAIL, "the store closed");
    s->closing = true; /* each done frees its own, tells nobody */
    while (s->call != NULL) {
        struct store_kube_call *k = s->call;

        s->call = k->next;
        if (s->w != NULL)
            curl_multi_remove_handle(s->w->multi, k->easy);
        k->done(s, k->arg, -1, NULL, &closed);
        call_free(k);
    }
}
