# controller/config.cmake - ctlconfig: the controller configuration loader
# and the admission check of a spec against it (pure: no Docker, no loop).
# Vendor hosts are checked with the proxy's own authority parser (px_core).
add_library(ctlconfig STATIC ${CMAKE_CURRENT_LIST_DIR}/ctl_config.c
  ${CMAKE_CURRENT_LIST_DIR}/ctl_config_admit.c)
target_include_directories(ctlconfig PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(ctlconfig PUBLIC specs common PRIVATE px_core)
