/* loop_docker.h - whether the Docker daemon answers (loop_docker.c): asked at
 * start, while it is unreachable, and when an event stream ends; when it
 * answers again, c->docker_back (set by loop_main.c) restarts what needs it. */
#ifndef LOOP_DOCKER_H
#define LOOP_DOCKER_H

#include "ctl.h"

/* Ask the daemon for its version (one request at a time). */
void loop_check_docker(struct ctl *c);

#endif
