/* loop_main.c - agent-controller: flags, start-up, signals and the loop.
 *
 *   agent-controller --specs DIR | --etcd URL[,URL] | --kubeconfig FILE
 *                    | --in-cluster [FLAGS]
 *
 * The flags, their meanings and defaults are the table in loop_flags.c.
 *
 * SIGTERM and SIGINT stop the loop and leave running agents in place: the
 * next start adopts them from their status. SIGHUP reloads the config; a
 * bad file keeps the old config and says why.
 */
#include "ctl.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "try_claim.h"
#include "loop_docker.h"
#include "box_egressnet.h"
#include "loop_events.h"
#include "loop_flags.h"
#include "loop_gc.h"
#include "pass_inv.h"
#include "drift_nscache.h"
#include "obs_observe.h"
#include "box_pool.h"
#include "inv_queue.h"
#include "loop_sync.h"
#include "ctl_testhooks.h"
#include "try_write.h"
#include "duration.h"
#include "log.h"
#include "rc_drift.h"

/* A positive Go-style duration ("5s", "500ms", "1h", "1.5" seconds). */
static int
parse_duration(const char *s, double *out)
{
    double v;

    if (duration_parse(s, &v) == -1 || v <= 0)
        return -1;
    *out = v;
    return 0;
}

/* The default ID is the host name, made into a label value. */
static void
default_id(char out[CTL_ID_MAX + 1])
{
    char host[256] = "controller";
    size_t n = 0;

    gethostname(host, sizeof(host) - 1);
    for (const char *p = host; *p != '\0' && n < CTL_ID_MAX; p++) {
        char ch = *p;

        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
            ch == '.')
            out[n++] = ch;
        else if (ch >= 'A' && ch <= 'Z')
            out[n++] = (char)(ch - 'A' + 'a');
    }
    out[n] = '\0';
    if (n == 0)
        snprintf(out, CTL_ID_MAX + 1, "controller");
}

static bool
id_ok(const char *id)
{
    size_t n = strlen(id);

    if (n == 0 || n > CTL_ID_MAX)
        return false;
    for (const char *p = id; *p != '\0'; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '.' || *p == '_'))
            return false;
    return true;
}

/* A cap such as --max-running N: 0 = no cap. */
static int
parse_cap(const char *flag, const char *arg, unsigned *out)
{
    char *end;
    unsigned long n = strtoul(arg, &end, 10);

    if (end == arg || *end != '\0' || arg[0] == '-' || n > 100000) {
        fprintf(stderr,
                "agent-controller: --%s: expected a count (0 = no cap), "
                "got \"%s\"\n",
                flag, arg);
        return -1;
    }
    *out = (unsigned)n;
    return 0;
}

/* --max-running N (0 = no cap) and --lease-ttl D (whole seconds, at
 * least 2: etcd's lease TTLs are seconds; claims, try_claim.c). */
static int
parse_claim_flag(int ch, const char *arg, struct ctl_opts *o)
{
    if (ch == 'M')
        return parse_cap("max-running", arg, &o->max_running);
    if (parse_duration(arg, &o->lease_ttl_s) == -1 || o->lease_ttl_s < 2 ||
        o->lease_ttl_s > 3600) {
        fprintf(stderr,
                "agent-controller: --lease-ttl: expected a duration from 2s "
                "to 1h such as 15s, got \"%s\"\n",
                arg);
        return -1;
    }
    o->lease_ttl_s = (double)(long)o->lease_ttl_s;
    return 0;
}

/* Where the specs live when they are in etcd (the store is opened here
 * only, so these stay out of struct ctl_opts). */
struct loop_etcd_opts {
    const char *urls;               /* --etcd: endpoint URLs, comma-separated */
    const char *prefix;             /* --etcd-prefix; NULL = /agentctl */
    struct store_etcd_security sec; /* --etcd-cacert, -cert, -key, -user,
                                       -password-file */
    /* the Kubernetes API server store: --kubeconfig (or --in-cluster),
     * --kube-context */
    const char *kubeconfig, *kube_context;
    bool in_cluster;
};

