/* store_kube_http.c - one request to the Kubernetes API server with
 * libcurl: TLS from the kubeconfig (CA, client certificate, token), a
 * capped answer, and the API server's Status turned into an error a user
 * can act on ("forbidden: User \"x\" cannot update resource ..."). */
#include "store_kube_int.h"

#include "buf.h"
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

static size_t
on_body(char *p, size_t size, size_t nmemb, void *arg)
{
    if (buf_append(arg, p, size * nmemb, NULL) == -1)
        return 0; /* over the cap: curl stops with a write error */
    return size * nmemb;
}

/* A PEM held in memory as a curl blob (copied by curl). */
static void
set_blob(CURL *c, CURLoption opt, const char *pem)
{
    struct curl_blob b = { .data = (void *)pem,
                           .len = strlen(pem),
                           .flags = CURL_BLOB_COPY };

    curl_easy_setopt(c, opt, &b);
}

int
store__kube_secure(const struct store_kube_config *cfg, void *curl,
                   struct curl_slist **headers, struct err *e)
{
    CURL *c = curl;
    char *token = NULL, *line;
    size_t len;

    if (cfg->ca_file != NULL)
        curl_easy_setopt(c, CURLOPT_CAINFO, cfg->ca_file);
    else if (cfg->ca_pem != NULL)
        set_blob(c, CURLOPT_CAINFO_BLOB, cfg->ca_pem);
    if (cfg->insecure) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (cfg->cert_file != NULL) {
        curl_easy_setopt(c, CURLOPT_SSLCERT, cfg->cert_file);
        curl_easy_setopt(c, CURLOPT_SSLKEY, cfg->key_file);
    } else if (cfg->cert_pem != NULL) {
        set_blob(c, CURLOPT_SSLCERT_BLOB, cfg->cert_pem);
        set_blob(c, CURLOPT_SSLKEY_BLOB, cfg->key_pem);
    }
    /* a token file is read at every request: a pod's token rotates */
    if (cfg->token_file != NULL &&
        store__read_file(cfg->token_file, 64 * 1024, &token, &len, e) == -1) {
        err_prefix(e, "token file %s: ", cfg->token_file);
        return -1;
    }
    if (token != NULL || cfg->token != NULL) {
        const char *t = token ? token : cfg->token;

        line = malloc(strlen(t) + 32);
        if (line == NULL) {
            free(token);
            return err_set(e, ERR_NOMEM, "out of memory");
        }
        sprintf(line, "Authorization: Bearer %.*s", (int)strcspn(t, "\r\n"), t);
        *headers = curl_slist_append(*headers, line);
        free(line);
    }
    free(token);
    return 0;
}

int
store__kube_status_error(long http, const char *body, size_t len,
                         const char *what, struct err *e)
{
    cJSON *j = cJSON_ParseWithLength(body ? body : "", len);
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(j, "message");
    const char *m = cJSON_IsString(msg) ? msg->valuestring : NULL;
    enum err_code code = ERR_REMOTE;
    char text[200];

    if (m == NULL) {
        snprintf(text, sizeof(text), "HTTP %ld without a Status", http);
        m = text;
    }
    if (http == 404)
        code = ERR_NOTFOUND;
    else if (http == 409)
        code = ERR_CONFLICT;
    else if (http == 422 || http == 400)
        code = ERR_INVALID;
    else if (http == 401 || http == 403)
        code = ERR_DENIED;
    if (http == 401)
        err_set(e, code,
                "%s: the API server does not know these credentials "
                "(%s): check the kubeconfig's user",
                what, m);
    else if (http == 403) /* the verb and resource first: msg is bounded */
        err_set(e, code,
                "%s (grant it in the controller's ClusterRole; %s)",
                strstr(m, "forbidden: ") ? strstr(m, "forbidden: ") : m, what);
    else
        err_set(e, code, "%s: %s", what, m);
    cJSON_Delete(j);
    return -1;
}

int
store__kube_request(struct store_kube *s, const char *method, const char *path,
                    const char *body, const char *content_type, cJSON **out,
                    long *http, struct err *e)
{
    CURL *c = s->curl;
    struct curl_slist *headers = NULL;
    char url[2048], errbuf[CURL_ERROR_SIZE] = "", ctype[96], what[160];
    struct buf b;
    long status = 0;
    CURLcode rc;
    int ret = -1;

    if (out != NULL)
        *out = NULL;
    if (snprintf(url, sizeof(url), "%s%s", s->cfg.server, path) >=
        (int)sizeof(url))
        return err_set(e, ERR_LIMIT, "API server path too long: %s", path);
    snprintf(what, sizeof(what), "%s %s", method, path);
    buf_init(&b, STORE_KUBE_ANSWER_MAX);
    curl_easy_reset(c);
    if (store__kube_secure(&s->cfg, c, &headers, e) == -1)
        return -1;
    snprintf(ctype, sizeof(ctype), "Content-Type: %s",
             content_type ? content_type : "application/json");
    headers = curl_slist_append(headers, "Accept: application/json");
    if (body != NULL) {
        headers = curl_slist_append(headers, ctype);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)STORE_KUBE_TIMEOUT_MS);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)STORE_KUBE_CONNECT_MS);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
    rc = curl_easy_perform(c);
    curl_slist_free_all(headers);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    if (http != NULL)
        *http = rc == CURLE_OK ? status : 0;
    if (rc != CURLE_OK)
        err_set(e, ERR_UNAVAIL, "API server %s: %s", s->cfg.server,
                errbuf[0] ? errbuf : curl_easy_strerror(rc));
    else if (status < 200 || status > 299)
        store__kube_status_error(status, b.data, b.len, what, e);
    else if (out != NULL && (*out = cJSON_ParseWithLength(b.data ? b.data : "",
                                                          b.len)) == NULL)
        err_set(e, ERR_SYNTAX, "%s: the API server's answer is not JSON", what);
    else
        ret = 0;
    buf_cleanup(&b);
    return ret;
}
