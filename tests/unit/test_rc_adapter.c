/* test_rc_adapter.c - vendor adapters: golden argv/env/config per vendor
 * and phase, and the phase policy checked directly on the output: the
 * launcher in front of every CLI with a policy file that follows the
 * phase; no web tool anywhere; no CLI command tool (Bash, codex's shell)
 * in any phase; the runner tool (the one MCP server) exactly where there
 * is a runner, running exactly its argv; edit tools only in execute and
 * fix; an option-like prompt reaches the CLI as the prompt (after the
 * CLI's `--`, or in AGENT_PROMPT), never as an option. Each checker has a
 * negative control that proves it bites.
 *
 * Golden files: tests/unit/golden/adapter/<adapter>-<phase>.json. To
 * regenerate them after a deliberate change, run the test with
 *   AGENTCTL_UPDATE_GOLDEN=1 ./test_rc_adapter
 * (from the build dir; AGENTCTL_SOURCE_DIR is set by ctest, else set it to
 * the source root), then review every changed line against the policy
 * above before committing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "rc_adapter.h"
#include "spec.h"

#define PROMPT "fix the login bug"

static char *make_test_argv[] = { "make", "test" };
static const struct spec_argv make_test = { make_test_argv, 2 };

static const char *const adapters[] = { "claude", "codex", "generic" };
static const enum spec_phase phases[] = {
    SPEC_PHASE_PLANNING, SPEC_PHASE_QUESTIONS, SPEC_PHASE_REVIEW,
    SPEC_PHASE_EXECUTE,  SPEC_PHASE_FIX,
};
#define N_ADAPTERS 3
#define N_PHASES   5

static bool
has_runner(enum spec_phase p)
{
    return p == SPEC_PHASE_REVIEW || p == SPEC_PHASE_EXECUTE ||
           p == SPEC_PHASE_FIX;
}

static const char *
vendor_of(const char *adapter)
{
    return strcmp(adapter, "generic") == 0 ? "acme" : adapter;
}

static struct rc_adapter_out *
build(const char *adapter, enum spec_phase p, const char *prompt)
{
    struct err e = { 0 };
    struct rc_adapter_out *o =
        rc_adapter_build(vendor_of(adapter), adapter, p, prompt,
                         has_runner(p) ? &make_test : NULL, NULL, &e);

    if (o == NULL)
        fail_msg("%s/%s: %s", adapter, spec_phase_name(p), e.msg);
    return o;
}

/* --- reading an output --------------------------------------------- */

/* Value of "--flag=value" in argv, or NULL. */
static const char *
flag_value(const struct rc_adapter_out *o, const char *flag)
{
    size_t n = strlen(flag);

    for (size_t i = 0; i < o->argc; i++)
        if (strncmp(o->argv[i], flag, n) == 0 && o->argv[i][n] == '=')
            return o->argv[i] + n + 1;
    return NULL;
}

static bool
has_arg(const struct rc_adapter_out *o, const char *s)
{
    for (size_t i = 0; i < o->argc; i++)
        if (strcmp(o->argv[i], s) == 0)
            return true;
    return false;
}

/* The launcher's prefix (rc_adapter_launch.c): argv before the CLI's. */
#define LAUNCH_ARGS 4

/* An argument that is an option: anything but the prompt at the end. */
static bool
has_option(const struct rc_adapter_out *o, const char *s)
{
    size_t n = strcmp(o->adapter, "generic") == 0 ? o->argc : o->argc - 1;

    for (size_t i = 0; i < n; i++)
        if (strcmp(o->argv[i], s) == 0)
            return true;
    return false;
}

static const char *
env_value(const struct rc_adapter_out *o, const char *key)
{
    size_t n = strlen(key);

    for (size_t i = 0; i < o->n_env; i++)
        if (strncmp(o->env[i], key, n) == 0 && o->env[i][n] == '=')
            return o->env[i] + n + 1;
    return NULL;
}

static const char *
file_content(const struct rc_adapter_out *o, const char *suffix)
{
    size_t n = strlen(suffix);

    for (size_t i = 0; i < o->n_files; i++) {
        size_t m = strlen(o->files[i].path);

        if (m >= n && strcmp(o->files[i].path + m - n, suffix) == 0)
            return o->files[i].content;
    }
    return NULL;
}

/* Is name one of the comma-separated items of list? */
static bool
in_list(const char *list, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = list; p != NULL && *p != '\0';) {
        const char *c = strchr(p, ',');
        size_t len = c != NULL ? (size_t)(c - p) : strlen(p);

        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p = c != NULL ? c + 1 : NULL;
    }
    return false;
}

static bool
json_array_has(const cJSON *a, const char *s)
{
    const cJSON *it;

    cJSON_ArrayForEach(it, a)
    {
        if (cJSON_IsString(it) && strcmp(it->valuestring, s) == 0)
            return true;
    }
    return false;
}

