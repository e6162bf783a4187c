# Controller configuration (controller/ctl_config.*): loading, errors with
# line:col, admission of specs.
agentctl_unit_test(test_ctl_config
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ctl_config.c LIBS ctlconfig)
target_compile_definitions(test_ctl_config PRIVATE
  TEST_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
