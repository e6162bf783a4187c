# tests/images/ - programs that exist only inside test images, built like
# the product's image programs (static with AGENTCTL_STATIC).
add_executable(fake-vendor-cli ${CMAKE_CURRENT_LIST_DIR}/fake_vendor_cli.c)
if(AGENTCTL_STATIC)
  target_link_options(fake-vendor-cli PRIVATE -s)
endif()
