# Unit tests of the proxy's pure modules (proxy/px_*.c).
foreach(t px_allow px_addr px_answer px_request)
  agentctl_unit_test(test_${t}
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_${t}.c LIBS px_core)
endforeach()
