# Docker Engine API client (docker/dk_*): a fake daemon on a unix
# socket for the client, and the pure logs demultiplexer.
agentctl_unit_test(test_dk_client
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_dk_client.c
          ${CMAKE_CURRENT_LIST_DIR}/test_dk_fake.c
  LIBS docker)
agentctl_unit_test(test_dk_stream
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_dk_stream.c
          ${CMAKE_CURRENT_LIST_DIR}/test_dk_fake.c
  LIBS docker)
agentctl_unit_test(test_dk_logs
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_dk_logs.c LIBS docker)
# One line of the event stream read (docker/dk_event.c).
agentctl_unit_test(test_dk_event
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_dk_event.c LIBS docker)
# The typed Engine API calls (docker/dk_engine.c): method, path, query and
# body of each, against the fake daemon.
agentctl_unit_test(test_dk_engine
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_dk_engine.c
          ${CMAKE_CURRENT_LIST_DIR}/test_dk_fake.c
  LIBS docker)
# GET /info's SecurityOptions: seccomp required, AppArmor noticed.
agentctl_unit_test(test_dk_info
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_dk_info.c LIBS docker)
# A request body streamed from a descriptor (dk_body_stream): pause,
# resume, an end hook that refuses, cancel while paused.
agentctl_unit_test(test_dk_upload
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_dk_upload.c
          ${CMAKE_CURRENT_LIST_DIR}/test_dk_fake.c
  LIBS docker)
