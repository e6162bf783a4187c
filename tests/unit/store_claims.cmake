# The claim seam of the stores without an etcd (tests/unit/test_store_claims.c).
agentctl_unit_test(test_store_claims
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_claims.c LIBS store)
