/* dk_info.c - what GET /info says about the confinement Docker gives a
 * container: whether a seccomp profile applies (and which) and whether the
 * host has AppArmor. The controller refuses to run boxes without seccomp
 * (docs/security-defaults.md). Pure: reads the parsed answer only. */
#include "dk_engine.h"

#include <stdio.h>
#include <string.h>

/* The value of key k in one "name=x,k=v,..." entry, into out. */
static void
option_value(const char *entry, const char *k, char *out, size_t n)
{
    size_t kl = strlen(k);

    out[0] = '\0';
    for (const char *p = entry; p != NULL; p = strchr(p, ',')) {
        if (*p == ',')
            p++;
        if (strncmp(p, k, kl) == 0 && p[kl] == '=') {
            snprintf(out, n, "%.*s", (int)strcspn(p + kl + 1, ","), p + kl + 1);
            return;
        }
    }
}

int
dk_security_from_info(const cJSON *info, struct dk_security *out, struct err *e)
{
    const cJSON *opts =
        cJSON_GetObjectItemCaseSensitive(info, "SecurityOptions");
    const cJSON *it;

    memset(out, 0, sizeof(*out));
    cJSON_ArrayForEach(it, opts)
    {
        const char *s = cJSON_GetStringValue(it);
        char name[32];

        if (s == NULL)
            continue;
        option_value(s, "name", name, sizeof(name));
        if (strcmp(name, "seccomp") == 0) {
            out->seccomp = true;
            option_value(s, "profile", out->seccomp_profile,
                         sizeof(out->seccomp_profile));
        } else if (strcmp(name, "apparmor") == 0) {
            out->apparmor = true;
        }
    }
    if (!out->seccomp)
        return err_set(e, ERR_INVALID,
                       "the Docker daemon applies no seccomp profile to "
                       "containers (GET /info SecurityOptions lists none): "
                       "refusing to run boxes without one");
    if (strcmp(out->seccomp_profile, "unconfined") == 0) {
        out->seccomp = false;
        return err_set(e, ERR_INVALID,
                       "the Docker daemon's seccomp profile is unconfined "
                       "(GET /info SecurityOptions): refusing to run boxes "
                       "without one");
    }
    return 0;
}
