# agent-launch's runner tool (images/launch_runner.c, launch_mcp.c,
# launch_json.c): the JSON reader, the MCP dialogue and a real runner
# service on a unix socket in a temporary directory.
agentctl_unit_test(test_launch_mcp
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_launch_mcp.c
          ${CMAKE_SOURCE_DIR}/images/launch_json.c
          ${CMAKE_SOURCE_DIR}/images/launch_mcp.c
          ${CMAKE_SOURCE_DIR}/images/launch_runner.c)
target_include_directories(test_launch_mcp PRIVATE ${CMAKE_SOURCE_DIR}/images)
