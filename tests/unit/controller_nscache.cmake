# The other containers' namespace modes by ID (controller/drift/drift_nscache.h).
agentctl_unit_test(test_ctl_nscache
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ctl_nscache.c
  LIBS ctlcore)
