# hostio/rc_workspace, rc_credential, rc_output, rc_changes (library hostio): real
# files in mkdtemp() directories under /tmp.
agentctl_unit_test(test_rc_credential
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_credential.c LIBS hostio)
agentctl_unit_test(test_rc_output
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_output.c
  LIBS hostio PkgConfig::CRYPTO)
agentctl_unit_test(test_rc_workspace
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_workspace.c
  LIBS hostio PkgConfig::ARCHIVE)
agentctl_unit_test(test_rc_git_digest
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_git_digest.c
  LIBS hostio plan PkgConfig::ARCHIVE)
agentctl_unit_test(test_rc_changes
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_changes.c
  LIBS hostio PkgConfig::ARCHIVE PkgConfig::CJSON)
agentctl_unit_test(test_rc_result
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_result.c LIBS hostio)
