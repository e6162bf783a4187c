# Desired state of one attempt (plan/rc_desired.*, rc_names.c): pure,
# no Docker.
agentctl_unit_test(test_rc_desired
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_desired.c LIBS plan)
agentctl_unit_test(test_rc_desired_storage
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_desired_storage.c LIBS plan)
# The step planner (plan/plan_step.c): the next step per record, as a
# table, and the walk resumed from every step.
agentctl_unit_test(test_plan_step
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_plan_step.c LIBS plan)
# credentialMode gateway: the gateway, its key volume and tar, the agent's
# environment, the proxy's --deny-all.
agentctl_unit_test(test_rc_desired_gateway
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_desired_gateway.c LIBS plan)
# The waiting agent of a warm box (plan/rc_desired_warm.c): its body, its
# order, and the launcher's own order parser (images/launch_order.c)
# accepting what the plan writes.
agentctl_unit_test(test_rc_desired_warm
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_desired_warm.c
          ${CMAKE_SOURCE_DIR}/images/launch_order.c
          ${CMAKE_SOURCE_DIR}/images/launch_json.c
  LIBS plan)
target_include_directories(test_rc_desired_warm PRIVATE
  ${CMAKE_SOURCE_DIR}/images)
