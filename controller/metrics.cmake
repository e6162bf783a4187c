# controller/metrics.cmake - ctlmetrics: the metrics registry and its
# Prometheus text format (obs/obs_metrics.c), and the /metrics + /healthz
# endpoint, libmicrohttpd driven by the controller's libev loop with no
# threads (obs/obs_metrics_http.c).
add_library(ctlmetrics STATIC ${CMAKE_CURRENT_LIST_DIR}/obs/obs_metrics.c
            ${CMAKE_CURRENT_LIST_DIR}/obs/obs_metrics_process.c
            ${CMAKE_CURRENT_LIST_DIR}/obs/obs_metrics_http.c)
target_include_directories(ctlmetrics PUBLIC ${ctl_include_dirs})
target_link_libraries(ctlmetrics PUBLIC common libev PRIVATE PkgConfig::MHD m)
