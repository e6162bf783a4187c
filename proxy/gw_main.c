/* gw_main.c - agent-gateway: flags, the key, the TLS context, then the
 * daemon shell (px_daemon.c) around the connections of gw_conn.c
 * (docs/gateway.md).
 *
 * agent-gateway --listen ADDR:PORT --upstream HOST:PORT
 *   (--key-file FILE [--auth-header x-api-key|bearer] | --no-credential)
 *   [--organization ID] [--project ID]
 *   --allow 'METHOD /prefix' [--allow ...]
 *   [--ca-file FILE] [--connect-to HOST:PORT=IP:PORT] [--allow-private]
 *   [--max-requests N] [--max-bytes N] [--max-tokens N]
 *   [--header-limit BYTES]
 *   [--body-policy anthropic|openai [--allow-field F] [--allow-tool-type T]
 *    [--allow-beta B]]
 *   [--header-timeout S] [--idle-timeout S] [--connect-timeout S]
 *   [--drain-timeout S] [--max-conns N] [--max-body BYTES]
 */
#include "gw_int.h"

#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http_rule.h"
#include "log.h"
#include "px_flags.h"
#include "px_daemon.h"

static const char usage[] =
    "usage: agent-gateway --listen ADDR:PORT --upstream HOST:PORT\n"
    "       (--key-file FILE [--auth-header x-api-key|bearer] |"
    " --no-credential)\n"
    "       [--organization ID] [--project ID]\n"
    "       --allow 'METHOD /prefix' [--allow ...] [--ca-file FILE]\n"
    "       [--connect-to HOST:PORT=IP:PORT] [--allow-private]\n"
    "       [--max-requests N] [--max-bytes N] [--max-tokens N]\n"
    "       [--max-body BYTES]\n"
    "       [--header-limit BYTES]\n"
    "       [--header-timeout S] [--idle-timeout S] [--connect-timeout S]\n"
    "       [--drain-timeout S] [--max-conns N]\n"
    "       [--body-policy anthropic|openai [--allow-field F]\n"
    "        [--allow-tool-type T] [--allow-beta B]]\n";

/* "HOST:PORT=IP:PORT": the vendor's name and where to dial it instead
 * of a lookup (tests, or a pinned address); TLS still checks HOST. */
static int
gw_parse_connect_to(const char *s, struct gw_config *cfg, struct err *e)
{
    const char *eq = strchr(s, '=');
    struct hostport name;

    if (eq == NULL || hostport_parse(s, (size_t)(eq - s), &name, NULL) == -1)
        return err_set(e, ERR_SYNTAX, "--connect-to %s: want HOST:PORT=IP:PORT",
                       s);
    if (!hostport_equal(&name, &cfg->upstream))
        return err_set(e, ERR_INVALID,
                       "--connect-to %s: names another host than --upstream",
                       s);
    if (px_flags_addr("--connect-to", eq + 1, &cfg->connect_addr, e) == -1)
        return -1;
    cfg->connect_to = true;
    return 0;
}

/* --organization, --project: the operator's OpenAI-Organization and
 * OpenAI-Project, sent in place of the agent's (dropped); checked with
 * the code the controller checks a profile's with (common/http_rule.c),
 * so nothing the config accepted is refused here. */
static int
gw_parse_header_id(const char *flag, const char *s, const char **dst,
                   struct err *e)
{
    const char *why = http_header_id_check(s);

    if (why != NULL)
        return err_set(e, ERR_SYNTAX, "%s %s: %s", flag, s, why);
    *dst = s;
    return 0;
}

static int
gw_parse_auth(const char *s, struct gw_config *cfg, struct err *e)
{
    if (strcmp(s, "x-api-key") == 0)
        cfg->auth = GW_AUTH_API_KEY;
    else if (strcmp(s, "bearer") == 0)
        cfg->auth = GW_AUTH_BEARER;
    else
        return err_set(e, ERR_SYNTAX,
                       "--auth-header %s: want x-api-key or bearer", s);
    return 0;
}

