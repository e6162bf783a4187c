# reconcile/desired.cmake - rcdesired: the desired state of one attempt
# (rc_desired: Engine API create bodies from spec + controller config +
# capture-time inputs) and its small pure helpers (rc_names: roles,
# subnets, JSON pointer, golden checks, redaction). No Docker, no I/O.
# Included from reconcile/CMakeLists.txt.
add_library(rcdesired STATIC
  ${CMAKE_CURRENT_LIST_DIR}/rc_desired.c
  ${CMAKE_CURRENT_LIST_DIR}/rc_names.c
)
target_include_directories(rcdesired PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(rcdesired PUBLIC ctlconfig rcadapter specs common PkgConfig::CJSON)
