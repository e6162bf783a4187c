# reconcile/probe.cmake - rcprobe: the boundary probe of one attempt
# (rc_probe: the probe container's create body, copied from the agent's
# hardening, and the reading of its one JSON line). Pure, no Docker.
# Included from reconcile/CMakeLists.txt.
add_library(rcprobe STATIC
  ${CMAKE_CURRENT_LIST_DIR}/rc_probe.c
)
target_include_directories(rcprobe PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(rcprobe PUBLIC rcdesired common PkgConfig::CJSON)
