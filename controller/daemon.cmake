# agent-controller - the controller daemon (ctl_*.c; see ctl.h for the map).
set(ctl_core_sources loop/loop_sync.c loop/loop_events.c loop/loop_gc.c pass/pass_inv.c
  pass/pass_prepare.c box/box_boxreq.c box/box_network.c box/box_create.c box/box_probe.c inv/inv_probing.c box/box_canary.c box/box_git.c
  pass/pass_run.c drift/drift_verify.c drift/drift_neighbours.c drift/drift_nscache.c drift/drift.c pass/pass_cleanup.c
  try/try_claim.c drift/drift_objects.c try/try_attempt.c pass/pass_plan.c inv/inv_stop.c try/try_result.c
  try/try_build.c box/box_pool.c box/box.c box/box_egressnet.c drift/drift_start.c drift/drift_pins.c inv/inv_pinset.c inv/inv_queue.c loop/loop_docker.c try/try_condition.c pass/pass_waiting.c obs/obs_invalid.c inv/inv_status.c try/try_write.c
  obs/obs_observe.c
  ctl_testhooks.c out/out_ws.c
  inv/inv_wsjob.c out/out_egress.c inv/inv_egressjob.c inv/inv_auditline.c out/out_secret.c
  out/out_changes.c inv/inv_changesjob.c out/out_resultread.c inv/inv_resultjob.c obs/obs_usage.c out/out_usage_record.c)
set(ctl_sources loop/loop_main.c loop/loop_flags.c ${ctl_core_sources})
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

# The daemon without loop/loop_main.c, for unit tests that drive its functions
# (tests/unit/controller_stop.cmake); the test supplies loop_check_docker().
# Built only when a test asks for it.
add_library(ctlcore STATIC EXCLUDE_FROM_ALL ${ctl_core_sources})
target_link_libraries(ctlcore PUBLIC ${ctl_libs})
