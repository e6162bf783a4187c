/* launch_mcp.c - agent-launch --mcp-runner: the MCP server (stdio
 * transport) the vendor CLI starts inside its Landlock domain. It offers
 * one tool, "run", without arguments; a call asks the runner service
 * (launch_runner.c, outside the domain) for one run over the unix socket
 * (launch_wire.h) and answers with the exit code and the output.
 *
 * Newline-delimited JSON-RPC 2.0: one message a line on stdin, one answer
 * a line on stdout, nothing else on stdout. A line is held whole up to
 * MCP_LINE_MAX; a longer one is refused and the rest of it skipped, so no
 * input makes the buffer grow. Calls are answered in order: a run blocks
 * the reading of the next line until it ends (its time limit bounds it).
 */
#include "launch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "launch_json.h"
#include "launch_wire.h"

#define MCP_LINE_MAX (1u << 20)
#define MCP_OUT_MAX  ((size_t)LAUNCH_WIRE_BODY_MAX * 6 + 4096) /* \u00XX */
#define MCP_PROTOCOL "2025-06-18" /* the newest we know */

/* JSON-RPC 2.0 error codes */
#define RPC_PARSE_ERROR      (-32700)
#define RPC_INVALID_REQUEST  (-32600)
#define RPC_METHOD_NOT_FOUND (-32601)
#define RPC_INVALID_PARAMS   (-32602)
#define RPC_INTERNAL_ERROR   (-32603)

static const char *const mcp_versions[] = {
    "2024-11-05", "2025-03-26", "2025-06-18",
};

static const char mcp_tool_list[] =
    "{\"tools\":[{\"name\":\"run\",\"description\":\"Run the runner command "
    "this task approved (the exact command, in /work). Takes no arguments; "
    "returns its exit code and output.\",\"inputSchema\":{\"type\":"
    "\"object\",\"properties\":{},\"additionalProperties\":false}}]}";

struct mcp {
    int in, out;
    const char *socket_path;
};

/* Write b and a newline; b failing (out of memory, past the cap) becomes
 * an internal error for id. -1 when out is gone. */
