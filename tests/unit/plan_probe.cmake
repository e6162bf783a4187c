# The boundary probe's create body and output reading (plan/rc_probe.*):
# pure, no Docker.
agentctl_unit_test(test_rc_probe
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_probe.c LIBS plan)

# The probe program's socket loop and DNS messages (images/probe_io.c,
# images/probe_facts.c), on loopback only.
agentctl_unit_test(test_probe_io
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_probe_io.c
          ${CMAKE_SOURCE_DIR}/images/probe_io.c
          ${CMAKE_SOURCE_DIR}/images/probe_facts.c)
target_include_directories(test_probe_io PRIVATE ${CMAKE_SOURCE_DIR}/images)
