# tests/images/ - programs that exist only inside test images, built like
# the product's image programs (static with AGENTCTL_STATIC).
add_executable(fake-vendor-cli ${CMAKE_CURRENT_LIST_DIR}/fake_vendor_cli.c
  ${CMAKE_CURRENT_LIST_DIR}/fake_confine.c)
if(AGENTCTL_STATIC)
  target_link_options(fake-vendor-cli PRIVATE -s)
endif()

# tls-vendor: the TLS test vendor of tests/integration/vendors/
# (hack/images/build-tls-vendor.sh). OpenSSL is linked statically in the
# image build; JSON is its own (vendor/tv_json.c).
add_executable(tls-vendor ${CMAKE_CURRENT_LIST_DIR}/vendor/tls_vendor.c
  ${CMAKE_CURRENT_LIST_DIR}/vendor/tv_reply.c
  ${CMAKE_CURRENT_LIST_DIR}/vendor/tv_json.c)
pkg_check_modules(TV_SSL REQUIRED IMPORTED_TARGET libssl)
target_link_libraries(tls-vendor PRIVATE PkgConfig::TV_SSL PkgConfig::CRYPTO)
if(AGENTCTL_STATIC)
  target_link_options(tls-vendor PRIVATE -s)
endif()