static int
mcp_send(struct mcp *m, struct launch_buf *b, const struct launch_json *id)
{
    const char *p;
    size_t n;
    char err[160];

    launch_buf_add(b, "\n", 1);
    if (b->failed) {
        snprintf(err, sizeof(err), "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"error\""
                 ":{\"code\":%d,\"message\":\"Internal error: answer too "
                 "large\"}}\n", id && id->raw_len < 80 ? (int)id->raw_len : 4,
                 id && id->raw_len < 80 ? id->raw : "null",
                 RPC_INTERNAL_ERROR);
        p = err;
        n = strlen(err);
    } else {
        p = b->p;
        n = b->len;
    }
    while (n > 0) {
        ssize_t w = write(m->out, p, n);

        if (w == -1 && errno == EINTR)
            continue;
        if (w <= 0) {
            fprintf(stderr, "agent-launch: mcp: stdout: %s (the CLI "
                    "closed it?)\n", w == -1 ? strerror(errno) : "short");
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* '{"jsonrpc":"2.0","id":ID,' with id echoed as sent (null when NULL). */
static void
mcp_begin(struct launch_buf *b, const struct launch_json *id)
{
    launch_buf_adds(b, "{\"jsonrpc\":\"2.0\",\"id\":");
    if (id)
        launch_buf_add(b, id->raw, id->raw_len);
    else
        launch_buf_adds(b, "null");
    launch_buf_add(b, ",", 1);
}

static int
mcp_error(struct mcp *m, const struct launch_json *id, int code,
          const char *msg)
{
    struct launch_buf b;
    char num[32];
    int rc;

    launch_buf_init(&b, MCP_OUT_MAX);
    mcp_begin(&b, id);
    snprintf(num, sizeof(num), "%d", code);
    launch_buf_adds(&b, "\"error\":{\"code\":");
    launch_buf_adds(&b, num);
    launch_buf_adds(&b, ",\"message\":");
    launch_json_put_string(&b, msg, strlen(msg));
    launch_buf_adds(&b, "}}");
    rc = mcp_send(m, &b, id);
    launch_buf_cleanup(&b);
    return rc;
}

static int
mcp_result(struct mcp *m, const struct launch_json *id, const char *json)
{
    struct launch_buf b;
    int rc;

    launch_buf_init(&b, MCP_OUT_MAX);
    mcp_begin(&b, id);
    launch_buf_adds(&b, "\"result\":");
    launch_buf_adds(&b, json);
    launch_buf_adds(&b, "}");
    rc = mcp_send(m, &b, id);
    launch_buf_cleanup(&b);
    return rc;
}

/* A tools/call result: one text content. */
static int
mcp_tool_result(struct mcp *m, const struct launch_json *id,
                const char *text, size_t len, bool is_error)
{
    struct launch_buf b;
    int rc;

    launch_buf_init(&b, MCP_OUT_MAX);
    mcp_begin(&b, id);
    launch_buf_adds(&b, "\"result\":{\"content\":[{\"type\":\"text\","
                        "\"text\":");
    launch_json_put_string(&b, text, len);
    launch_buf_adds(&b, "}],\"isError\":");
    launch_buf_adds(&b, is_error ? "true}}" : "false}}");
    rc = mcp_send(m, &b, id);
    launch_buf_cleanup(&b);
    return rc;
}

/* Ask the runner service for one run; the reply (header and body) whole
 * into *reply. NULL, or a static sentence saying what failed with *err
 * the errno behind it (0: none). */
static const char *
mcp_ask(const char *socket_path, struct launch_buf *reply, int *err)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    const char *req = LAUNCH_WIRE_REQUEST;
    size_t left = strlen(req);
    char chunk[65536];
    const char *why = NULL;
    int fd;

    *err = 0;
    if (strlen(socket_path) >= sizeof(sa.sun_path))
        return "the socket path is too long";
    memcpy(sa.sun_path, socket_path, strlen(socket_path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd == -1) {
        *err = errno;
        return "socket() failed";
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
        *err = errno;
        why = "cannot connect to it";
        goto out;
    }
    while (left > 0) {
        ssize_t w = send(fd, req, left, MSG_NOSIGNAL);

        if (w == -1 && errno == EINTR)
            continue;
        if (w <= 0) {
            *err = w == -1 ? errno : 0;
            why = "it closed the connection before the request was sent";
            goto out;
        }
        req += w;
        left -= (size_t)w;
    }
    /* The service is outside the domain and ours: no deadline here, its
     * own time limit bounds the run. */
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));

        if (n == -1 && errno == EINTR)
            continue;
        if (n == -1) {
            *err = errno;
            why = "reading its reply failed";
            goto out;
        }
        if (n == 0)
            break;
        launch_buf_add(reply, chunk, (size_t)n);
        if (reply->failed) {
            why = "its reply is larger than this server takes";
            goto out;
        }
    }
out:
    close(fd);
    return why;
}

