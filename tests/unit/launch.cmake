# agent-launch: its runner tool (images/launch_runner.c, launch_mcp.c,
# launch_json.c): the JSON reader, the MCP dialogue and a real runner
# service on a unix socket in a temporary directory.
agentctl_unit_test(test_launch_mcp
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_launch_mcp.c
          ${CMAKE_SOURCE_DIR}/images/launch_json.c
          ${CMAKE_SOURCE_DIR}/images/launch_mcp.c
          ${CMAKE_SOURCE_DIR}/images/launch_runner.c
          ${CMAKE_SOURCE_DIR}/images/launch_path.c)
target_include_directories(test_launch_mcp PRIVATE ${CMAKE_SOURCE_DIR}/images)

# agent-launch's policy file and its confinement (images/launch_policy.c,
# launch_landlock.c, launch_seccomp.c), applied for real in forked children.
agentctl_unit_test(test_launch_confine
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_launch_confine.c
          ${CMAKE_SOURCE_DIR}/images/launch_policy.c
          ${CMAKE_SOURCE_DIR}/images/launch_landlock.c
          ${CMAKE_SOURCE_DIR}/images/launch_seccomp.c)
target_include_directories(test_launch_confine PRIVATE ${CMAKE_SOURCE_DIR}/images)

# agent-launch's wait mode (images/launch_order.c, launch_wait.c): the
# order's checks, the nonce with its negative control, the inotify wait.
agentctl_unit_test(test_launch_order
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_launch_order.c
          ${CMAKE_SOURCE_DIR}/images/launch_order.c
          ${CMAKE_SOURCE_DIR}/images/launch_wait.c
          ${CMAKE_SOURCE_DIR}/images/launch_json.c)
target_include_directories(test_launch_order PRIVATE ${CMAKE_SOURCE_DIR}/images)
