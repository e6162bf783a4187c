# controller/obs/obs_observe.c's observation points into the registry: the
# config reload gauge and the gateway usage families (ctlcore).
agentctl_unit_test(test_ctl_observe
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ctl_observe.c
  LIBS ctlcore)
