/* launch_wire.h - the unix-socket protocol between agent-launch's MCP
 * server (launch_mcp.c, inside the CLI's Landlock domain) and its runner
 * service (launch_runner.c, in the launcher's parent, outside it). Private
 * to those two files and their unit test.
 *
 * One connection is one request:
 *   client:  "RUN\n"                   (the only request; no arguments)
 *   service: "exit=E signal=S timeout=T truncated=U bytes=N\n" + N bytes
 *            E  the exit code (128+S when the runner died of signal S)
 *            S  the signal that ended it, 0 when it exited
 *            T  1 when the time limit passed and the group was killed
 *            U  1 when output past the policy's runner-max-bytes was dropped
 *            N  the bytes of output kept (stdout and stderr interleaved)
 *   or:      "error TEXT\n"            (bad request; the service closes)
 * then the service closes. The service reads the request with a deadline
 * (LAUNCH_WIRE_REQUEST_MS) and writes the reply with one
 * (LAUNCH_WIRE_REPLY_MS), so a silent or slow client cannot hold it.
 */
#ifndef LAUNCH_WIRE_H
#define LAUNCH_WIRE_H

#define LAUNCH_WIRE_REQUEST    "RUN\n"
#define LAUNCH_WIRE_HEADER_MAX 128    /* a reply's first line, '\n' included */
#define LAUNCH_WIRE_BODY_MAX   (64u << 20) /* the MCP side's cap on N */
#define LAUNCH_WIRE_REQUEST_MS 5000
#define LAUNCH_WIRE_REPLY_MS   10000

/* launch_mcp.c: the MCP server on any pair of fds (launch_mcp_main uses 0
 * and 1); for the unit test. Returns 0 at EOF on in, 1 on an I/O error. */
int launch_mcp_serve(int in, int out, const char *socket_path);

#endif