/* Entries of a that start with prefix. */
static int
json_array_count_prefix(const cJSON *a, const char *prefix)
{
    const cJSON *it;
    int n = 0;

    cJSON_ArrayForEach(it, a)
    {
        if (cJSON_IsString(it) &&
            strncmp(it->valuestring, prefix, strlen(prefix)) == 0)
            n++;
    }
    return n;
}

static cJSON *
claude_permissions(const struct rc_adapter_out *o, cJSON **root)
{
    const char *s = file_content(o, "/claude/settings.json");

    *root = s != NULL ? cJSON_Parse(s) : NULL;
    return cJSON_GetObjectItem(*root, "permissions");
}

static cJSON *
generic_policy(const struct rc_adapter_out *o)
{
    const char *s = env_value(o, "AGENT_TOOL_POLICY");

    return s != NULL ? cJSON_Parse(s) : NULL;
}

/* --- the policy checkers (each returns NULL or why it fails) ------- */

/* The runner tool's server as every adapter names it. */
static bool
is_runner_server(const cJSON *srv)
{
    const cJSON *args = cJSON_GetObjectItem(srv, "args");

    return cJSON_IsObject(srv) &&
           strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(srv, "command"))
                      ? cJSON_GetStringValue(
                            cJSON_GetObjectItem(srv, "command"))
                      : "",
                  RC_LAUNCH_BIN) == 0 &&
           cJSON_GetArraySize(args) == 2 &&
           json_array_has(args, "--mcp-runner") &&
           json_array_has(args, RC_RUNNER_SOCKET);
}

/* No web tool; MCP: only the runner tool's server, and only with a runner
 * (run). */
static const char *
check_claude_no_web_no_mcp(const struct rc_adapter_out *o, bool run)
{
    static const char *const web[] = { "WebFetch", "WebSearch" };
    const char *mcp = file_content(o, "/claude/mcp.json");
    cJSON *root, *perm = claude_permissions(o, &root), *m, *servers;
    const char *why = NULL;

    for (int i = 0; i < 2 && why == NULL; i++)
        if (in_list(flag_value(o, "--tools"), web[i]) ||
            in_list(flag_value(o, "--allowedTools"), web[i]) ||
            !in_list(flag_value(o, "--disallowedTools"), web[i]) ||
            json_array_has(cJSON_GetObjectItem(perm, "allow"), web[i]) ||
            !json_array_has(cJSON_GetObjectItem(perm, "deny"), web[i]))
            why = "a web tool is not denied everywhere";
    if (why == NULL && !has_arg(o, "--strict-mcp-config"))
        why = "no --strict-mcp-config";
    m = mcp != NULL ? cJSON_Parse(mcp) : NULL;
    servers = cJSON_GetObjectItem(m, "mcpServers");
    if (why == NULL &&
        (!cJSON_IsObject(servers) || cJSON_GetArraySize(servers) != run ||
         (run && !is_runner_server(cJSON_GetObjectItem(servers, "agentctl")))))
        why = "mcp.json names a server other than the runner tool's";
    if (why == NULL && (json_array_count_prefix(
                            cJSON_GetObjectItem(perm, "allow"), "mcp__") !=
                            run ||
                        !cJSON_IsFalse(cJSON_GetObjectItem(
                            root, "enableAllProjectMcpServers"))))
        why = "settings let other MCP tools in";
    cJSON_Delete(m);
    cJSON_Delete(root);
    return why;
}

static const char *
check_codex_no_web_no_mcp(const struct rc_adapter_out *o, bool run)
{
    const char *cfg = file_content(o, "/codex/config.toml");
    char want[256];

    if (!has_arg(o, "web_search=\"disabled\"") ||
        !has_arg(o, "features.web_search_request=false"))
        return "web search is not disabled on the command line";
    if (cfg == NULL || strstr(cfg, "\nweb_search = \"disabled\"\n") == NULL)
        return "web search is not disabled in config.toml";
    snprintf(want, sizeof(want),
             run ? "mcp_servers={ agentctl = { command = \"%s\", args = "
                   "[\"--mcp-runner\", \"%s\"], default_tools_approval_mode "
                   "= \"approve\" } }"
                 : "mcp_servers={}",
             RC_LAUNCH_BIN, RC_RUNNER_SOCKET);
    if (!has_arg(o, want) || strstr(cfg, want + strlen("mcp_servers=")) == NULL ||
        strstr(cfg, "[mcp_servers") != NULL)
        return "an MCP server other than the runner tool's";
    return NULL;
}

