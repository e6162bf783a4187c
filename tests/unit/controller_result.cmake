# The result interpreter (controller/try/try_result.c): what each step result
# queues, the backoff, and a refused spec that must not spin the loop,
# through the daemon's own code (ctlcore).
agentctl_unit_test(test_ctl_result
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ctl_result.c
  LIBS ctlcore)
