# status.usage (controller/obs/obs_usage.c): the gateway's audit lines summed,
# through the daemon's own code (ctlcore).
agentctl_unit_test(test_ctl_usage
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ctl_usage.c
  LIBS ctlcore)
