# The boundary probe's create body and output reading (plan/rc_probe.*):
# pure, no Docker.
agentctl_unit_test(test_rc_probe
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_probe.c LIBS plan)
