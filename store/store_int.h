/* store_int.h - file helpers shared by the store backends (specs/ only). */
#ifndef STORE_INT_H
#define STORE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "store.h"

#include <stdint.h>
#include <sys/types.h>

/* The directory backend (store_dir.c, store_dir_index.c,
 * store_dir_watch.c). */
struct store_dir_seen; /* watch: file base name -> names it last held */

/* What a spec file was when the index last read it (lstat). A write in
 * place changes size or mtime, and always ctime, which no one can set
 * back (utimensat can set mtime, not ctime); a rename over it changes
 * the inode. */
struct store_dir_key {
    dev_t dev;
    ino_t ino;
    off_t size;
    int64_t mtime_ns, ctime_ns;
};

/* One spec file as the index knows it. */
struct store_dir_file {
    char *base;
    struct store_dir_key key;
    /* changed so recently that another write within the file system's
     * clock tick would leave the key as it is: its bytes are hashed again
     * at the next look (and parsed only when the hash differs) */
    bool racy;
    char *data; /* the file's bytes, once for all its documents */
    size_t len;
    bool listed; /* seen by the scan running (store__dir_scan) */
    struct store_list specs; /* one per document, or one invalid entry;
                                data NULL here; duplicates across files
                                are not marked here but on the way out */
};

struct store_dir {
    struct store base; /* first: the ops table points here */
    char *specs;       /* specs directory */
    char *state;       /* state directory */
    int lock_fd;       /* -1 unless locked */
    int lock_depth;
    int ino_fd; /* inotify; -1 until store_watch_fd() */
    struct store_dir_seen *seen; /* never shrinks: positions are stable */
    size_t nseen, seen_cap;
    size_t *seen_slots; /* base name -> seen[] position + 1, as `slots` */
    size_t nseen_slots; /* a power of two, or 0 */
    /* the index: file -> what it holds (store_dir_index.c) */
    struct store_dir_file *files;
    size_t nfiles, files_cap;
    /* base name -> files[] index + 1 (0: empty), open addressing; rebuilt
     * when stale (a drop moves the last file into the hole) */
    size_t *slots;
    size_t nslots; /* a power of two, or 0 */
    bool slots_stale;
    bool scanned; /* a full scan since open or since the lock was taken */
    struct store_fs_batch *batch; /* NULL unless between batch begin/end */
};

/* true for the file names the directory store reads as specs: *.yaml or
 * *.yml, not starting with a dot (temp files, the state dir). */
bool store__dir_is_spec_file(const char *base);

/* Read and check one spec file into entries appended to l (one per
 * document, or one invalid entry), each with the file's revision. A file
 * that vanished adds nothing. When same_rev is not NULL and the bytes
 * hash to it, nothing is parsed or added and 1 is returned. */
int store__dir_load(struct store_dir *d, const char *base, const char *same_rev,
                    struct store_list *l, struct err *e);

/* The index (store_dir_index.c). A file is read again only when its key
 * changed (or it is racy), and parsed again only when its bytes did. */
bool store__dir_key_same(const struct store_dir_key *a,
                         const struct store_dir_key *b);
/* true when a file with this key, read at read_ns (CLOCK_REALTIME), may
 * be written again without its key changing. */
bool store__dir_key_racy(const struct store_dir_key *k, int64_t read_ns);
extern int64_t store__dir_racy_ns; /* the window; 2 s */
/* Bring the entry of one file in line with the directory; *changed
 * (may be NULL) says whether what it holds changed. */
int store__dir_refresh(struct store_dir *d, const char *base, bool *changed,
                       struct err *e);
/* Every file: stat each, read the changed ones, forget the vanished. */
int store__dir_scan(struct store_dir *d, struct err *e);
/* A full scan unless one was done since open or since the lock was
 * taken; then only the files that may hold name are looked at again. */
int store__dir_fresh(struct store_dir *d, const char *name, struct err *e);
struct store_dir_file *store__dir_file(struct store_dir *d, const char *base);
/* The entries of name across files, sorted by key; at most max. */
size_t store__dir_find(struct store_dir *d, const char *name,
                       const struct store_spec **hits,
                       const struct store_dir_file **files, size_t max);
/* A caller-owned copy of an index entry of file f; its checked spec is
 * the index's own, shared (spec_invocation_ref), not a copy. */
int store__dir_copy(const struct store_dir_file *f, const struct store_spec *sp,
                    struct store_spec *out, struct err *e);
