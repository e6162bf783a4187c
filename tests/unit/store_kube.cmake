# The Kubernetes API server store: unit tests of its pure parts (no API
# server needed); tests/integration/kube/ runs it against a real one.
agentctl_unit_test(test_store_kube_config
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_kube_config.c LIBS store)
agentctl_unit_test(test_store_kube_object
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_kube_object.c LIBS store)
agentctl_unit_test(test_store_kube_lease
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_kube_lease.c LIBS store)
agentctl_unit_test(test_store_kube_cache
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_kube_cache.c LIBS store)
# The claims and status writes against a fake API server: the test's
# store__kube_request (and store__kube_send_async) replace the store's.
agentctl_unit_test(test_store_kube_claims
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_kube_claims.c LIBS store)
target_link_options(test_store_kube_claims PRIVATE
  -Wl,--wrap=store__kube_request -Wl,--wrap=store__kube_send_async
  -Wl,--wrap=calloc -Wl,--wrap=free)
