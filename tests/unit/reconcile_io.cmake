# reconcile/rc_workspace, rc_credential, rc_output (library rcio): real
# files in mkdtemp() directories under /tmp.
agentctl_unit_test(test_rc_credential
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_credential.c LIBS rcio)
agentctl_unit_test(test_rc_output
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_output.c
  LIBS rcio PkgConfig::CRYPTO)
agentctl_unit_test(test_rc_workspace
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_workspace.c
  LIBS rcio PkgConfig::ARCHIVE)
agentctl_unit_test(test_rc_git_digest
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rc_git_digest.c
  LIBS rcio PkgConfig::ARCHIVE)
