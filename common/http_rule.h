/* http_rule.h - the syntax of an agent-gateway rule "METHOD /prefix"
 * (agent-gateway --allow; a vendor's gateway.allow in the controller
 * config) and of a request path in normal form.
 *
 * Pure code. One parser for both sides: the config checks a vendor's rules
 * with the code the gateway reads its flags with, so the gateway can never
 * refuse at start a rule that the config accepted (hostport.c does the
 * same for the proxy's hosts).
 *
 * A rule is a method of upper-case letters (1-16; the gateway compares the
 * method exactly as sent, and vendor APIs use upper case), one space and a
 * path prefix: 1-256 printable ASCII characters starting with '/', without
 * spaces, '?' or '#', in normal form.
 *
 * Normal form refuses a path that a server could read as another path:
 * dot segments, empty segments, backslashes, ';' (path parameters: "/..;/"
 * is ".." to some servers) and percent-encoded '.', '/', '\', '%', ';' or
 * NUL (a prefix rule would otherwise admit "/v1/messages/../../admin").
 */
#ifndef HTTP_RULE_H
#define HTTP_RULE_H

#include <stdbool.h>
#include <stddef.h>

#define HTTP_RULE_METHOD_MAX 16
#define HTTP_RULE_PREFIX_MAX 256

/* Check spec, "METHOD /prefix". NULL when it is a rule, with *method_len
 * set (the prefix starts one byte after the method); else why not, a
 * static string such as "method must be upper case". */
const char *http_rule_check(const char *spec, size_t *method_len);

/* True when the path (len bytes) starts with '/' and is in normal form
 * (see the top of this file). */
bool http_path_is_normal(const char *path, size_t len);

/* A name of the gateway's request policy (agent-gateway --allow-field,
 * --allow-tool-type, --allow-beta; a vendor's gateway.allowFields,
 * allowServerTools, allowBetas): 1-64 printable ASCII characters without
 * spaces, commas or quotes. NULL when it is one, else why not. */
#define HTTP_POLICY_NAME_MAX 64
const char *http_policy_name_check(const char *name);

/* An identifier the gateway sends for the operator in a header of its
 * own (agent-gateway --organization, --project; a vendor's
 * gateway.organization, gateway.project): 1-HTTP_HEADER_ID_MAX letters,
 * digits, '-' or '_' (OpenAI's "org-..." and "proj_..." IDs; nothing
 * that could end or fold a header line). NULL when it is one, else why
 * not. */
#define HTTP_HEADER_ID_MAX 128
const char *http_header_id_check(const char *id);

/* The longest credential the gateway sends. */
#define HTTP_KEY_MAX 2048

/* A credential the gateway can put in a header line: 1-HTTP_KEY_MAX
 * bytes of visible ASCII (0x21-0x7e; a CR or LF would be header
 * injection). NULL when it is one, else why not (static text that never
 * quotes the key). The controller checks it at capture with the code the
 * gateway reads its key file with, so a key the gateway would refuse at
 * start is refused first with a message naming the credential. */
const char *http_key_check(const char *key, size_t len);

#endif
