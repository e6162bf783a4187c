agentctl_unit_test(test_store_dir
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_dir.c
          ${CMAKE_CURRENT_LIST_DIR}/store_dir_fixture.c LIBS store)
agentctl_unit_test(test_store_dir_index
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_dir_index.c LIBS store)
agentctl_unit_test(test_store_dir_batch
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_dir_batch.c
          ${CMAKE_CURRENT_LIST_DIR}/store_dir_fixture.c LIBS store)
agentctl_unit_test(test_store_terminating
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_terminating.c
          ${CMAKE_CURRENT_LIST_DIR}/store_dir_fixture.c LIBS store)