static const char *
check_generic_no_web_no_mcp(const struct rc_adapter_out *o, bool run)
{
    cJSON *p = generic_policy(o);
    const char *mcp = env_value(o, "AGENT_RUNNER_MCP");
    cJSON *srv = mcp != NULL ? cJSON_Parse(mcp) : NULL;
    const char *why = NULL;

    if (!cJSON_IsFalse(cJSON_GetObjectItem(p, "web")) ||
        json_array_has(cJSON_GetObjectItem(p, "tools"), "web"))
        why = "web is on in AGENT_TOOL_POLICY";
    else if (cJSON_GetArraySize(cJSON_GetObjectItem(p, "mcpServers")) != run ||
             (mcp != NULL) != run || (run && !is_runner_server(srv)))
        why = "an MCP server other than the runner tool's";
    cJSON_Delete(srv);
    cJSON_Delete(p);
    return why;
}

static const char *
check_no_web_no_mcp(const struct rc_adapter_out *o)
{
    if (strcmp(o->adapter, "claude") == 0)
        return check_claude_no_web_no_mcp(o, o->policy.run);
    if (strcmp(o->adapter, "codex") == 0)
        return check_codex_no_web_no_mcp(o, o->policy.run);
    return check_generic_no_web_no_mcp(o, o->policy.run);
}

/* The launcher's policy: the runner argv word for word (runner NULL:
 * none), /work writable only in execute and fix, Landlock required, the
 * proxy's port, and the launcher executable only where the CLI starts it
 * as the runner tool. */
static const char *
check_launch(const struct rc_adapter_out *o, const struct spec_argv *runner)
{
    const char *pol = file_content(o, "/launch.policy");
    char want[512];
    size_t n = 0;
    bool run = runner != NULL && runner->n > 0;

    if (o->argc < LAUNCH_ARGS + 1 || strcmp(o->argv[0], RC_LAUNCH_BIN) != 0 ||
        strcmp(o->argv[1], "--policy") != 0 ||
        strcmp(o->argv[2], RC_LAUNCH_POLICY) != 0 ||
        strcmp(o->argv[3], "--") != 0)
        return "the argv does not start with the launcher";
    if (pol == NULL || strstr(pol, "\nlandlock required\n") == NULL ||
        strstr(pol, "\nconnect 3128\n") == NULL ||
        strstr(pol, "\nwrite /tmp\n") == NULL)
        return "the launcher's policy lacks Landlock, the proxy or /tmp";
    if ((strstr(pol, "\nwrite /work\n") != NULL) !=
        spec_phase_writable(o->phase))
        return "/work is writable outside execute and fix";
    if ((strstr(pol, "\nexec " RC_LAUNCH_BIN "\n") != NULL) != run)
        return "the runner tool's executable does not follow the runner";
    for (const char *l = strstr(pol, "\nrunner-arg "); l != NULL;
         l = strstr(l + 1, "\nrunner-arg "))
        n++;
    if (n != (run ? runner->n : 0))
        return "runner-arg lines do not match the runner";
    for (size_t i = 0; run && i < runner->n; i++) {
        snprintf(want, sizeof(want), "\nrunner-arg %s\n", runner->argv[i]);
        if (strstr(pol, want) == NULL)
            return "a runner word is not in the policy as written";
    }
    return NULL;
}

/* runline: the one command allowed, NULL for none. Claude's Bash is off
 * in every phase; the runner is the runner tool. */
static const char *
check_claude_commands(const struct rc_adapter_out *o, const char *runline)
{
    cJSON *root, *perm = claude_permissions(o, &root);
    cJSON *allow = cJSON_GetObjectItem(perm, "allow");
    const char *tool = "mcp__agentctl__run";
    const char *why = NULL;

    if (in_list(flag_value(o, "--tools"), "Bash") ||
        in_list(flag_value(o, "--allowedTools"), "Bash") ||
        json_array_count_prefix(allow, "Bash") != 0 ||
        !json_array_has(cJSON_GetObjectItem(perm, "deny"), "Bash") ||
        !in_list(flag_value(o, "--disallowedTools"), "Bash"))
        why = "claude's own command tool is offered";
    else if ((runline != NULL) !=
                 in_list(flag_value(o, "--allowedTools"), tool) ||
             (runline != NULL) != json_array_has(allow, tool))
        why = "the runner tool does not follow the runner";
    else if (!has_arg(o, "dontAsk") ||
             strcmp(cJSON_GetStringValue(
                        cJSON_GetObjectItem(perm, "defaultMode")),
                    "dontAsk") != 0)
        why = "tools beyond the allow rules may run";
    cJSON_Delete(root);
    return why;
}