/* Flags whose value is a number: table-driven, one switch less. */
static int
gw_parse_number(int o, const char *arg, struct gw_config *cfg,
                struct gw_budget *b, struct err *e)
{
    double v;
    int rc;

    /* v is set only when the value is good: it is used only then */
    switch (o) {
    case 'R':
        if ((rc = px_flags_count("--max-requests", arg, 0, 1e15, &v, e)) == 0)
            b->max_requests = (uint64_t)v;
        return rc;
    case 'K':
        if ((rc = px_flags_count("--max-tokens", arg, 0, 1e15, &v, e)) == 0)
            b->max_tokens = (uint64_t)v;
        return rc;
    case 'B':
        if ((rc = px_flags_count("--max-bytes", arg, 0, 1e18, &v, e)) == 0)
            b->max_bytes = (uint64_t)v;
        return rc;
    case 'b':
        if ((rc = px_flags_count("--max-body", arg, 0, 1e18, &v, e)) == 0)
            b->max_body = (uint64_t)v;
        return rc;
    case 'H':
        if ((rc = px_flags_count("--header-limit", arg, 256, GW_BUF, &v, e)) ==
            0)
            cfg->header_limit = (size_t)v;
        return rc;
    case 'T':
        return px_flags_num("--header-timeout", arg, 0.01, 3600,
                            &cfg->header_timeout, e);
    case 'I':
        return px_flags_num("--idle-timeout", arg, 0.01, 1e7,
                            &cfg->idle_timeout, e);
    case 'C':
        return px_flags_num("--connect-timeout", arg, 0.01, 3600,
                            &cfg->connect_timeout, e);
    case 'D':
        return px_flags_num("--drain-timeout", arg, 0, 3600,
                            &cfg->drain_timeout, e);
    case 'm':
        if ((rc = px_flags_count("--max-conns", arg, 1, 100000, &v, e)) == 0)
            cfg->max_conns = (unsigned)v;
        return rc;
    }
    return err_set(e, ERR_SYNTAX, "unknown flag\n%s", usage);
}

static int
gw_parse_flags(int argc, char **argv, struct gw_config *cfg,
               struct gw_budget *b, struct err *e)
{
    static const struct option opts[] = {
        { "listen", required_argument, NULL, 'l' },
        { "upstream", required_argument, NULL, 'u' },
        { "connect-to", required_argument, NULL, 'c' },
        { "ca-file", required_argument, NULL, 'f' },
        { "key-file", required_argument, NULL, 'k' },
        { "no-credential", no_argument, NULL, 'n' },
        { "auth-header", required_argument, NULL, 'h' },
        { "organization", required_argument, NULL, 'O' },
        { "project", required_argument, NULL, 'J' },
        { "allow", required_argument, NULL, 'a' },
        { "allow-private", no_argument, NULL, 'p' },
        { "max-requests", required_argument, NULL, 'R' },
        { "max-bytes", required_argument, NULL, 'B' },
        { "max-tokens", required_argument, NULL, 'K' },
        { "max-body", required_argument, NULL, 'b' },
        { "header-limit", required_argument, NULL, 'H' },
        { "header-timeout", required_argument, NULL, 'T' },
        { "idle-timeout", required_argument, NULL, 'I' },
        { "connect-timeout", required_argument, NULL, 'C' },
        { "drain-timeout", required_argument, NULL, 'D' },
        { "max-conns", required_argument, NULL, 'm' },
        { "body-policy", required_argument, NULL, 'P' },
        { "allow-field", required_argument, NULL, 'F' },
        { "allow-tool-type", required_argument, NULL, 'Y' },
        { "allow-beta", required_argument, NULL, 'E' },
        { NULL, 0, NULL, 0 },
    };
    bool have_listen = false, have_up = false, no_cred = false;
    const char *connect_to = NULL;
    int o;

    opterr = 0; /* px_flags_getopt_error says it, in the log */
    while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        int rc = 0;