/* tools/call of "run": one run, its exit code and output as the text. */
static int
mcp_call_run(struct mcp *m, const struct launch_json *id)
{
    struct launch_buf reply, text;
    const char *why, *nl;
    int code = 0, sig = 0, timeout = 0, truncated = 0, used = -1, rc;
    size_t bytes = 0, head;
    bool is_error = true;
    char line[PATH_MAX + 200];
    int err;

    launch_buf_init(&reply, LAUNCH_WIRE_HEADER_MAX + LAUNCH_WIRE_BODY_MAX);
    launch_buf_init(&text, LAUNCH_WIRE_BODY_MAX + 256);
    why = mcp_ask(m->socket_path, &reply, &err);
    nl = reply.len ? memchr(reply.p, '\n', reply.len) : NULL;
    if (why) {
        snprintf(line, sizeof(line), "The runner service at %s did not "
                 "answer: %s%s%s. Nothing was run; report this to the user.",
                 m->socket_path, why, err ? ": " : "",
                 err ? strerror(err) : "");
        launch_buf_adds(&text, line);
    } else if (nl && reply.len > 6 && memcmp(reply.p, "error ", 6) == 0) {
        launch_buf_adds(&text, "The runner service refused: ");
        launch_buf_add(&text, reply.p + 6, (size_t)(nl - reply.p - 6));
    } else if (!nl || (head = (size_t)(nl - reply.p) + 1) >
                          LAUNCH_WIRE_HEADER_MAX ||
               /* no "\n" in the format: scanf's whitespace would eat an
                * output that starts with blank lines too */
               sscanf(reply.p, "exit=%d signal=%d timeout=%d truncated=%d "
                      "bytes=%zu%n", &code, &sig, &timeout, &truncated,
                      &bytes, &used) != 5 || (size_t)used + 1 != head ||
               bytes != reply.len - head) {
        launch_buf_adds(&text, "The runner service's reply was cut short "
                               "or malformed; the run's result is unknown.");
    } else {
        int n = snprintf(line, sizeof(line), "exit code %d", code);

        if (timeout)
            n += snprintf(line + n, sizeof(line) - (size_t)n,
                          "; timed out after the runner's time limit");
        else if (sig)
            n += snprintf(line + n, sizeof(line) - (size_t)n,
                          "; killed by signal %d", sig);
        if (truncated)
            snprintf(line + n, sizeof(line) - (size_t)n,
                     "; output truncated to its first %zu bytes", bytes);
        launch_buf_adds(&text, line);
        launch_buf_add(&text, "\n", 1);
        launch_buf_add(&text, nl + 1, bytes);
        is_error = code != 0 || timeout || sig;
    }
    rc = mcp_tool_result(m, id, text.p ? text.p : "", text.len, is_error);
    launch_buf_cleanup(&reply);
    launch_buf_cleanup(&text);
    return rc;
}

static int
mcp_initialize(struct mcp *m, const struct launch_json *id,
               const struct launch_json *params)
{
    const struct launch_json *asked = launch_json_get(params,
                                                      "protocolVersion");
    const char *version = MCP_PROTOCOL;
    char json[256];

    for (size_t i = 0; i < sizeof(mcp_versions) / sizeof(mcp_versions[0]);
         i++)
        if (launch_json_is_string(asked, mcp_versions[i]))
            version = mcp_versions[i];
    snprintf(json, sizeof(json), "{\"protocolVersion\":\"%s\",\"capabilities"
             "\":{\"tools\":{}},\"serverInfo\":{\"name\":\"agentctl\","
             "\"version\":\"1\"}}", version);
    return mcp_result(m, id, json);
}

static int
mcp_tools_call(struct mcp *m, const struct launch_json *id,
               const struct launch_json *params)
{
    static const char only[] = "There is one tool, \"run\", and it takes no "
                               "arguments.";
    const struct launch_json *name = launch_json_get(params, "name");
    const struct launch_json *args = launch_json_get(params, "arguments");

    if (!name || name->type != LAUNCH_JSON_STRING)
        return mcp_error(m, id, RPC_INVALID_PARAMS,
                         "Invalid params: tools/call needs a \"name\"");
    if (!launch_json_is_string(name, "run") ||
        (args && args->type != LAUNCH_JSON_NULL &&
         (args->type != LAUNCH_JSON_OBJECT || args->child)))
        return mcp_tool_result(m, id, only, sizeof(only) - 1, true);
    return mcp_call_run(m, id);
}

