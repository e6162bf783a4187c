# Controller configuration (model/cfg*): loading, errors with
# line:col, admission of specs; gw_core for the check that the config and
# agent-gateway agree on every gateway rule.
agentctl_unit_test(test_cfg
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cfg.c LIBS model gw_core)
target_compile_definitions(test_cfg PRIVATE
  TEST_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
agentctl_unit_test(test_cfg_gateway
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cfg_gateway.c LIBS model)
