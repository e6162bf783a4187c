/* store_dir_state.c - one state location for the controller and agentctl.
 *
 * The directory store's state lives in <specs>/.agentctl unless
 * --state names another directory. agent-controller records where its
 * state is in <specs>/.agentctl-state (one absolute path and a newline,
 * written atomically), so an agentctl pointed at the same specs directory
 * reads the status, events and output the controller writes without being
 * told --state: the default of both is the controller's choice. A
 * controller on the default location removes the record, so a stale one
 * never outlives the configuration that wrote it. */
#include "store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATE_RECORD ".agentctl-state"

char *
store__dir_recorded_state(const char *specs_dir)
{
    char path[PATH_MAX], line[PATH_MAX + 2];
    struct stat st;
    FILE *f;
    size_t n;

    if (snprintf(path, sizeof(path), "%s/" STATE_RECORD, specs_dir) >=
            (int)sizeof(path) ||
        (f = fopen(path, "re")) == NULL)
        return NULL;
    n = fread(line, 1, sizeof(line) - 1, f);
    fclose(f);
    line[n] = '\0';
    if (n == 0 || line[n - 1] != '\n')
        return NULL; /* empty, cut short or too long: not a record */
    line[n - 1] = '\0';
    /* only an absolute path to a directory that is there */
    if (line[0] != '/' || strchr(line, '\n') != NULL || stat(line, &st) == -1 ||
        !S_ISDIR(st.st_mode))
        return NULL;
    return strdup(line);
}

int
store_dir_record_state(const char *specs_dir, const char *state_dir,
                       struct err *e)
{
    char abs[PATH_MAX], path[PATH_MAX], *text = NULL;
    int rc;

    if (state_dir == NULL) {
        if (store__path(path, sizeof(path), e, "%s/" STATE_RECORD, specs_dir) ==
            -1)
            return -1;
        if (unlink(path) == -1 && errno != ENOENT)
            return err_sys(e, "remove %s", path);
        return 0;
    }
    if (realpath(state_dir, abs) == NULL)
        return err_sys(e, "state directory %s", state_dir);
    if (asprintf(&text, "%s\n", abs) == -1)
        return err_set(e, ERR_NOMEM, "out of memory");
    rc = store__write_atomic(NULL, specs_dir, STATE_RECORD, text, strlen(text),
                             e);
    free(text);
    return rc;
}
