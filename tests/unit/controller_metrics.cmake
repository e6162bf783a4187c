# controller/obs_metrics (library ctlmetrics): registry golden renders, and
# the endpoint served from a real ev_loop on 127.0.0.1 port 0.
agentctl_unit_test(test_ctl_metrics
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ctl_metrics.c LIBS ctlmetrics m)