static int
parse_args(int argc, char **argv, struct ctl_opts *o, struct loop_etcd_opts *eo)
{
    /* getopt_long's view of the table (loop_flags.c); the last row stays
     * zero, as getopt_long wants. */
    struct option longopts[CTL_NFLAGS + 1] = { 0 };
    int ch, idx;

    memset(o, 0, sizeof(*o));
    o->resync_s = 5;
    o->lease_ttl_s = 15;
    o->max_building = CTL_MAX_BUILDING;
    default_id(o->controller_id);
    for (size_t i = 0; ctl_flags[i].name != NULL; i++) {
        const struct loop_flag *f = &ctl_flags[i];
        int has_arg = f->arg != NULL ? required_argument : no_argument;

        longopts[i] = (struct option){ f->name, has_arg, NULL, f->code };
    }
    while ((ch = getopt_long(argc, argv, "", longopts, &idx)) != -1) {
        /* No flag takes "": an empty value (an unset variable in a unit
         * file, say) would otherwise mean the default, or nothing. */
        if (optarg != NULL && optarg[0] == '\0') {
            fprintf(stderr, "agent-controller: --%s: empty value\n",
                    longopts[idx].name);
            return -1;
        }
        switch (ch) {
        case 's':
            o->specs_dir = optarg;
            break;
        case 'S':
            o->state_dir = optarg;
            break;
        case 'c':
            o->config_path = optarg;
            break;
        case 'd':
            o->docker_url = optarg;
            break;
        case 'm':
            o->metrics_addr = optarg;
            break;
        case 'o':
            o->once = true;
            break;
        case 'B':
            if (parse_cap("max-building", optarg, &o->max_building) == -1)
                return -1;
            break;
        case 'r':
            if (parse_duration(optarg, &o->resync_s) == -1) {
                fprintf(stderr,
                        "agent-controller: --resync: expected a "
                        "duration such as 5s or 500ms, got \"%s\"\n",
                        optarg);
                return -1;
            }
            break;
        case 'i':
            if (!id_ok(optarg)) {
                fprintf(stderr,
                        "agent-controller: --controller-id: at most "
                        "63 of a-z 0-9 - . _, got \"%s\"\n",
                        optarg);
                return -1;
            }
            snprintf(o->controller_id, sizeof(o->controller_id), "%s", optarg);
            break;
        case 'e':
            eo->urls = optarg;
            break;
        case 'p':
            eo->prefix = optarg;
            break;
        case 'A':
            eo->sec.ca_file = optarg;
            break;
        case 'C':
            eo->sec.cert_file = optarg;
            break;
        case 'K':
            eo->sec.key_file = optarg;
            break;
        case 'U':
            eo->sec.user = optarg;
            break;
        case 'P':
            eo->sec.password_file = optarg;
            break;
        case 'k':
            eo->kubeconfig = optarg;
            break;
        case 'x':
            eo->kube_context = optarg;
            break;
        case 'I':
            eo->in_cluster = true;
            break;
        case 'M':
        case 'L':
            if (parse_claim_flag(ch, optarg, o) == -1)
                return -1;
            break;
        case 'h':
            loop_flags_help(stdout);
            exit(0);
        case 'V':
            printf("agent-controller version %s\n", AGENTCTL_VERSION);
            exit(0);
        default:
            loop_flags_usage(stderr);
            return -1;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "agent-controller: unexpected argument \"%s\"\n",
                argv[optind]);
        loop_flags_usage(stderr);
        return -1;
    }
    if ((o->specs_dir != NULL) + (eo->urls != NULL) +
            (eo->kubeconfig != NULL || eo->in_cluster) != 1 ||
        (eo->kubeconfig != NULL && eo->in_cluster)) {
        fprintf(stderr, "agent-controller: give exactly one of --specs, "
                        "--etcd and --kubeconfig (or --in-cluster)\n");
        loop_flags_usage(stderr);
        return -1;
    }
    return 0;
}

/* The daemon answers again (loop_docker.c): follow its events, and look
 * at every invocation and every labelled object afresh. */
static void
docker_back(struct ctl *c)
{
    loop_events_start(c);
    box_egressnet_look(c);
    loop_sync_all(c);
    loop_gc_run(c);
    box_pool_fill(c);
}

static void
on_stop_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    struct ctl *c = w->data;

    (void)revents;
    log_kv(LOG_INFO, "stopping; running agents are left to be adopted",
           "signal", w->signum == SIGTERM ? "SIGTERM" : "SIGINT", NULL);
    /* a second signal stops at once */
    if (!c->stopping) {
        c->stopping = true;
        if (box_pool_drain_for_stop(c))
            return; /* the loop ends once the boxes are gone (bounded) */
    }
    ev_break(loop, EVBREAK_ALL);
}

/* A vendor whose key goes into the box (credentialMode env) is said once
 * per load: the agent, and the repository's runner, can read it there. */
