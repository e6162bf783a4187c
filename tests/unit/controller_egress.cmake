# The live egress audit's pure parts (controller/inv/inv_auditline.h): the
# resume rule, Docker's timestamps, line framing under a cap, strict
# lines and their rendering with the credential redacted.
agentctl_unit_test(test_ctl_auditline
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ctl_auditline.c
  LIBS ctlcore)
