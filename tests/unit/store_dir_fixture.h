/* store_dir_fixture.h - a directory store in a fresh temporary directory,
 * and spec text to put into it, for the directory-store unit tests. */
#ifndef STORE_DIR_FIXTURE_H
#define STORE_DIR_FIXTURE_H

#include "store.h"

struct fixture {
    char dir[64];
    struct store *s;
};

/* cmocka setup/teardown: *state is a struct fixture whose store lives in
 * /tmp/<program>.XXXXXX, removed again by the teardown. */
int store_dir_fixture_setup(void **state);
int store_dir_fixture_teardown(void **state);
/* A valid AgentInvocation called name; the caller frees it. */
char *store_dir_fixture_spec(const char *name, int deadline);

#endif
