# Desired state of one attempt (reconcile/rc_desired.*, rc_names.c): pure,
# no Docker.
agentctl_unit_test(test_rc_desired
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_desired.c LIBS rcdesired)
agentctl_unit_test(test_rc_desired_storage
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_desired_storage.c LIBS rcdesired)
