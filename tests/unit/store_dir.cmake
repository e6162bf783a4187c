agentctl_unit_test(test_store_dir
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_dir.c LIBS store)