static const char *
check_codex_commands(const struct rc_adapter_out *o, const char *runline)
{
    const char *cfg = file_content(o, "/codex/config.toml");

    if (!has_arg(o, "features.shell_tool=false") ||
        strstr(cfg, "shell_tool = false") == NULL ||
        strstr(cfg, "shell_tool = true") != NULL ||
        !has_arg(o, "features.unified_exec=false"))
        return "codex's shell tool is on";
    /* (the argv itself: check_launch) */
    if (runline != NULL &&
        (!o->policy.run_exact || strstr(o->summary, runline) == NULL ||
         strstr(o->summary, "agentctl runner tool") == NULL))
        return "codex's runner is not the runner tool";
    return NULL;
}

static const char *
check_generic_commands(const struct rc_adapter_out *o, const char *runline)
{
    const char *r = env_value(o, "AGENT_RUNNER");
    const char *sock = env_value(o, "AGENT_RUNNER_SOCKET");
    cJSON *p = generic_policy(o);
    bool run = json_array_has(cJSON_GetObjectItem(p, "tools"), "run");
    cJSON *argv = o->policy.runner_n == 0
                      ? cJSON_CreateArray()
                      : cJSON_CreateStringArray(
                            (const char *const *)o->policy.runner,
                            (int)o->policy.runner_n);
    char *want = cJSON_PrintUnformatted(argv);
    const char *why = NULL;

    cJSON_Delete(argv);
    if (r == NULL || want == NULL || strcmp(r, want) != 0 ||
        run != (runline != NULL))
        why = "AGENT_RUNNER/tools do not match the runner";
    else if ((sock != NULL) != (runline != NULL) ||
             (sock != NULL && strcmp(sock, RC_RUNNER_SOCKET) != 0))
        why = "AGENT_RUNNER_SOCKET does not follow the runner";
    free(want);
    cJSON_Delete(p);
    return why;
}

static const char *
check_commands(const struct rc_adapter_out *o, const char *runline)
{
    if ((o->policy.run != (runline != NULL)) ||
        o->policy.run_exact != o->policy.run ||
        (runline != NULL && strcmp(o->policy.runner_line, runline) != 0))
        return "policy.run/run_exact/runner_line do not match";
    if (strcmp(o->adapter, "claude") == 0)
        return check_claude_commands(o, runline);
    if (strcmp(o->adapter, "codex") == 0)
        return check_codex_commands(o, runline);
    return check_generic_commands(o, runline);
}

static const char *
check_edit(const struct rc_adapter_out *o, bool edit)
{
    static const char *const tools[] = { "Edit", "Write", "NotebookEdit" };
    cJSON *root, *perm, *p;
    const char *why = NULL;

    if (o->policy.edit != edit)
        return "policy.edit is wrong";
    if (strcmp(o->adapter, "claude") == 0) {
        perm = claude_permissions(o, &root);
        for (int i = 0; i < 3 && why == NULL; i++)
            if (in_list(flag_value(o, "--tools"), tools[i]) != edit ||
                json_array_has(cJSON_GetObjectItem(perm, "allow"), tools[i]) !=
                    edit ||
                json_array_has(cJSON_GetObjectItem(perm, "deny"), tools[i]) ==
                    edit)
                why = "claude edit tools do not follow the phase";
        cJSON_Delete(root);
    } else if (strcmp(o->adapter, "codex") == 0) {
        /* codex's own sandbox cannot start in the box: its mode only
         * decides whether apply_patch writes (rc_adapter_codex.c) */
        if (!has_arg(o, edit ? "danger-full-access" : "read-only") ||
            has_arg(o, "workspace-write") ||
            has_arg(o, edit ? "read-only" : "danger-full-access"))
            why = "codex sandbox does not follow the phase";
    } else {
        p = generic_policy(o);
        if (json_array_has(cJSON_GetObjectItem(p, "tools"), "edit") != edit)
            why = "generic edit tool does not follow the phase";
        cJSON_Delete(p);
    }
    return why;
}

/* The prompt is the last argument, right after the CLI's only `--` (the
 * launcher's own ends its options before the CLI), and no other argument
 * holds it (claude, codex); generic has no arguments and the prompt in
 * AGENT_PROMPT. */