        switch (o) {
        case ':':
        case '?':
            return px_flags_getopt_error(o, argv, usage, e);
        case 'l':
            rc = px_flags_addr("--listen", optarg, &cfg->listen, e);
            have_listen = true;
            break;
        case 'u':
            rc = hostport_parse(optarg, strlen(optarg), &cfg->upstream, e);
            if (rc == -1) /* its messages name neither flag nor value */
                err_prefix(e, "--upstream %s: ", optarg);
            have_up = true;
            break;
        case 'c':
            connect_to = optarg;
            break;
        case 'f':
            cfg->ca_file = optarg;
            break;
        case 'k':
            cfg->key_file = optarg;
            break;
        case 'n':
            no_cred = true;
            break;
        case 'h':
            rc = gw_parse_auth(optarg, cfg, e);
            break;
        case 'O':
            rc = gw_parse_header_id("--organization", optarg, &cfg->org, e);
            break;
        case 'J':
            rc = gw_parse_header_id("--project", optarg, &cfg->project, e);
            break;
        case 'a':
            rc = gw_policy_add(&cfg->policy, optarg, e);
            break;
        case 'p':
            cfg->allow_private = true;
            break;
        case 'P':
            rc = gw_body_set_api(&cfg->body, optarg, e);
            break;
        case 'F':
        case 'Y':
        case 'E':
            rc = gw_body_allow(&cfg->body, o == 'F' ? 'f' : o == 'Y' ? 't' : 'b',
                               optarg, e);
            if (rc == -1)
                err_prefix(e, "--%s: ",
                           o == 'F' ? "allow-field"
                           : o == 'Y' ? "allow-tool-type"
                                      : "allow-beta");
            break;
        default:
            rc = gw_parse_number(o, optarg, cfg, b, e);
            break;
        }
        if (rc == -1)
            return -1;
    }
    if (optind != argc)
        return err_set(e, ERR_SYNTAX, "unexpected argument \"%s\"",
                       argv[optind]);
    if (!have_listen || !have_up || cfg->policy.len == 0)
        return err_set(e, ERR_SYNTAX,
                       "--listen, --upstream and --allow are required\n%s",
                       usage);
    if ((cfg->key_file == NULL) == !no_cred)
        return err_set(e, ERR_SYNTAX,
                       "give exactly one of --key-file and --no-credential");
    if (no_cred)
        cfg->auth = GW_AUTH_NONE;
    if (cfg->body.api == GW_API_NONE &&
        cfg->body.nfields + cfg->body.ntools + cfg->body.nbetas > 0)
        return err_set(e, ERR_SYNTAX, "--allow-field, --allow-tool-type and "
                                      "--allow-beta need --body-policy");
    if (connect_to != NULL)
        return gw_parse_connect_to(connect_to, cfg, e);
    return 0;
}

static void
gw_accept_one(void *arg, int fd, const union px_sockaddr *peer)
{
    gw__conn_accept(arg, fd, peer);
}

/* Draining: requests in flight finish, idle connections close (the key
 * is wiped on the way out). */
static void
gw_drain(void *arg)
{
    gw__conn_close_idle(arg);
}

static unsigned
gw_open(void *arg)
{
    const struct gw *gw = arg;

    return gw->nconns;
}

static void
gw_close_all(void *arg)
{
    struct gw *gw = arg;

    while (gw->conns != NULL)
        gw__conn_close(gw->conns, "shutdown");
    ev_timer_stop(gw->loop, &gw->trim);
}

static const struct px_daemon_ops gw_ops = {
    .accept = gw_accept_one,
    .drain = gw_drain,
    .open = gw_open,
    .close_all = gw_close_all,
};

void
gw__maybe_done(struct gw *gw)
{
    px_daemon_maybe_done(&gw->daemon);
}

/* glibc's malloc trims only the top of its heap; what a burst of
 * connections freed in the middle (OpenSSL's state for each, the request
 * heads) stays resident until malloc_trim gives the free pages back. A
 * second after a close, at most once a second however many close: the
 * walk is cheap at this heap's size and never runs per request. */
static void
gw_on_trim(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
    malloc_trim(0);
}

void
gw__trim_soon(struct gw *gw)
{
    if (ev_is_active(&gw->trim) || gw->daemon.draining)
        return;
    ev_timer_set(&gw->trim, 1.0, 0.);
    ev_timer_start(gw->loop, &gw->trim);
}

