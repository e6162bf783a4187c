# controller/metrics.cmake - ctlmetrics: the metrics registry (Prometheus
# text format) and the /metrics + /healthz endpoint, libmicrohttpd driven
# by the controller's libev loop (no threads).
add_library(ctlmetrics STATIC ${CMAKE_CURRENT_LIST_DIR}/ctl_metrics.c)
target_include_directories(ctlmetrics PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(ctlmetrics PUBLIC common libev PRIVATE PkgConfig::MHD m)
