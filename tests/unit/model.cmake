agentctl_unit_test(test_spec_quantity
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spec_quantity.c LIBS model)
agentctl_unit_test(test_spec_yaml
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spec_yaml.c LIBS model)
agentctl_unit_test(test_spec_validate
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spec_validate.c LIBS model)
agentctl_unit_test(test_spec_json
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spec_json.c LIBS model)
agentctl_unit_test(test_spec_crd
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spec_crd.c LIBS model)
agentctl_unit_test(test_spec_jschema
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spec_jschema.c LIBS model)
