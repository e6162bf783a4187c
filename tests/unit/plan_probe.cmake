# The boundary probe's create body and output reading (plan/rc_probe.*):
# pure, no Docker.
agentctl_unit_test(test_rc_probe
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_probe.c LIBS plan)

# The probe program's socket loop, DNS messages and gateway check
# (images/probe_io.c, probe_facts.c, probe_http.c), on loopback only.
agentctl_unit_test(test_probe_io
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_probe_io.c
          ${CMAKE_SOURCE_DIR}/images/probe_http.c
          ${CMAKE_SOURCE_DIR}/images/probe_io.c
          ${CMAKE_SOURCE_DIR}/images/probe_facts.c)
target_include_directories(test_probe_io PRIVATE ${CMAKE_SOURCE_DIR}/images)
