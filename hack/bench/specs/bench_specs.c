/* bench_specs.c - parse + validate spec files, or only run libyaml's bare
 * event parse over them (the floor), and report files per second and peak
 * RSS. Usage: bench_specs load|floor LISTFILE
 * LISTFILE holds one path per line; every file is read from disk in both
 * modes, so the ratio compares like with like. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <yaml.h>

#include "spec.h"

static char *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p;
    long n;

    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    p = malloc((size_t)n + 1);
    *len = fread(p, 1, (size_t)n, f);
    fclose(f);
    return p;
}

/* The floor: every event of the file, then nothing else. */
static int
floor_parse(const char *path)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    size_t len;
    char *data = slurp(path, &len);
    int done = 0, ok = 1;

    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (unsigned char *)data, len);
    while (!done) {
        if (!yaml_parser_parse(&parser, &ev)) {
            ok = 0;
            break;
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    free(data);
    return ok;
}

static int
full_load(const char *path)
{
    struct spec_file f;
    int ok = spec_load_file(path, &f) == 0;

    spec_file_cleanup(&f);
    return ok;
}

int
main(int argc, char **argv)
{
    char line[4096];
    struct timespec a, b;
    struct rusage ru;
    size_t n = 0, good = 0;
    int floor_mode;
    FILE *list;

    if (argc != 3 || (strcmp(argv[1], "load") && strcmp(argv[1], "floor")))
        return fprintf(stderr, "usage: bench_specs load|floor LIST\n"), 2;
    floor_mode = strcmp(argv[1], "floor") == 0;
    list = fopen(argv[2], "r");
    if (list == NULL)
        return perror(argv[2]), 2;
    clock_gettime(CLOCK_MONOTONIC, &a);
    while (fgets(line, sizeof(line), list) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        good += floor_mode ? floor_parse(line) : full_load(line);
        n++;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    fclose(list);
    getrusage(RUSAGE_SELF, &ru);
    double secs = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
    printf("%s files=%zu ok=%zu seconds=%.3f per_second=%.0f maxrss_kib=%ld\n",
           argv[1], n, good, secs, (double)n / secs, ru.ru_maxrss);
    return good == n ? 0 : 1;
}
