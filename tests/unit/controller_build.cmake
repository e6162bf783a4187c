# Build slots (controller/try/try_build.c): boxes built a few at a time, the
# slots handed out in the order the invocations asked.
agentctl_unit_test(test_ctl_build
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ctl_build.c
  LIBS ctlcore)