/* One line: one JSON-RPC message. -1 only when stdout is gone. */
static int
mcp_line(struct mcp *m, const char *line, size_t len)
{
    const struct launch_json *id, *method, *params;
    struct launch_json *msg;
    const char *why = NULL;
    char text[160];
    int rc;

    while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
                       line[len - 1] == '\t'))
        len--;
    if (len == 0)
        return 0;
    msg = launch_json_parse(line, len, &why);
    if (!msg) {
        snprintf(text, sizeof(text), "Parse error: %s", why);
        return mcp_error(m, NULL, RPC_PARSE_ERROR, text);
    }
    id = launch_json_get(msg, "id");
    method = launch_json_get(msg, "method");
    params = launch_json_get(msg, "params");
    if (msg->type != LAUNCH_JSON_OBJECT) {
        rc = mcp_error(m, NULL, RPC_INVALID_REQUEST, "Invalid Request: one "
                       "JSON-RPC object a line (no batches)");
    } else if (id && id->type != LAUNCH_JSON_STRING &&
               id->type != LAUNCH_JSON_NUMBER) {
        rc = mcp_error(m, NULL, RPC_INVALID_REQUEST,
                       "Invalid Request: id must be a string or a number");
    } else if (!method && id && (launch_json_get(msg, "result") ||
                                 launch_json_get(msg, "error"))) {
        rc = 0; /* a response: we send no requests, nothing to match */
    } else if (!method || method->type != LAUNCH_JSON_STRING ||
               !launch_json_is_string(launch_json_get(msg, "jsonrpc"),
                                      "2.0")) {
        rc = id || !method ? mcp_error(m, id, RPC_INVALID_REQUEST,
                                       "Invalid Request: a JSON-RPC 2.0 "
                                       "request needs \"jsonrpc\":\"2.0\" "
                                       "and a \"method\" string")
                           : 0;
    } else if (!id) {
        rc = 0; /* a notification is never answered */
    } else if (params && params->type != LAUNCH_JSON_OBJECT) {
        rc = mcp_error(m, id, RPC_INVALID_PARAMS,
                       "Invalid params: params must be an object");
    } else if (launch_json_is_string(method, "initialize")) {
        rc = mcp_initialize(m, id, params);
    } else if (launch_json_is_string(method, "ping")) {
        rc = mcp_result(m, id, "{}");
    } else if (launch_json_is_string(method, "tools/list")) {
        rc = mcp_result(m, id, mcp_tool_list);
    } else if (launch_json_is_string(method, "tools/call")) {
        rc = mcp_tools_call(m, id, params);
    } else {
        rc = mcp_error(m, id, RPC_METHOD_NOT_FOUND, "Method not found");
    }
    launch_json_free(msg);
    return rc;
}

int
launch_mcp_serve(int in, int out, const char *socket_path)
{
    struct mcp m = { .in = in, .out = out, .socket_path = socket_path };
    size_t len = 0, scanned = 0, cap = MCP_LINE_MAX + 1;
    bool skipping = false; /* in the rest of an oversized line */
    char *buf = malloc(cap);
    int rc = 0;

    if (!buf) {
        fprintf(stderr, "agent-launch: mcp: out of memory\n");
        return 1;
    }
    for (;;) {
        ssize_t n;
        char *p, *nl;

        if (len == cap) { /* MCP_LINE_MAX bytes and no newline yet */
            if (!skipping && mcp_error(&m, NULL, RPC_INVALID_REQUEST,
                                       "Invalid Request: line longer than "
                                       "1 MiB") == -1) {
                rc = 1;
                break;
            }
            skipping = true;
            len = scanned = 0;
        }
        n = read(in, buf + len, cap - len);
        if (n == -1 && errno == EINTR)
            continue;
        if (n == -1) {
            fprintf(stderr, "agent-launch: mcp: stdin: %s\n",
                    strerror(errno));
            rc = 1;
            break;
        }
        if (n == 0) { /* a last line without its newline still counts */
            if (len > 0 && !skipping && mcp_line(&m, buf, len) == -1)
                rc = 1;
            break;
        }
        len += (size_t)n;
        p = buf;
        while ((nl = memchr(buf + scanned, '\n', len - scanned)) != NULL) {
            if (skipping)
                skipping = false;
            else if (mcp_line(&m, p, (size_t)(nl - p)) == -1)
                goto out;
            p = nl + 1;
            scanned = (size_t)(p - buf);
        }
        len -= (size_t)(p - buf);
        memmove(buf, p, len);
        scanned = len;
        if (skipping)
            len = scanned = 0;
    }
    free(buf);
    return rc;
out:
    free(buf);
    return 1;
}

int
launch_mcp_main(const char *socket_path)
{
    return launch_mcp_serve(0, 1, socket_path);
}
