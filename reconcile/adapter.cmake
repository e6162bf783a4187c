# reconcile/adapter.cmake - rcadapter: vendor adapters (rc_adapter), the
# agent's argv, env and config files for a prompt spec per vendor and
# phase. Pure: no Docker, no I/O. Included from reconcile/CMakeLists.txt.
add_library(rcadapter STATIC
  ${CMAKE_CURRENT_LIST_DIR}/rc_adapter.c
  ${CMAKE_CURRENT_LIST_DIR}/rc_adapter_claude.c
  ${CMAKE_CURRENT_LIST_DIR}/rc_adapter_codex.c
  ${CMAKE_CURRENT_LIST_DIR}/rc_adapter_generic.c
)
target_include_directories(rcadapter PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(rcadapter PUBLIC specs common PkgConfig::CJSON)
