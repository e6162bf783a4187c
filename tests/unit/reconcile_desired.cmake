# Desired state of one attempt (reconcile/rc_desired.*, rc_names.c): pure,
# no Docker.
agentctl_unit_test(test_rc_desired
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_desired.c LIBS rcdesired)
