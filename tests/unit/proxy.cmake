# Unit tests of the proxy's pure modules (proxy/px_*.c) and of the
# gateway's (proxy/gw_*.c).
foreach(t px_allow px_addr px_answer px_request)
  agentctl_unit_test(test_${t}
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_${t}.c LIBS px_core)
endforeach()
foreach(t gw_http gw_policy gw_head gw_audit gw_key gw_json gw_body gw_usage)
  agentctl_unit_test(test_${t}
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_${t}.c LIBS gw_core)
endforeach()
# The proxy's connection deadline on a real loop (proxy/px_conn.c; the
# loop is fuzzed whole by hack/fuzz/fuzz_px_conn.c).
agentctl_unit_test(test_px_conn
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_px_conn.c
          ${CMAKE_SOURCE_DIR}/proxy/px_conn.c ${CMAKE_SOURCE_DIR}/proxy/px_dns.c
          ${CMAKE_SOURCE_DIR}/proxy/px_listen.c ${CMAKE_SOURCE_DIR}/proxy/px_pump.c
  LIBS px_core libev PkgConfig::CARES)
# The tunnel pump alone (proxy/px_pump.c) on loopback TCP: splice, the
# slow reader, EOF with bytes in the pipe, the copying fallback.
agentctl_unit_test(test_px_pump
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_px_pump.c
          ${CMAKE_SOURCE_DIR}/proxy/px_pump.c
  LIBS px_core libev)
