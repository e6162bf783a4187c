/* ctl_docker.h - whether the Docker daemon answers (ctl_docker.c): asked at
 * start, while it is unreachable, and when an event stream ends; when it
 * answers again, c->docker_back (set by ctl_main.c) restarts what needs it. */
#ifndef CTL_DOCKER_H
#define CTL_DOCKER_H

#include "ctl.h"

/* Ask the daemon for its version (one request at a time). */
void ctl_check_docker(struct ctl *c);

#endif