static void
warn_env_mode(const struct cfg *cfg)
{
    for (size_t i = 0; cfg != NULL && i < cfg->n_vendors; i++) {
        const struct cfg_vendor *vd = &cfg->vendors[i];

        if (vd->credential_env != NULL &&
            vd->credential_mode == CFG_CREDENTIAL_ENV)
            log_kv(LOG_WARN,
                   "credentialMode env: a spec's key for this vendor goes "
                   "into the box (credentialMode: gateway keeps it out, "
                   "docs/gateway.md)",
                   "vendor", vd->name, "env", vd->credential_env, NULL);
    }
}

static struct cfg *
load_config(const char *path)
{
    struct spec_errors es = { .n = 0 };
    struct cfg *cfg = cfg_load_all(path, &es);
    char line[600];

    for (size_t i = 0; i < es.n; i++)
        log_kv(LOG_ERROR, "config error", "error",
               err_format(&es.items[i], line, sizeof(line)), NULL);
    warn_env_mode(cfg);
    return cfg;
}

static void
on_hup(struct ev_loop *loop, ev_signal *w, int revents)
{
    struct ctl *c = w->data;
    struct cfg *cfg;

    (void)loop;
    (void)revents;
    cfg = load_config(c->opts.config_path);
    if (cfg == NULL) {
        log_kv(LOG_WARN, "config reload failed: keeping the old config",
               "config", c->opts.config_path ? c->opts.config_path : "-", NULL);
        obs_observe_config_reload(c, false);
        return;
    }
    /* Captured attempts keep the desired state built from the old config
     * (rc_desired copies what it needs); new attempts use the new one. */
    cfg_free(c->cfg);
    c->cfg = cfg;
    log_kv(LOG_INFO, "config reloaded", NULL);
    obs_observe_config_reload(c, true);
    /* Boxes of the warm pool were made from the old config (a vendor's
     * hosts, the helper images): they go, and the pool fills anew. */
    box_pool_drain(c, "the config was reloaded");
    box_pool_fill(c);
    box_egressnet_look(c); /* egressNetwork may name another one now */
    /* The canary's next run is timed by the new probeInterval: each timer
     * is armed again on the next pass. */
    for (struct ctl_inv *i = c->invs; i != NULL; i = i->next)
        ev_timer_stop(c->loop, &i->probe.canary);
    loop_sync_all(c);
}

static void
start_signals(struct ctl *c)
{
    ev_signal_init(&c->sigterm, on_stop_signal, SIGTERM);
    ev_signal_init(&c->sigint, on_stop_signal, SIGINT);
    ev_signal_init(&c->sighup, on_hup, SIGHUP);
    c->sigterm.data = c->sigint.data = c->sighup.data = c;
    ev_signal_start(c->loop, &c->sigterm);
    ev_signal_start(c->loop, &c->sigint);
    ev_signal_start(c->loop, &c->sighup);
}

#ifdef AGENTCTL_TEST_HOOKS
/* Test-hooks build only (agent-controller-testhooks): switch drift rules
 * off by ID, so the integration suite can show each rule's test fails
 * without it. The production binary has no such switch. */
