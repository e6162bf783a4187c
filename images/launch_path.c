/* launch_path.c - where agent-launch finds a program by name: the CLI it
 * execs and the runner it runs take the same PATH search, so neither can
 * be made to pick a file in the working directory. */
#include "launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
launch_path_find(const char *name, char *out, size_t size)
{
    const char *path = getenv("PATH"), *s, *e;

    if (strchr(name, '/') != NULL)
        return snprintf(out, size, "%s", name) < (int)size &&
                       access(out, X_OK) == 0 ? 0 : -1;
    if (path == NULL || path[0] == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    for (s = path; *s != '\0'; s = *e == ':' ? e + 1 : e) {
        e = strchrnul(s, ':');
        if (*s != '/')
            continue; /* an empty or relative entry means the cwd: never */
        if (snprintf(out, size, "%.*s/%s", (int)(e - s), s, name) <
                (int)size &&
            access(out, X_OK) == 0)
            return 0;
    }
    return -1;
}
