/* gw_key.h - the vendor credential: read once from a file, kept in one
 * locked page that is never dumped, wiped on exit.
 *
 * The file must be a regular file that neither group nor others may
 * read or write (mode 0400 or 0600): a key readable by any other user of
 * the volume is refused at start, so a mistake in how the file was made
 * shows before the key is used. The key is the file's text without
 * trailing blanks or newlines; it must be printable ASCII without spaces
 * (it goes into a header line).
 */
#ifndef GW_KEY_H
#define GW_KEY_H

#include <stddef.h>

#include "err.h"
#include "http_rule.h"

/* Longest key accepted. */
#define GW_KEY_MAX HTTP_KEY_MAX /* common/http_rule.h */

struct gw_key {
    char *data; /* one mapped page, NULL when not loaded */
    size_t len;
};

/* Load the key at path into k. -1 with e (the message never holds key
 * bytes). */
int gw_key_load(struct gw_key *k, const char *path, struct err *e);

/* Wipe and unmap; k may be empty. */
void gw_key_wipe(struct gw_key *k);

#endif
