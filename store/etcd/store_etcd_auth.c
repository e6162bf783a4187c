/* store_etcd_auth.c - TLS and user/password auth for the etcd store.
 *
 * TLS: https:// endpoints are verified against the system CAs or the
 * --etcd-cacert file; --etcd-cert/--etcd-key present a client certificate
 * (etcd --client-cert-auth). Auth: with a user, the store authenticates
 * (POST /v3/auth/authenticate {name, password}) before its first request
 * and sends the token in the Authorization header of every request,
 * the watch included; a token etcd no longer accepts (expired, or etcd
 * restarted) is renewed once and the request sent again. The password is
 * kept in memory only, never logged. */
#include "store_etcd_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "file.h"

static int
dup_opt(char **dst, const char *src, struct err *e)
{
    free(*dst);
    *dst = NULL;
    if (src == NULL || src[0] == '\0')
        return 0;
    if ((*dst = strdup(src)) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    return 0;
}

/* The first line of the password file (a file, so the password is not
 * on a command line where ps shows it). */
static int
read_password(const char *path, char *out, size_t size, struct err *e)
{
    int fd = file_open_regular(path, 0, e);
    FILE *f = fd == -1 ? NULL : fdopen(fd, "r");

    if (f == NULL) {
        if (fd != -1) {
            err_sys(e, "etcd password file %s", path);
            close(fd);
            return -1;
        }
        err_prefix(e, "etcd password file %s: ", path);
        return -1;
    }
    if (fgets(out, (int)size, f) == NULL)
        out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\r\n")] = '\0';
    return 0;
}

/* A TLS file is read by libcurl when a connection is made, with a
 * blocking open: a FIFO there would stall the first request for ever (no
 * timeout covers it), and a missing file would be named only as "error
 * setting certificate file" once an endpoint answers. Each is checked
 * here, at start: there, a regular file. */
static int
check_tls_file(const char *flag, const char *path, struct err *e)
{
    int fd;

    if (path == NULL || path[0] == '\0')
        return 0;
    fd = file_open_regular(path, 0, e);
    if (fd == -1) {
        err_prefix(e, "%s %s: ", flag, path);
        return -1;
    }
    close(fd);
    return 0;
}

int
store_etcd_set_security(struct store *st, const struct store_etcd_security *sec,
                        struct err *e)
{
    struct store_etcd *s;
    char pw[1024] = "";
    const char *password = sec->password;
    int rc;

    if (st == NULL || strcmp(st->backend, "etcd") != 0)
        return err_set(e, ERR_INVALID, "TLS and auth options are for etcd");
    s = (struct store_etcd *)st; /* the store is its first member */
    if ((sec->cert_file == NULL) != (sec->key_file == NULL))
        return err_set(e, ERR_INVALID,
                       "--etcd-cert and --etcd-key go together");
    if ((sec->password != NULL || sec->password_file != NULL) &&
        sec->user == NULL)
        return err_set(e, ERR_INVALID, "an etcd password needs --etcd-user");
    if (check_tls_file("--etcd-cacert", sec->ca_file, e) == -1 ||
        check_tls_file("--etcd-cert", sec->cert_file, e) == -1 ||
        check_tls_file("--etcd-key", sec->key_file, e) == -1)
        return -1;
    if (sec->password_file != NULL) {
        if (read_password(sec->password_file, pw, sizeof(pw), e) == -1)
            return -1;
        password = pw;
    }
    rc = dup_opt(&s->sec.ca_file, sec->ca_file, e) == -1 ||
                 dup_opt(&s->sec.cert_file, sec->cert_file, e) == -1 ||
                 dup_opt(&s->sec.key_file, sec->key_file, e) == -1 ||
                 dup_opt(&s->sec.user, sec->user, e) == -1
             ? -1
             : 0;
    free(s->sec.password);
    s->sec.password = strdup(password ? password : "");
    memset(pw, 0, sizeof(pw));
    if (rc == 0 && s->sec.password == NULL)
        rc = err_set(e, ERR_NOMEM, "out of memory");
    s->token[0] = '\0';
    return rc;
}

void
store__etcd_security_free(struct store_etcd *s)
{
    free(s->sec.ca_file);
    free(s->sec.cert_file);
    free(s->sec.key_file);
    free(s->sec.user);
    if (s->sec.password != NULL)
        memset(s->sec.password, 0, strlen(s->sec.password));
    free(s->sec.password);
}

int
store__etcd_secure(struct store_etcd *s, void *curl, struct curl_slist **headers)
{
    CURL *c = curl;
    char line[sizeof(s->token) + 32];
    struct curl_slist *h;

    if (s->sec.ca_file != NULL)
        curl_easy_setopt(c, CURLOPT_CAINFO, s->sec.ca_file);
    if (s->sec.cert_file != NULL) {
        curl_easy_setopt(c, CURLOPT_SSLCERT, s->sec.cert_file);
        curl_easy_setopt(c, CURLOPT_SSLKEY, s->sec.key_file);
    }
    *headers = NULL;
    if (s->token[0] == '\0')
        return 0;
    snprintf(line, sizeof(line), "Authorization: %s", s->token);
    if ((h = curl_slist_append(NULL, line)) == NULL)
        return -1;
    *headers = h;
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    return 0;
}

int
store__etcd_authenticate(struct store_etcd *s, struct err *e)
{
    cJSON *req = cJSON_CreateObject(), *ans = NULL;
    const cJSON *tok;
    int rc;

    s->token[0] = '\0';
    if (req == NULL || !cJSON_AddStringToObject(req, "name", s->sec.user) ||
        !cJSON_AddStringToObject(req, "password", s->sec.password)) {
        cJSON_Delete(req);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    s->authenticating = true; /* this one call goes without a token */
    rc = store__etcd_call(s, "/v3/auth/authenticate", req, &ans, e);
    s->authenticating = false;
    tok = cJSON_GetObjectItemCaseSensitive(req, "password");
    memset(tok->valuestring, 0, strlen(tok->valuestring));
    cJSON_Delete(req);
    if (rc == -1) {
        err_prefix(e, "etcd auth as %s: ", s->sec.user);
        return -1;
    }
    tok = cJSON_GetObjectItemCaseSensitive(ans, "token");
    if (!cJSON_IsString(tok) || tok->valuestring[0] == '\0' ||
        strlen(tok->valuestring) >= sizeof(s->token)) {
        cJSON_Delete(ans);
        return err_set(e, ERR_REMOTE, "etcd auth as %s: no token in the answer",
                       s->sec.user);
    }
    snprintf(s->token, sizeof(s->token), "%s", tok->valuestring);
    cJSON_Delete(ans);
    return 0;
}

bool
store__etcd_token_refused(const struct err *e)
{
    return e->code == ERR_REMOTE &&
           (strstr(e->msg, "invalid auth token") != NULL ||
            strstr(e->msg, "auth token is expired") != NULL ||
            strstr(e->msg, "user name is empty") != NULL);
}
