# reconcile/drift.cmake - rcdrift: the drift checker (rc_drift: one inspect
# result against the desired body and what the controller recorded, rule
# by rule from the one table in rc_drift_rules.c). Pure: no Docker, no
# I/O. Included from reconcile/CMakeLists.txt.
add_library(rcdrift STATIC
  ${CMAKE_CURRENT_LIST_DIR}/rc_drift.c
  ${CMAKE_CURRENT_LIST_DIR}/rc_drift_net.c
  ${CMAKE_CURRENT_LIST_DIR}/rc_drift_rules.c
)
target_include_directories(rcdrift PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(rcdrift PUBLIC rcdesired PkgConfig::CJSON)