static const char *
check_prompt(const struct rc_adapter_out *o, const char *prompt)
{
    size_t dashes = 0;

    if (o->argc <= LAUNCH_ARGS || strcmp(o->argv[LAUNCH_ARGS - 1], "--") != 0)
        return "the launcher's options do not end before the CLI";
    if (strcmp(o->adapter, "generic") == 0) {
        if (o->argc != LAUNCH_ARGS + 1 ||
            strcmp(o->argv[LAUNCH_ARGS], "/agent") != 0)
            return "generic argv is not the launcher and /agent";
        if (env_value(o, "AGENT_PROMPT") == NULL ||
            strcmp(env_value(o, "AGENT_PROMPT"), prompt) != 0)
            return "AGENT_PROMPT is not the prompt";
        return NULL;
    }
    /* claude's tool flags take several values: as separate tokens they
     * would swallow what follows (anthropics/claude-code#25978). */
    if (has_option(o, "--tools") || has_option(o, "--allowedTools") ||
        has_option(o, "--disallowedTools") ||
        has_option(o, "--append-system-prompt"))
        return "a many-valued flag is a separate token";
    if (o->argc < 2 || strcmp(o->argv[o->argc - 1], prompt) != 0 ||
        strcmp(o->argv[o->argc - 2], "--") != 0)
        return "the prompt is not the argument after --";
    for (size_t i = LAUNCH_ARGS; i + 1 < o->argc; i++) {
        if (strcmp(o->argv[i], "--") == 0)
            dashes++;
        if (strcmp(o->argv[i], prompt) == 0 && i + 2 != o->argc)
            return "the prompt also appears before --";
    }
    return dashes == 1 ? NULL : "more than one --";
}

#define ASSERT_OK(why)                                                         \
    do {                                                                       \
        const char *why_ = (why);                                              \
        if (why_ != NULL)                                                      \
            fail_msg("%s/%s: %s", o->adapter, spec_phase_name(o->phase),       \
                     why_);                                                    \
    } while (0)

/* --- golden files --------------------------------------------------- */

static char *
golden_path(const char *adapter, enum spec_phase p)
{
    const char *src = getenv("AGENTCTL_SOURCE_DIR");
    char *path = malloc(4096);

    assert_non_null(path);
    snprintf(path, 4096, "%s/tests/unit/golden/adapter/%s-%s.json",
             src != NULL ? src : ".", adapter, spec_phase_name(p));
    return path;
}

static char *
read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *s = calloc(1, 1 << 20);
    size_t n;

    assert_non_null(s);
    if (f == NULL) {
        free(s);
        return NULL;
    }
    n = fread(s, 1, (1 << 20) - 1, f);
    s[n] = '\0';
    fclose(f);
    return s;
}

static void
test_golden_every_adapter_and_phase(void **state)
{
    const char *update = getenv("AGENTCTL_UPDATE_GOLDEN");

    (void)state;
    for (int a = 0; a < N_ADAPTERS; a++)
        for (int p = 0; p < N_PHASES; p++) {
            struct rc_adapter_out *o = build(adapters[a], phases[p], PROMPT);
            char *json = rc_adapter_out_to_json(o);
            char *path = golden_path(adapters[a], phases[p]);
            char *want;

            assert_non_null(json);
            if (update != NULL && strcmp(update, "1") == 0) {
                FILE *f = fopen(path, "w");

                assert_non_null(f);
                fprintf(f, "%s\n", json);
                fclose(f);
            }
            want = read_text(path);
            if (want == NULL)
                fail_msg("missing golden %s (AGENTCTL_UPDATE_GOLDEN=1 "
                         "writes it)",
                         path);
            want[strcspn(want, "\0")] = '\0';
            if (strlen(want) > 0 && want[strlen(want) - 1] == '\n')
                want[strlen(want) - 1] = '\0';
            if (strcmp(json, want) != 0)
                fail_msg("%s differs from the output:\n%s", path, json);
            free(want);
            free(path);
            free(json);
            rc_adapter_out_free(o);
        }
}

/* --- the policy on every output ------------------------------------ */

static void
test_policy_holds_for_every_adapter_and_phase(void **state)
{
    (void)state;
    for (int a = 0; a < N_ADAPTERS; a++)
        for (int p = 0; p < N_PHASES; p++) {
            struct rc_adapter_out *o = build(adapters[a], phases[p], PROMPT);

            ASSERT_OK(check_no_web_no_mcp(o));
            ASSERT_OK(
                check_commands(o, has_runner(phases[p]) ? "make test" : NULL));
            ASSERT_OK(check_edit(o, spec_phase_writable(phases[p])));
            ASSERT_OK(check_prompt(o, PROMPT));
            ASSERT_OK(check_launch(o, has_runner(phases[p]) ? &make_test
                                                            : NULL));
            assert_non_null(strstr(o->summary, has_runner(phases[p])
                                                   ? "mcp: agentctl runner only"
                                                   : "mcp: none"));
            assert_non_null(strstr(o->summary, "web: off; stdin: closed"));
            rc_adapter_out_free(o);
        }
}

static void
test_review_without_runner_runs_nothing(void **state)
{
    (void)state;
    for (int a = 0; a < N_ADAPTERS; a++) {
        struct err e = { 0 };
        struct rc_adapter_out *o =
            rc_adapter_build(vendor_of(adapters[a]), adapters[a],
                             SPEC_PHASE_REVIEW, PROMPT, NULL, NULL, &e);

        assert_non_null(o);
        ASSERT_OK(check_commands(o, NULL));
        ASSERT_OK(check_edit(o, false));
        ASSERT_OK(check_no_web_no_mcp(o));
        ASSERT_OK(check_launch(o, NULL));
        rc_adapter_out_free(o);
    }
}

