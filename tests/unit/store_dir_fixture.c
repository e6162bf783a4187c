/* store_dir_fixture.c - see store_dir_fixture.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "store_dir_fixture.h"

extern const char *__progname;

int
store_dir_fixture_setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));

    assert_non_null(fx);
    snprintf(fx->dir, sizeof(fx->dir), "/tmp/%.40s.XXXXXX", __progname);
    assert_non_null(mkdtemp(fx->dir));
    fx->s = store_dir_open(fx->dir, NULL, NULL);
    assert_non_null(fx->s);
    *state = fx;
    return 0;
}

int
store_dir_fixture_teardown(void **state)
{
    struct fixture *fx = *state;
    char cmd[128];

    store_close(fx->s);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
    assert_int_equal(system(cmd), 0);
    free(fx);
    return 0;
}

char *
store_dir_fixture_spec(const char *name, int deadline)
{
    char *t = NULL;

    assert_true(asprintf(&t,
                         "apiVersion: agentctl.dev/v1alpha1\n"
                         "kind: AgentInvocation\n"
                         "metadata:\n  name: %s\n"
                         "spec:\n  vendor: fake\n  phase: execute\n"
                         "  image: agentctl/demo-agent:0.1.0\n"
                         "  command: [demo-agent]\n"
                         "  deadlineSeconds: %d\n",
                         name, deadline) > 0);
    return t;
}
