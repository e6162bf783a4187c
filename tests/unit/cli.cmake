# cli/ (library clicore): the one argument parser, Go-style durations,
# label selectors, JSONPath templates, get's resource words and pool rows.
agentctl_unit_test(test_cli_parse
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_parse.c LIBS clicore)
target_include_directories(test_cli_parse PRIVATE ${CMAKE_SOURCE_DIR}/cli)
agentctl_unit_test(test_crd_descriptions
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_crd_descriptions.c LIBS clicore)
target_include_directories(test_crd_descriptions PRIVATE ${CMAKE_SOURCE_DIR}/cli)