/* glibc raises its mmap threshold to the size of the largest mapped
 * block freed (up to 32 MiB), so once the first connection has closed,
 * every later one's buffers (2 x 64 KiB and the 130 KiB vendor buffer)
 * come from the heap instead of mappings of their own, and stay resident
 * after they are freed: bursts of 64 connections took the RSS from 10 to
 * 34 MiB (hack/bench/gateway "Bursts"). A fixed threshold keeps every
 * block of 32 KiB or more in its own mapping, unmapped when freed. */
static void
gw_malloc_tune(void)
{
    if (mallopt(M_MMAP_THRESHOLD, 32 * 1024) != 1)
        log_warnx("mallopt M_MMAP_THRESHOLD refused");
}

/* The credential, the TLS context, the resolver, the socket. */
static int
gw_setup(struct gw *gw, struct err *e)
{
    const struct gw_config *cfg = gw->cfg;
    const struct hostport *u = &cfg->upstream;
    char addr[80];

    if (cfg->key_file != NULL && gw_key_load(&gw->key, cfg->key_file, e) == -1)
        return -1;
    gw->cred.kind = cfg->auth;
    gw->cred.key = gw->key.data;
    gw->cred.key_len = gw->key.len;
    gw->cred.org = cfg->org;
    gw->cred.project = cfg->project;
    if (u->port == 443)
        snprintf(gw->host_header, sizeof(gw->host_header), "%s", u->host);
    else
        hostport_format(u, gw->host_header, sizeof(gw->host_header));
    gw->tls = gw__tls_ctx_new(gw, cfg->ca_file, e);
    if (gw->tls == NULL)
        return -1;
    gw->dns = px_dns_new(gw->loop, 2000, 2, e);
    if (gw->dns == NULL)
        return -1;
    if (px_daemon_listen(&gw->daemon, &cfg->listen, addr, sizeof(addr), e) ==
        -1)
        return -1;
    log_kv(LOG_INFO, "listening", "addr", addr, "upstream", gw->host_header,
           (char *)NULL);
    return 0;
}

int
main(int argc, char **argv)
{
    static struct gw_config cfg = {
        .ca_file = "/etc/ssl/certs/ca-certificates.crt",
        .auth = GW_AUTH_API_KEY,
        .header_limit = 16384,
        .header_timeout = 10,
        .idle_timeout = 600,
        .connect_timeout = 10,
        .drain_timeout = 5,
        .max_conns = 64,
    };
    struct err e = { 0 };
    struct gw *gw;
    int rc = 1;

    /* No core file, no ptrace by the same user: the key is in memory. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    signal(SIGPIPE, SIG_IGN);
    gw_malloc_tune();
    gw = calloc(1, sizeof(*gw));
    if (gw == NULL) {
        log_msg(LOG_ERROR, "out of memory");
        return 1;
    }
    gw->cfg = &cfg;
    px_daemon_init(&gw->daemon, &gw_ops, gw);
    gw->daemon.accept_batch = 64;
    gw->budget.max_body = GW_MAX_BODY_DEFAULT;
    if (gw_parse_flags(argc, argv, &cfg, &gw->budget, &e) == -1) {
        log_msg(LOG_ERROR, "%s", e.msg);
        rc = 2;
        goto out;
    }
    gw->loop = ev_default_loop(EVFLAG_AUTO);
    gw->daemon.drain_timeout = cfg.drain_timeout;
    ev_init(&gw->trim, gw_on_trim);
    if (gw_setup(gw, &e) == -1) {
        log_msg(LOG_ERROR, "%s", e.msg);
        goto out;
    }
    px_daemon_run(&gw->daemon, gw->loop);
    rc = 0;
out:
    px_daemon_cleanup(&gw->daemon);
    px_dns_free(gw->dns);
    SSL_SESSION_free(gw->session);
    SSL_CTX_free(gw->tls);
    gw_key_wipe(&gw->key);
    log_info("stopped");
    free(gw);
    return rc;
}