static int
test_hooks(struct ctl *c, struct err *e)
{
    const char *env = getenv("AGENTCTL_TEST_DISABLE_DRIFT_RULES");
    char list[1024], *tok, *save = NULL;

    if (env == NULL)
        return 0;
    snprintf(list, sizeof(list), "%s", env);
    for (tok = strtok_r(list, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        int i = rc_drift_rule_by_id(tok);

        if (i < 0)
            return err_set(e, ERR_INVALID, "unknown drift rule \"%s\"", tok);
        rc_drift_set_add(&c->disabled_rules, (size_t)i);
        log_kv(LOG_WARN, "TEST HOOK: drift rule disabled", "rule", tok, NULL);
    }
    return 0;
}
#endif

/* The directory store at exactly the state the flags say (the default
 * <specs>/.agentctl, never an older record), and the record agentctl's
 * default follows: written for --state, removed without it
 * (store/dir/store_dir_state.c). A record that cannot be written is only
 * logged: the controller works, agentctl then needs --state. */
static struct store *
open_dir_store(const struct ctl_opts *o, struct err *e)
{
    struct store *s;
    struct err re = { 0 };
    char dflt[4096];

    snprintf(dflt, sizeof(dflt), "%s/.agentctl", o->specs_dir);
    s = store_dir_open(o->specs_dir, o->state_dir ? o->state_dir : dflt, e);
    if (s != NULL && store_dir_record_state(o->specs_dir, o->state_dir, &re))
        log_warnx("cannot record the state directory in %s (agentctl will "
                  "need --state %s): %s",
                  o->specs_dir, o->state_dir ? o->state_dir : dflt, re.msg);
    return s;
}

static int
loop_open(struct ctl *c, const struct loop_etcd_opts *eo, struct err *e)
{
    c->image_configs = cJSON_CreateObject();
    c->docker_back = docker_back;
    inv_queue_init(c, pass_inv_pass);
#ifdef AGENTCTL_TEST_HOOKS
    if (test_hooks(c, e) == -1)
        return -1;
#endif
    c->cfg = load_config(c->opts.config_path);
    if (c->cfg == NULL)
        return err_set(e, ERR_INVALID, "the config has errors (see above)");
    if (eo->urls != NULL)
        c->store = store_etcd_open(eo->urls, eo->prefix, c->opts.state_dir, e);
    else if (eo->kubeconfig != NULL || eo->in_cluster)
        c->store = store_kube_open(eo->kubeconfig, eo->kube_context,
                                   c->opts.state_dir, e);
    else
        c->store = open_dir_store(&c->opts, e);
    if (c->store == NULL)
        return -1;
    if (eo->urls != NULL && store_etcd_set_security(c->store, &eo->sec, e))
        return -1;
    /* its Lease's name; the negative control of test_kube_leases.sh */
    store_kube_set_holder(c->store, c->opts.controller_id,
                          !ctl_test_disabled("kube-claim-holder"));
    /* the negative control of test_etcd_idle.sh: every pass reads etcd */
    if (ctl_test_disabled("etcd-cache"))
        store_etcd_set_cache(c->store, false);
    /* test_etcd_stall.sh's: the loop's lease grant, pool document and
     * lists go the blocking way again */
    if (ctl_test_disabled("etcd-loop-async"))
        store_etcd_set_loop_blocking(c->store, true);
    /* test_kube_leases.sh's: the Lease grant and the claims go the
     * blocking way again */
    if (ctl_test_disabled("kube-loop-async"))
        store_kube_set_loop_blocking(c->store, true);
    c->dk = dk_new(c->loop, c->opts.docker_url, e);
    if (c->dk == NULL)
        return -1;
    if (c->opts.metrics_addr != NULL && obs_observe_start(c, e) == -1)
        return -1;
    start_signals(c);
    try_write_start(c);
    loop_check_docker(c);
    /* the watch first: the lease grant goes on its connections */
    if (loop_sync_start(c, e) == -1)
        return -1;
    try_claim_start(c); /* a pass the grant finds waiting goes again */
    box_pool_start(c);
    return 0;
}

static void
loop_close(struct ctl *c)
{
    loop_sync_stop(c);
    loop_events_stop(c);
    loop_gc_stop(c);
    box_pool_stop(c);
    try_write_stop(c); /* the statuses still queued, written */
    try_claim_stop(c); /* after them: their releases are dropped */
    while (c->invs != NULL)
        pass_inv_forget(c->invs);
    obs_observe_stop(c);
    dk_free(c->dk);
    store_close(c->store);
    cfg_free(c->cfg);
    cJSON_Delete(c->image_configs);
    drift_nscache_free(c->ns_modes);
    ev_signal_stop(c->loop, &c->sigterm);
    ev_signal_stop(c->loop, &c->sigint);
    ev_signal_stop(c->loop, &c->sighup);
}

int
main(int argc, char **argv)
{
    struct ctl c;
    struct loop_etcd_opts eo = { 0 };
    struct err e;
    const char *lvl = getenv("AGENTCTL_LOG");
    int rc = 0;

    memset(&c, 0, sizeof(c));
    if (parse_args(argc, argv, &c.opts, &eo) == -1)
        return 2;
    if (lvl != NULL && strcmp(lvl, "debug") == 0)
        log_set_level(LOG_DEBUG);
    c.loop = ev_default_loop(EVFLAG_AUTO);
    if (loop_open(&c, &eo, &e) == -1) {
        char line[600];

        log_kv(LOG_ERROR, "cannot start", "error",
               err_format(&e, line, sizeof(line)), NULL);
        rc = 1;
    } else {
        log_kv(LOG_INFO, "agent-controller started", "version",
               AGENTCTL_VERSION, "controller", c.opts.controller_id, "specs",
               c.opts.specs_dir ? c.opts.specs_dir : eo.urls, NULL);
        if (!(c.opts.once && inv_idle(&c)))
            ev_run(c.loop, 0);
        if (c.opts.once && !c.stopping && c.exit_code == 0) /* says why */
            log_kv(LOG_INFO, "no invocation has work pending: exiting (--once)",
                   NULL);
        rc = c.exit_code;
    }
    loop_close(&c);
    ev_loop_destroy(c.loop);
    return rc;
}
