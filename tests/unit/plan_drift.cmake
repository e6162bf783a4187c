# The drift checker (plan/rc_drift*): pure, on one fixture
# (drift_fixture.c), against inspect results
# captured from dockerd (tests/unit/fixtures/drift/), and the agreement of
# its rule table with docs/drift-rules.md.
agentctl_unit_test(test_rc_drift
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_drift.c
  ${CMAKE_CURRENT_LIST_DIR}/drift_fixture.c LIBS plan)
target_compile_definitions(test_rc_drift PRIVATE
  TEST_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# Identity: a stand-in under the name, nothing under it (object.gone).
agentctl_unit_test(test_rc_drift_ids
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_drift_ids.c
  ${CMAKE_CURRENT_LIST_DIR}/drift_fixture.c LIBS plan)
target_compile_definitions(test_rc_drift_ids PRIVATE
  TEST_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# Other containers: namespace joiners and foreign mounts of the volumes.
agentctl_unit_test(test_rc_drift_neighbour
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_drift_neighbour.c
  ${CMAKE_CURRENT_LIST_DIR}/drift_fixture.c LIBS plan)
target_compile_definitions(test_rc_drift_neighbour PRIVATE
  TEST_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# container.waiting: a warm box's waiting agent (plan/rc_drift_wait.c).
agentctl_unit_test(test_rc_drift_wait
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_drift_wait.c
  ${CMAKE_CURRENT_LIST_DIR}/drift_fixture.c LIBS plan)
target_compile_definitions(test_rc_drift_wait PRIVATE
  TEST_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
