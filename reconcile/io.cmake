# reconcile/io.cmake - rcio: the controller's file-side helpers that touch
# no Docker object: the workspace checker and tar builder (rc_workspace),
# the credential reader (rc_credential) and the bounded output capture
# (rc_output, which reuses dkclient's logs demultiplexer). Included from
# reconcile/CMakeLists.txt.
add_library(rcio STATIC
  ${CMAKE_CURRENT_LIST_DIR}/rc_credential.c
  ${CMAKE_CURRENT_LIST_DIR}/rc_output.c
  ${CMAKE_CURRENT_LIST_DIR}/rc_workspace.c
  ${CMAKE_CURRENT_LIST_DIR}/rc_tar_digest.c
  ${CMAKE_CURRENT_LIST_DIR}/rc_adapter_tar.c
)
target_include_directories(rcio PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(rcio PUBLIC common specs dkclient PkgConfig::CRYPTO
                      PkgConfig::ARCHIVE)

agentctl_fuzz_target(fuzz_rc_output
  SOURCES ${CMAKE_SOURCE_DIR}/hack/fuzz/fuzz_rc_output.c LIBS rcio)
