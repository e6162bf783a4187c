/* log.h - structured log lines on stderr for the daemons and the CLI.
 *
 * Each call writes one JSON object on one line:
 *   {"time":"2026-12-02T09:21:04.123Z","level":"warn","msg":"..."}
 * log_kv() adds string fields. Libraries never log: only
 * main() and top-level callbacks do.
 */
#ifndef LOG_H
#define LOG_H

#include "err.h"

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

/* Lowest level that is written (default LOG_INFO). */
void log_set_level(enum log_level lvl);

/* Write a line when lvl is enabled. */
void log_msg(enum log_level lvl, const char *fmt, ...) ERR_PRINTF(2, 3);

/* Like log_msg at LOG_WARN, with ": strerror(errno)" appended. */
void log_warn(const char *fmt, ...) ERR_PRINTF(1, 2);

/* Write msg plus the string pairs key, value, ..., NULL as fields. */
void log_kv(enum log_level lvl, const char *msg, ...)
    __attribute__((sentinel));

#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_warnx(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

/* Append s to out as the inside of a JSON string (no quotes): quotes,
 * backslashes and control bytes escaped, well-formed UTF-8 kept, every
 * byte of anything else written as U+FFFD ("\ufffd"), so a line is strict
 * UTF-8 JSON whatever bytes s holds. Truncates at a character, never inside
 * one or an escape; always NUL-terminated; s NULL writes "". Returns the
 * length written. */
size_t log_json_escape(char *out, size_t size, const char *s);

/* Format the current UTC time as RFC 3339 with milliseconds. */
void log_time_now(char *out, size_t size);

#endif
