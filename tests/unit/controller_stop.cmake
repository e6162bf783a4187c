# The controller's stop rules (controller/inv/inv_stop.c inv_stop: the first
# stop reason is kept), driven through the daemon's own code (ctlcore) with
# a fake Docker daemon for the log stream. calloc is wrapped: a test makes
# the drift finding's allocation fail on demand.
agentctl_unit_test(test_ctl_stop
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ctl_stop.c
          ${CMAKE_CURRENT_LIST_DIR}/ctl_fixture.c
          ${CMAKE_CURRENT_LIST_DIR}/test_dk_fake.c
  LIBS ctlcore)
target_link_options(test_ctl_stop PRIVATE -Wl,--wrap=calloc)
