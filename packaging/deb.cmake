# deb.cmake - `cpack -G DEB` in a build configured with
# -DCMAKE_INSTALL_PREFIX=/usr makes agentctl_<version>_<arch>.deb: the
# library dependencies read off the binaries by dpkg-shlibdeps, the
# service user made by postinst, the config a conffile (an upgrade keeps
# the operator's copy). tests/integration/package/test_deb_install.sh
# installs it in a fresh Debian 12 root.
set(CPACK_PACKAGE_NAME agentctl)
set(CPACK_PACKAGE_VENDOR agentctl)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "run AI coding agents boxed in Docker (agentctl, agent-controller)")
set(CPACK_PACKAGE_DESCRIPTION
  "agent-controller runs AgentInvocation resources (a watched directory or\n\
etcd) as Docker containers behind a declared, re-proven boundary: an\n\
internal network, egress only through an allowlisting proxy, the vendor's\n\
key held by a credential gateway. agentctl declares and inspects them.")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "agentctl maintainers <maintainers@agentctl.dev>"
  CACHE STRING "The Maintainer field of the .deb")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/agentctl/agentctl")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# passwd: postinst's useradd. docker.io: the controller's reason to be,
# but a host may run Docker from elsewhere (docker-ce).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "passwd")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "docker.io | docker-ce")
set(CPACK_STRIP_FILES ON)
# The install rules use absolute paths for /etc (GNUInstallDirs puts a
# /usr prefix's config there): install into the package root as DESTDIR.
set(CPACK_SET_DESTDIR ON)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})

file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/deb/conffiles
  "${CMAKE_INSTALL_FULL_SYSCONFDIR}/agentctl/controller.yaml\n")
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/postinst.in
  ${CMAKE_CURRENT_BINARY_DIR}/deb/postinst @ONLY
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
  GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${CMAKE_CURRENT_BINARY_DIR}/deb/conffiles
  ${CMAKE_CURRENT_BINARY_DIR}/deb/postinst)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cpack_check.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/cpack_check.cmake @ONLY)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_BINARY_DIR}/cpack_check.cmake)

include(CPack)
