/* store_int.h - file helpers shared by the store backends (specs/ only). */
#ifndef STORE_INT_H
#define STORE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "store.h"

/* The directory backend (store_dir.c, store_dir_watch.c). */
struct store_dir_file; /* watch cache: file base name -> names it held */

struct store_dir {
    struct store base; /* first: the ops table points here */
    char *specs;       /* specs directory */
    char *state;       /* state directory */
    int lock_fd;       /* -1 unless locked */
    int lock_depth;
    int ino_fd; /* inotify; -1 until store_watch_fd() */
    struct store_dir_file *cache;
    size_t ncache;
};

/* true for the file names the directory store reads as specs: *.yaml or
 * *.yml, not starting with a dot (temp files, the state dir). */
bool store__dir_is_spec_file(const char *base);

/* Read and check one spec file into entries appended to l (one per
 * document, or one invalid entry). A file that vanished adds nothing. */
int store__dir_load(struct store_dir *d, const char *base, struct store_list *l,
                    struct err *e);

int store__dir_watch_fd(struct store *s, struct err *e);
int store__dir_watch_read(struct store *s, struct store_change *out, size_t max,
                          size_t *n, struct err *e);
void store__dir_watch_cleanup(struct store_dir *d);

/* Replace dir/base with data atomically: a temp dot-file in dir, fsync,
 * rename over base, fsync of dir. Readers see the old or the new bytes. */
/* The state directory recorded in <specs_dir>/.agentctl-state, or NULL
 * (no record, or not an absolute path to a directory). Caller frees. */
char *store__dir_recorded_state(const char *specs_dir);

int store__write_atomic(const char *dir, const char *base, const char *data,
                        size_t len, struct err *e);

/* Create dir/base with data only when it does not exist (temp + fsync +
 * link(), which fails when the name is taken): -1 with ERR_CONFLICT when
 * another writer got there first. Readers never see a partial file. */
int store__create_exclusive(const char *dir, const char *base, const char *data,
                            size_t len, struct err *e);

/* Read a whole file of at most max bytes into *data (caller frees,
 * NUL-terminated). ERR_NOTFOUND when it does not exist, ERR_LIMIT when it
 * is bigger than max. */
int store__read_file(const char *path, size_t max, char **data, size_t *len,
                     struct err *e);

/* fsync a directory so a rename or unlink in it is durable. */
int store__fsync_dir(const char *dir, struct err *e);

/* mkdir -p for one level under an existing parent; EEXIST is fine. */
int store__mkdir(const char *path, struct err *e);

/* snprintf into buf; -1 with ERR_LIMIT when it does not fit. */
int store__path(char *buf, size_t size, struct err *e, const char *fmt, ...)
    ERR_PRINTF(4, 5);

#endif
