# agent-controller - the controller daemon (ctl_*.c; see ctl.h for the map).
add_executable(agent-controller ctl_main.c ctl_sync.c ctl_inv.c
  ctl_prepare.c ctl_run.c ctl_cleanup.c ctl_status.c ctl_observe.c ctl_events.c ctl_gc.c)
target_link_libraries(agent-controller PRIVATE ctlconfig ctlmetrics
  rcdesired rcio dkclient specs m)
