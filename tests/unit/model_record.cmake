# The attempt record (model/ctl_record.h): the status document's round
# trip, forward compatibility and the resets, on fixture documents.
agentctl_unit_test(test_ctl_record
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ctl_record.c
  LIBS model)
