# agent-controller - the controller daemon (ctl_*.c; see ctl.h for the map).
set(ctl_core_sources ctl_sync.c ctl_events.c ctl_gc.c ctl_inv.c
  ctl_prepare.c ctl_boxreq.c ctl_network.c ctl_create.c ctl_probe.c ctl_probing.c ctl_canary.c ctl_git.c
  ctl_run.c ctl_verify.c ctl_neighbours.c ctl_nscache.c ctl_drift.c ctl_cleanup.c
  ctl_claim.c ctl_objects.c ctl_attempt.c ctl_plan.c ctl_stop.c ctl_result.c
  ctl_build.c ctl_pool.c ctl_box.c ctl_egressnet.c ctl_start.c ctl_pins.c ctl_pinset.c ctl_queue.c ctl_docker.c ctl_condition.c ctl_waiting.c ctl_invalid.c ctl_status.c ctl_write.c
  ctl_observe.c
  ctl_testhooks.c ctl_ws.c
  ctl_wsjob.c ctl_egress.c ctl_egressjob.c ctl_auditline.c ctl_secret.c
  ctl_changes.c ctl_changesjob.c ctl_resultread.c ctl_resultjob.c ctl_usage.c ctl_usage_record.c)
set(ctl_sources ctl_main.c ctl_flags.c ${ctl_core_sources})
set(ctl_libs ctlmetrics plan hostio store docker model common launch_blob
  m)
add_executable(agent-controller ${ctl_sources})
target_link_libraries(agent-controller PRIVATE ${ctl_libs})
install(TARGETS agent-controller RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The same daemon with test-only hooks (AGENTCTL_TEST_HOOKS): the drift
# suite's negative control switches single rules off through it. Never
# installed or used outside tests/.
add_executable(agent-controller-testhooks ${ctl_sources})
target_compile_definitions(agent-controller-testhooks PRIVATE
  AGENTCTL_TEST_HOOKS)
target_link_libraries(agent-controller-testhooks PRIVATE ${ctl_libs})

# The daemon without ctl_main.c, for unit tests that drive its functions
# (tests/unit/controller_stop.cmake); the test supplies ctl_check_docker().
# Built only when a test asks for it.
add_library(ctlcore STATIC EXCLUDE_FROM_ALL ${ctl_core_sources})
target_link_libraries(ctlcore PUBLIC ${ctl_libs})