void store__dir_index_free(struct store_dir *d);

int store__dir_watch_fd(struct store *s, struct err *e);
int store__dir_watch_read(struct store *s, struct store_change *out, size_t max,
                          size_t *n, struct err *e);
void store__dir_watch_cleanup(struct store_dir *d);

/* A batch of writes (store_batch_begin() on the directory store): each
 * file's bytes go to its temp file at once; the commit makes them all
 * durable with one syncfs(), then renames (or links) every one into
 * place, then fsyncs each directory once - instead of two fsyncs per
 * file. Readers still see each file old or new, before and after a crash;
 * a name put in a batch is invisible until the commit. */
struct store_fs_batch;
struct store_fs_batch *store__fs_batch_new(void);
int store__fs_batch_commit(struct store_fs_batch *b, struct err *e);
/* Drop what was not committed (its temp files are removed). */
void store__fs_batch_clear(struct store_fs_batch *b);
/* true when the batch holds a write of path. */
bool store__fs_batch_has(const struct store_fs_batch *b, const char *path);

/* Replace dir/base with data atomically: a temp dot-file in dir, fsync,
 * rename over base, fsync of dir. Readers see the old or the new bytes.
 * With b, the rename waits for b's commit. */
int store__write_atomic(struct store_fs_batch *b, const char *dir,
                        const char *base, const char *data, size_t len,
                        struct err *e);
/* The state directory recorded in <specs_dir>/.agentctl-state, or NULL
 * (no record, or not an absolute path to a directory). Caller frees. */
char *store__dir_recorded_state(const char *specs_dir);

/* Create dir/base with data only when it does not exist (temp + fsync +
 * link(), which fails when the name is taken): -1 with ERR_CONFLICT when
 * another writer got there first. Readers never see a partial file. With
 * b, the link waits for b's commit, and a writer that creates the name
 * meanwhile wins (as it would have a moment later). */
int store__create_exclusive(struct store_fs_batch *b, const char *dir,
                            const char *base, const char *data, size_t len,
                            struct err *e);

/* Read a whole file of at most max bytes into *data (caller frees,
 * NUL-terminated). ERR_NOTFOUND when it does not exist, ERR_LIMIT when it
 * is bigger than max. */
int store__read_file(const char *path, size_t max, char **data, size_t *len,
                     struct err *e);

/* A curl multi handle inside one epoll fd (store_multi.c): ep is the fd
 * the caller waits on, curl_timer the timerfd of curl's timeouts (in
 * ep). Set CURLMOPT_SOCKETFUNCTION to store__multi_on_socket and
 * CURLMOPT_TIMERFUNCTION to store__multi_on_timer, both with the
 * struct as their data. */
struct store_multi_fds {
    int ep;
    int curl_timer;
};
int store__multi_on_socket(void *easy, int fd, int what, void *arg,
                           void *sockp);
int store__multi_on_timer(void *multi, long ms, void *arg);
/* Arm timerfd tfd to fire in ms (-1: disarm; 0: at once). */
void store__timer_arm(int tfd, long ms);
/* One pass over what ep has ready, without waiting: curl's sockets and
 * its timer handed to the multi handle, the caller's retry timerfd (also
 * in ep) drained; true when that fired. The finished transfers are the
 * caller's to read (curl_multi_info_read). */
bool store__multi_drive(void *multi, const struct store_multi_fds *m,
                        int retry);

/* fsync a directory so a rename or unlink in it is durable. */
int store__fsync_dir(const char *dir, struct err *e);

/* mkdir -p for one level under an existing parent; EEXIST is fine. */
int store__mkdir(const char *path, struct err *e);

/* snprintf into buf; -1 with ERR_LIMIT when it does not fit. */
/* The string indexes of the directory store (its files by base name, a
 * batch's writes by path): open addressing over array positions, a slot
 * holding position + 1 (0: empty), nslots a power of two kept at most
 * half full. store__slot_put puts position i, whose key is key. */
size_t store__str_hash(const char *s);
void store__slot_put(size_t *slots, size_t nslots, const char *key, size_t i);

int store__path(char *buf, size_t size, struct err *e, const char *fmt, ...)
    ERR_PRINTF(4, 5);

/* One item of store_status_write_many() the one-request-per-write way
 * (store.c): its events and status, or its removal; it->err on failure.
 * The fallback of a store that groups, for an item its group could not
 * write. */
int store__status_item_alone(struct store *s, struct store_status_item *it);

#endif