static void
test_option_like_prompt_arrives_as_the_prompt(void **state)
{
    static const char *const prompts[] = {
        "--help",
        "-p x",
        "line1\n--dangerously-skip-permissions",
        "--",
        "-c mcp_servers.x.command=\"sh\"",
    };

    (void)state;
    for (int a = 0; a < N_ADAPTERS; a++)
        for (int p = 0; p < N_PHASES; p++)
            for (size_t i = 0; i < sizeof(prompts) / sizeof(prompts[0]); i++) {
                struct rc_adapter_out *o =
                    build(adapters[a], phases[p], prompts[i]);

                ASSERT_OK(check_prompt(o, prompts[i]));
                /* and no option token was added for it */
                assert_false(has_option(o, "--dangerously-skip-permissions"));
                assert_false(has_option(o, "--help"));
                rc_adapter_out_free(o);
            }
}

/* The runner tool runs the argv, never a shell line: quotes, spaces and
 * a '*' reach it word for word, for every adapter. */
static void
test_runner_with_quotes_is_the_exact_argv(void **state)
{
    char *argv[] = { "pytest", "-k", "not slow", "it's", "t/*.py" };
    struct spec_argv r = { argv, 5 };
    const char *line = "pytest -k 'not slow' 'it'\\''s' 't/*.py'";

    (void)state;
    for (int a = 0; a < N_ADAPTERS; a++) {
        struct err e = { 0 };
        struct rc_adapter_out *o =
            rc_adapter_build(vendor_of(adapters[a]), adapters[a],
                             SPEC_PHASE_FIX, PROMPT, &r, NULL, &e);

        assert_non_null(o);
        assert_string_equal(o->policy.runner_line, line);
        ASSERT_OK(check_commands(o, line));
        ASSERT_OK(check_launch(o, &r));
        rc_adapter_out_free(o);
    }
}

/* An attempt an older version captured is built as its agent was made:
 * the CLI alone, no policy file, no launcher to upload. */
static void
test_unlaunched_is_the_cli_alone(void **state)
{
    struct rc_adapter_box box = { .proxy_port = 3128, .runner_timeout = 60,
                                  .runner_max_bytes = 1024,
                                  .runner_dir = "/work", .unlaunched = true };
    struct err e = { 0 };

    (void)state;
    for (int a = 0; a < N_ADAPTERS; a++) {
        struct rc_adapter_out *o =
            rc_adapter_build(vendor_of(adapters[a]), adapters[a],
                             SPEC_PHASE_REVIEW, PROMPT, &make_test, &box, &e);
        struct rc_adapter_out *l = build(adapters[a], SPEC_PHASE_REVIEW, PROMPT);

        assert_non_null(o);
        assert_false(rc_adapter_launched(o));
        assert_true(rc_adapter_launched(l));
        assert_string_equal(o->argv[0], l->argv[LAUNCH_ARGS]);
        assert_null(file_content(o, "/launch.policy"));
        rc_adapter_out_free(o);
        rc_adapter_out_free(l);
    }
}

/* The runner gets a home the CLI cannot write, and not the vendor's key
 * (credentialMode env puts it in the CLI's environment). */
static void
test_runner_home_and_key(void **state)
{
    struct rc_adapter_box box = { .proxy_port = 3128, .runner_timeout = 60,
                                  .runner_max_bytes = 1024,
                                  .runner_dir = "/work",
                                  .credential_env = "ANTHROPIC_API_KEY" };
    struct err e = { 0 };
    struct rc_adapter_out *o = rc_adapter_build(
        "claude", "claude", SPEC_PHASE_REVIEW, PROMPT, &make_test, &box, &e);
    const char *pol;

    (void)state;
    assert_non_null(o);
    pol = file_content(o, "/launch.policy");
    assert_non_null(strstr(pol, "\nrunner-unset ANTHROPIC_API_KEY\n"));
    assert_non_null(strstr(pol, "\nrunner-home " RC_RUNNER_HOME "\n"));
    rc_adapter_out_free(o);
}

/* --- negative controls: the checkers can fail ---------------------- */

static void
replace_arg(struct rc_adapter_out *o, const char *old, const char *new)
{
    for (size_t i = 0; i < o->argc; i++)
        if (strcmp(o->argv[i], old) == 0 ||
            (old[strlen(old) - 1] == '=' &&
             strncmp(o->argv[i], old, strlen(old)) == 0)) {
            free(o->argv[i]);
            o->argv[i] = strdup(new);
            return;
        }
    fail_msg("no argument %s", old);
}

