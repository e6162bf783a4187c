/* loop_flags.h - agent-controller's flag table: every flag's name, value,
 * meaning and default in one place. loop_main.c builds its getopt_long
 * options from it and --help prints it, and the agent-controller(8) man
 * page is made from that --help (hack/man/genman.sh), so a flag added
 * here is parsed, documented and in the manual at once. */
#ifndef LOOP_FLAGS_H
#define LOOP_FLAGS_H

#include <stdio.h>

struct loop_flag {
    const char *name; /* long name, without the dashes */
    int code;         /* what getopt_long returns for it */
    const char *arg;  /* the value's placeholder; NULL: takes none */
    const char *help; /* what it does, one sentence or two */
    const char *def;  /* the default as a user reads it; NULL: none */
};

/* The table: CTL_NFLAGS rows, then one whose name is NULL. */
#define CTL_NFLAGS 23
extern const struct loop_flag ctl_flags[CTL_NFLAGS + 1];

/* The synopsis (to out), e.g. after a usage error. */
void loop_flags_usage(FILE *out);
/* --help: the synopsis, then every flag with its meaning and default,
 * then the exit codes and the environment. */
void loop_flags_help(FILE *out);

#endif
