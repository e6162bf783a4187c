# Vendor adapters (plan/rc_adapter*.c): golden outputs per vendor and
# phase under tests/unit/golden/adapter/, plus the policy checks.
agentctl_unit_test(test_rc_adapter
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_adapter.c LIBS plan)
agentctl_unit_test(test_rc_adapter_result
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_adapter_result.c LIBS plan)
