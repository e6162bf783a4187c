# Controller configuration (model/cfg*): loading, errors with
# line:col, admission of specs.
agentctl_unit_test(test_cfg
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cfg.c LIBS model)
target_compile_definitions(test_cfg PRIVATE
  TEST_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