/* Replace old by new in the config file whose path ends in suffix. */
static void
replace_in(struct rc_adapter_out *o, const char *suffix, const char *old,
           const char *new)
{
    for (size_t i = 0; i < o->n_files; i++) {
        size_t m = strlen(o->files[i].path), k = strlen(suffix);
        char *c = o->files[i].content, *at = strstr(c, old), *s;
        size_t n = strlen(c) - strlen(old) + strlen(new) + 1;

        if (m < k || strcmp(o->files[i].path + m - k, suffix) != 0)
            continue;
        assert_non_null(at);
        s = malloc(n);
        assert_non_null(s);
        snprintf(s, n, "%.*s%s%s", (int)(at - c), c, new, at + strlen(old));
        free(c);
        o->files[i].content = s;
        return;
    }
    fail_msg("no file %s", suffix);
}

static void
test_checkers_catch_a_widened_output(void **state)
{
    struct rc_adapter_out *o;

    (void)state;
    o = build("claude", SPEC_PHASE_REVIEW, PROMPT);
    replace_arg(o, "--tools=", "--tools=Read,Glob,Grep,Bash,WebFetch");
    assert_non_null(check_no_web_no_mcp(o));
    rc_adapter_out_free(o);

    o = build("claude", SPEC_PHASE_REVIEW, PROMPT);
    replace_in(o, "/settings.json", "\"mcp__agentctl__run\"",
               "\"mcp__agentctl__run\", \"Bash(make test)\"");
    assert_non_null(check_commands(o, "make test"));
    rc_adapter_out_free(o);

    o = build("claude", SPEC_PHASE_PLANNING, PROMPT);
    replace_in(o, "/mcp.json", "{}", "{\"x\": {\"command\": \"sh\"}}");
    assert_non_null(check_no_web_no_mcp(o));
    rc_adapter_out_free(o);

    o = build("claude", SPEC_PHASE_EXECUTE, PROMPT);
    replace_in(o, "/mcp.json", "--mcp-runner", "--mcp-other");
    assert_non_null(check_no_web_no_mcp(o));
    rc_adapter_out_free(o);

    o = build("claude", SPEC_PHASE_PLANNING, PROMPT);
    replace_arg(o, "--tools=", "--tools=Read,Glob,Grep,Bash");
    assert_non_null(check_commands(o, NULL));
    rc_adapter_out_free(o);

    o = build("claude", SPEC_PHASE_REVIEW, PROMPT);
    replace_arg(o, "--tools=", "--tools=Read,Glob,Grep,Edit,Bash");
    assert_non_null(check_edit(o, false));
    rc_adapter_out_free(o);

    o = build("codex", SPEC_PHASE_PLANNING, PROMPT);
    replace_arg(o, "features.shell_tool=false", "features.shell_tool=true");
    assert_non_null(check_commands(o, NULL));
    rc_adapter_out_free(o);

    o = build("codex", SPEC_PHASE_REVIEW, PROMPT);
    replace_arg(o, "features.shell_tool=false", "features.shell_tool=true");
    assert_non_null(check_commands(o, "make test"));
    rc_adapter_out_free(o);

    o = build("codex", SPEC_PHASE_QUESTIONS, PROMPT);
    replace_in(o, "/config.toml", "mcp_servers = {}",
               "mcp_servers = {}\n[mcp_servers.x]");
    assert_non_null(check_no_web_no_mcp(o));
    rc_adapter_out_free(o);

    o = build("generic", SPEC_PHASE_REVIEW, PROMPT);
    assert_null(check_launch(o, &make_test));
    replace_in(o, "/launch.policy", "landlock required", "landlock optional");
    assert_non_null(check_launch(o, &make_test));
    rc_adapter_out_free(o);

    o = build("claude", SPEC_PHASE_REVIEW, PROMPT);
    replace_in(o, "/launch.policy", "write /tmp\n", "write /tmp\nwrite /work\n");
    assert_non_null(check_launch(o, &make_test));
    rc_adapter_out_free(o);

    o = build("codex", SPEC_PHASE_FIX, PROMPT);
    replace_in(o, "/launch.policy", "runner-arg test", "runner-arg test-all");
    assert_non_null(check_launch(o, &make_test));
    rc_adapter_out_free(o);

    o = build("claude", SPEC_PHASE_PLANNING, PROMPT);
    replace_arg(o, RC_LAUNCH_BIN, "/bin/sh");
    assert_non_null(check_launch(o, NULL));
    rc_adapter_out_free(o);

    o = build("generic", SPEC_PHASE_EXECUTE, PROMPT);
    assert_null(check_prompt(o, PROMPT));
    replace_arg(o, "/agent", "--help");
    assert_non_null(check_prompt(o, PROMPT));
    rc_adapter_out_free(o);

    o = build("claude", SPEC_PHASE_FIX, "--help");
    assert_null(check_prompt(o, "--help"));
    replace_arg(o, "--tools=", "--tools");
    assert_non_null(check_prompt(o, "--help"));
    rc_adapter_out_free(o);

    o = build("codex", SPEC_PHASE_FIX, "--help");
    replace_arg(o, "--", "--x");
    assert_non_null(check_prompt(o, "--help"));
    rc_adapter_out_free(o);
}

