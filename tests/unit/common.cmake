agentctl_unit_test(test_common
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_common.c LIBS common)
# The host:port parser (common/hostport.c) the proxy and the config share.
agentctl_unit_test(test_hostport
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hostport.c LIBS common)
# The gateway rule syntax (common/http_rule.c) agent-gateway and the
# config share.
agentctl_unit_test(test_http_rule
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_http_rule.c LIBS common)
# Strict UTF-8 over a buffer (common/utf8.c): spec files and results.
agentctl_unit_test(test_utf8
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_utf8.c LIBS common)
