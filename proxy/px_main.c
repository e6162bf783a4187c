/* px_main.c - egress-proxy: flags, then the daemon shell (px_daemon.c)
 * around the connections of px_conn.c.
 *
 * egress-proxy --listen ADDR:PORT (--allow HOST:PORT[,HOST:PORT...] |
 *   --deny-all) [--allow-private] [--header-limit 8192] [--header-timeout 10]
 *   [--idle-timeout 600] [--max-conns 256]
 *   [--connect-timeout 10] [--drain-timeout 5]
 * (docs/design.md "egress-proxy contract"; the last two are extensions.)
 */
#include "px_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "px_flags.h"
#include "px_daemon.h"

static const char usage[] =
    "usage: egress-proxy --listen ADDR:PORT (--allow HOST:PORT[,...] |\n"
    "       --deny-all)\n"
    "       [--allow-private] [--header-limit BYTES] [--header-timeout S]\n"
    "       [--idle-timeout S] [--max-conns N] [--connect-timeout S]\n"
    "       [--drain-timeout S]\n";

static int
px_parse_flags(int argc, char **argv, struct px_config *cfg, struct err *e)
{
    static const struct option opts[] = {
        { "listen", required_argument, NULL, 'l' },
        { "allow", required_argument, NULL, 'a' },
        { "allow-private", no_argument, NULL, 'p' },
        { "deny-all", no_argument, NULL, 'N' },
        { "header-limit", required_argument, NULL, 'H' },
        { "header-timeout", required_argument, NULL, 'T' },
        { "idle-timeout", required_argument, NULL, 'I' },
        { "max-conns", required_argument, NULL, 'm' },
        { "connect-timeout", required_argument, NULL, 'C' },
        { "drain-timeout", required_argument, NULL, 'D' },
        { NULL, 0, NULL, 0 },
    };
    bool have_listen = false, deny_all = false;
    double v;
    int o;

    opterr = 0; /* px_flags_getopt_error says it, in the log */
    while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        int rc = 0;
        switch (o) {
        case 'l':
            rc = px_flags_addr("--listen", optarg, &cfg->listen, e);
            have_listen = true;
            break;
        case 'a':
            rc = px_allow_add(&cfg->allow, optarg, e);
            break;
        case 'p':
            cfg->allow_private = true;
            break;
        case 'N':
            deny_all = true;
            break;
        case 'H':
            rc = px_flags_count("--header-limit", optarg, 64, 1 << 20, &v, e);
            if (rc == 0) /* v is set only when the value is good */
                cfg->header_limit = (size_t)v;
            break;
        case 'T':
            rc = px_flags_num("--header-timeout", optarg, 0.01, 3600,
                              &cfg->header_timeout, e);
            break;
        case 'I':
            rc = px_flags_num("--idle-timeout", optarg, 0.01, 1e7,
                              &cfg->idle_timeout, e);
            break;
        case 'm':
            rc = px_flags_count("--max-conns", optarg, 1, 1000000, &v, e);
            if (rc == 0)
                cfg->max_conns = (unsigned)v;
            break;
        case 'C':
            rc = px_flags_num("--connect-timeout", optarg, 0.01, 3600,
                              &cfg->connect_timeout, e);
            break;
        case 'D':
            rc = px_flags_num("--drain-timeout", optarg, 0, 3600,
                              &cfg->drain_timeout, e);
            break;
        default:
            return px_flags_getopt_error(o, argv, usage, e);
        }
        if (rc == -1)
            return -1;
    }
    if (optind != argc)
        return err_set(e, ERR_SYNTAX, "unexpected argument \"%s\"",
                       argv[optind]);
    /* An empty allowlist is said out loud (--deny-all: a vendor whose
     * agent reaches it only through the credential gateway), never
     * implied by a missing --allow. */
    if (!have_listen || (cfg->allow.len == 0) == !deny_all)
        return err_set(e, ERR_SYNTAX,
                       "--listen and one of --allow or --deny-all are "
                       "required");
    return 0;
}

static void
px_accept_one(void *arg, int fd, const union px_sockaddr *peer)
{
    px__conn_accept(arg, fd, peer);
}

/* Draining: only tunnels open before the signal get the drain time. */
static void
px_drain(void *arg)
{
    px__conn_refuse_unopened(arg);
}

static unsigned
px_open(void *arg)
{
    const struct px *px = arg;

    return px->nconns + px->nreject;
}

static void
px_close_all(void *arg)
{
    struct px *px = arg;

    while (px->conns != NULL)
        px__conn_close(px->conns, "shutdown");
}

static const struct px_daemon_ops px_ops = {
    .accept = px_accept_one,
    .drain = px_drain,
    .open = px_open,
    .close_all = px_close_all,
};

void
px__maybe_done(struct px *px)
{
    px_daemon_maybe_done(&px->daemon);
}

static int
px_run(struct px *px, struct err *e)
{
    char addr[80];

    px->dns = px_dns_new(px->loop, 2000, 2, e);
    if (px->dns == NULL)
        return -1;
    if (px_daemon_listen(&px->daemon, &px->cfg->listen, addr, sizeof(addr),
                         e) == -1)
        return -1;
    log_kv(LOG_INFO, "listening", "addr", addr, (char *)NULL);
    px->splice = true;
    px_daemon_run(&px->daemon, px->loop);
    return 0;
}

int
main(int argc, char **argv)
{
    struct px_config cfg = {
        .header_limit = 8192,
        .header_timeout = 10,
        .idle_timeout = 600,
        .connect_timeout = 10,
        .drain_timeout = 5,
        .max_conns = 256,
    };
    struct err e = { 0 };
    struct px *px;
    int rc = 1;

    signal(SIGPIPE, SIG_IGN);
    px_allow_init(&cfg.allow);
    px = calloc(1, sizeof(*px));
    if (px == NULL) {
        log_msg(LOG_ERROR, "out of memory");
        return 1;
    }
    px->cfg = &cfg;
    px_daemon_init(&px->daemon, &px_ops, px);
    px->daemon.accept_batch = 128;
    if (px_parse_flags(argc, argv, &cfg, &e) == -1) {
        log_msg(LOG_ERROR, "%s", e.msg);
        rc = 2;
        goto out;
    }
    px->loop = ev_default_loop(EVFLAG_AUTO);
    px->daemon.drain_timeout = cfg.drain_timeout;
    if (px_run(px, &e) == -1)
        log_msg(LOG_ERROR, "%s", e.msg);
    else
        rc = 0;
out:
    px_daemon_cleanup(&px->daemon);
    px__pipes_free(px);
    px_dns_free(px->dns);
    px_allow_cleanup(&cfg.allow);
    free(px);
    return rc;
}