/* --- refusals ------------------------------------------------------- */

static void
expect_error(const char *adapter, enum spec_phase p, const char *prompt,
             const struct spec_argv *runner, enum err_code code,
             const char *field)
{
    struct err e = { 0 };
    struct rc_adapter_out *o = rc_adapter_build(vendor_of(adapter), adapter, p,
                                                prompt, runner, NULL, &e);

    assert_null(o);
    assert_int_equal(e.code, code);
    assert_string_equal(e.field, field);
    assert_true(e.msg[0] != '\0');
}

static void
test_bad_inputs_are_refused_with_the_field(void **state)
{
    char *nl[] = { "make", "a\nb" };
    struct spec_argv r_nl = { nl, 2 };
    char *big = malloc(RC_ADAPTER_ARG_MAX + 2);

    (void)state;
    assert_non_null(big);
    memset(big, 'x', RC_ADAPTER_ARG_MAX + 1);
    big[RC_ADAPTER_ARG_MAX + 1] = '\0';
    for (int a = 0; a < N_ADAPTERS; a++) {
        expect_error(adapters[a], SPEC_PHASE_PLANNING, PROMPT, &make_test,
                     ERR_INVALID, "spec.runner");
        expect_error(adapters[a], SPEC_PHASE_QUESTIONS, PROMPT, &make_test,
                     ERR_INVALID, "spec.runner");
        expect_error(adapters[a], SPEC_PHASE_FIX, big, NULL, ERR_LIMIT,
                     "spec.prompt");
        expect_error(adapters[a], SPEC_PHASE_FIX, "", NULL, ERR_INVALID,
                     "spec.prompt");
    }
    /* one byte less fits */
    big[RC_ADAPTER_ARG_MAX] = '\0';
    rc_adapter_out_free(build("claude", SPEC_PHASE_PLANNING, big));
    expect_error("generic", SPEC_PHASE_PLANNING, big, NULL, ERR_LIMIT,
                 "spec.prompt"); /* "AGENT_PROMPT=" pushes it over */
    free(big);
    for (int a = 0; a < N_ADAPTERS; a++) /* one word per policy line */
        expect_error(adapters[a], SPEC_PHASE_REVIEW, PROMPT, &r_nl,
                     ERR_INVALID, "spec.runner[1]");
    expect_error("codex", SPEC_PHASE_REVIEW, "-", NULL, ERR_INVALID,
                 "spec.prompt");
    expect_error("bard", SPEC_PHASE_REVIEW, PROMPT, NULL, ERR_INVALID,
                 "adapter");
}

/* --- helpers -------------------------------------------------------- */

static void
test_shell_line_quotes_only_what_needs_it(void **state)
{
    char *a[] = { "make", "-j2", "test", "a b", "it's", "$HOME", "x;y" };
    char *s = rc_adapter_shell_line(a, 7);

    (void)state;
    assert_string_equal(s, "make -j2 test 'a b' 'it'\\''s' '$HOME' 'x;y'");
    free(s);
    s = rc_adapter_shell_line(a, 0);
    assert_string_equal(s, "");
    free(s);
}

static void
test_vendor_picks_its_adapter(void **state)
{
    (void)state;
    assert_string_equal(rc_adapter_for_vendor("claude"), "claude");
    assert_string_equal(rc_adapter_for_vendor("codex"), "codex");
    assert_string_equal(rc_adapter_for_vendor("fake"), "generic");
    assert_string_equal(rc_adapter_for_vendor(NULL), "generic");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_every_adapter_and_phase),
        cmocka_unit_test(test_policy_holds_for_every_adapter_and_phase),
        cmocka_unit_test(test_review_without_runner_runs_nothing),
        cmocka_unit_test(test_option_like_prompt_arrives_as_the_prompt),
        cmocka_unit_test(test_runner_with_quotes_is_the_exact_argv),
        cmocka_unit_test(test_unlaunched_is_the_cli_alone),
        cmocka_unit_test(test_runner_home_and_key),
        cmocka_unit_test(test_checkers_catch_a_widened_output),
        cmocka_unit_test(test_bad_inputs_are_refused_with_the_field),
        cmocka_unit_test(test_shell_line_quotes_only_what_needs_it),
        cmocka_unit_test(test_vendor_picks_its_adapter),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
