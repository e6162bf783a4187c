/* store_etcd_http.c - one request to etcd's JSON gateway with libcurl:
 * POST a JSON body, read a capped answer, parse it. Endpoints are tried in
 * turn starting with the one that answered last; only "could not reach
 * it" moves on to the next (an answer, even an error, is etcd's word).
 * Each attempt has a short timeout so a dead etcd never holds the
 * caller's loop for long. */
#include "store_etcd_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

size_t
store__etcd_on_body(char *p, size_t size, size_t nmemb, void *arg)
{
    struct buf *b = arg;

    if (buf_append(b, p, size * nmemb, NULL) == -1)
        return 0; /* over the cap: curl stops with a write error */
    return size * nmemb;
}

/* Why an endpoint could not be reached, in a user's words. */
void
store__etcd_reach_error(void *c, int rc, const char *errbuf, char *out,
                        size_t size)
{
    long os = 0;

    curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &os);
    if (rc == CURLE_OPERATION_TIMEDOUT)
        snprintf(out, size, "no answer within %d ms", STORE_ETCD_TIMEOUT_MS);
    else if (rc == CURLE_COULDNT_CONNECT && os != 0) {
        snprintf(out, size, "%s", strerror((int)os));
        out[0] = (char)tolower((unsigned char)out[0]);
    } else
        snprintf(out, size, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
}

/* Could the request not have reached etcd (so another endpoint may)? */
bool
store__etcd_unreachable(int rc)
{
    return rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
           rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_SEND_ERROR ||
           rc == CURLE_RECV_ERROR || rc == CURLE_GOT_NOTHING;
}

static CURLcode
post_once(struct store_etcd *s, const char *url, const char *body,
          struct buf *out, long *status, char *errbuf)
{
    CURL *c = s->curl;
    struct curl_slist *headers = NULL;
    CURLcode rc;

    buf_reset(out);
    errbuf[0] = '\0';
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, store__etcd_on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)STORE_ETCD_TIMEOUT_MS);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)STORE_ETCD_CONNECT_MS);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    if (store__etcd_secure(s, c, &headers) == -1)
        return CURLE_OUT_OF_MEMORY;
    rc = curl_easy_perform(c);
    curl_slist_free_all(headers);
    *status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    return rc;
}

/* An answer: parse it, turn {"error": ...} or a non-200 into ERR_REMOTE. */
int
store__etcd_take_answer(const char *ep, long status, const struct buf *b,
                        cJSON **out, struct err *e)
{
    cJSON *j = cJSON_ParseWithLength(b->data ? b->data : "", b->len);
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(j, "message");
    const cJSON *er = cJSON_GetObjectItemCaseSensitive(j, "error");

    if (j != NULL && status == 200 && er == NULL) {
        *out = j;
        return 0;
    }
    if (cJSON_IsString(msg))
        err_set(e, ERR_REMOTE, "etcd %s: %s", ep, msg->valuestring);
    else if (cJSON_IsString(er))
        err_set(e, ERR_REMOTE, "etcd %s: %s", ep, er->valuestring);
    else
        err_set(e, ERR_REMOTE, "etcd %s: HTTP %ld with no etcd answer", ep,
                status);
    cJSON_Delete(j);
    return -1;
}

double
store__etcd_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "/v3/kv/range" -> "kv_range": the gateway's own fixed vocabulary. */
void
store__etcd_observe(struct store_etcd *s, const char *path, double started,
                    int rc, bool blocking)
{
    char op[48];

    if (s->base.observe == NULL)
        return;
    snprintf(op, sizeof(op), "%s", strncmp(path, "/v3/", 4) == 0 ? path + 4 : path);
    for (char *p = op; *p; p++)
        if (*p == '/')
            *p = '_';
    s->base.observe(s->base.observe_arg, op, store__etcd_now() - started,
                    rc == 0, blocking);
}

static int etcd_call(struct store_etcd *s, const char *path, const cJSON *body,
                     cJSON **out, struct err *e);

int
store__etcd_call(struct store_etcd *s, const char *path, const cJSON *body,
                 cJSON **out, struct err *e)
{
    double started = store__etcd_now();
    bool auth = s->sec.user != NULL && !s->authenticating;
    int rc = 0;

    if (auth && s->token[0] == '\0')
        rc = store__etcd_authenticate(s, e);
    if (rc == 0)
        rc = etcd_call(s, path, body, out, e);
    /* a token etcd no longer takes: renew it once and send again */
    if (rc == -1 && auth && store__etcd_token_refused(e) &&
        store__etcd_authenticate(s, e) == 0)
        rc = etcd_call(s, path, body, out, e);
    store__etcd_observe(s, path, started, rc, true);
    return rc;
}

static int
etcd_call(struct store_etcd *s, const char *path, const cJSON *body,
          cJSON **out, struct err *e)
{
    char *text = cJSON_PrintUnformatted(body), url[1024], why[256];
    char errbuf[CURL_ERROR_SIZE];
    struct buf b;
    long status;
    int rc = -1;

    if (text == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    buf_init(&b, STORE_ETCD_BODY_MAX);
    for (size_t i = 0; i < s->neps; i++) {
        size_t k = (s->cur + i) % s->neps;
        CURLcode cc;

        snprintf(url, sizeof(url), "%s%s", s->eps[k], path);
        cc = post_once(s, url, text, &b, &status, errbuf);
        if (cc == CURLE_OK) {
            s->cur = k;
            rc = store__etcd_take_answer(s->eps[k], status, &b, out, e);
            goto out;
        }
        if (cc == CURLE_WRITE_ERROR) {
            err_set(e, ERR_LIMIT, "etcd %s: answer over %u MiB", s->eps[k],
                    STORE_ETCD_BODY_MAX >> 20);
            goto out;
        }
        store__etcd_reach_error(s->curl, cc, errbuf, why, sizeof(why));
        err_set(e, store__etcd_unreachable(cc) ? ERR_UNAVAIL : ERR_REMOTE,
                "etcd %s: %s (tried %zu endpoint%s)", s->eps[k], why, i + 1,
                i ? "s" : "");
        if (!store__etcd_unreachable(cc))
            goto out;
    }
out:
    buf_cleanup(&b);
    cJSON_free(text);
    return rc;
}

int
store__etcd_no_body(const struct err *built, struct err *e)
{
    if (built->code == ERR_OK)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (e != NULL)
        *e = *built;
    return -1;
}

int
store__etcd_call_built(struct store_etcd *s, const char *path, cJSON *req,
                       const struct err *built, cJSON **ans, struct err *e)
{
    if (req == NULL)
        return store__etcd_no_body(built, e);
    return store__etcd_call_take(s, path, req, ans, e);
}

int
store__etcd_call_take(struct store_etcd *s, const char *path, cJSON *req,
                      cJSON **ans, struct err *e)
{
    int rc;

    if (req == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    rc = store__etcd_call(s, path, req, ans, e);
    cJSON_Delete(req);
    return rc;
}
