# The controller's group status write on a store that groups (etcd's way,
# played by a directory store whose async answer the test holds back):
# record, then act (controller/try/try_write.c with the Docker client's hold).
agentctl_unit_test(test_ctl_write
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ctl_write.c
          ${CMAKE_CURRENT_LIST_DIR}/ctl_fixture.c
          ${CMAKE_CURRENT_LIST_DIR}/test_dk_fake.c
  LIBS ctlcore)
