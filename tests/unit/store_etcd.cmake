# The etcd store: unit tests of its pure parts (no etcd needed), and the
# store contract program that tests/integration/store/ runs against a
# directory and a live etcd (not a ctest unit: it needs etcd).
agentctl_unit_test(test_store_etcd
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_etcd.c LIBS store)
add_executable(store_contract
  ${CMAKE_CURRENT_LIST_DIR}/../store/store_contract.c)
target_link_libraries(store_contract PRIVATE store PkgConfig::CURL)
# The informer cache of the etcd store (pure).
agentctl_unit_test(test_store_etcd_cache
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_etcd_cache.c LIBS store)
