# images.cmake - the helper images in the package. agent-controller never
# pulls: the images it runs (packaging/images.txt) must be on the host.
# With -DAGENTCTL_PACKAGE_IMAGES=DIR (made by `hack/images.sh --save DIR`
# on a host with Docker) their `docker save` tarballs go into
# DATADIR/agentctl/images and postinst loads them when the daemon is
# reachable; libexec/agentctl/load-images loads them later (docs/install.md).
set(AGENTCTL_PACKAGE_IMAGES "" CACHE PATH
  "A directory of docker-save tarballs (hack/images.sh --save DIR) to ship")
set(images_dir ${CMAKE_INSTALL_FULL_DATADIR}/agentctl/images)
set(load_images ${CMAKE_INSTALL_FULL_LIBEXECDIR}/agentctl/load-images)
file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/images.txt image_names REGEX "^[a-z]")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${CMAKE_CURRENT_SOURCE_DIR}/images.txt ${CMAKE_CURRENT_SOURCE_DIR}/load-images.in)
if(AGENTCTL_PACKAGE_IMAGES)
  set(tarballs)
  foreach(name ${image_names})
    set(t ${AGENTCTL_PACKAGE_IMAGES}/${name}.tar)
    if(NOT EXISTS ${t})
      message(FATAL_ERROR "AGENTCTL_PACKAGE_IMAGES: ${t} does not exist: "
        "make the tarballs with hack/images.sh --save ${AGENTCTL_PACKAGE_IMAGES}")
    endif()
    list(APPEND tarballs ${t})
  endforeach()
  install(FILES ${tarballs} DESTINATION ${CMAKE_INSTALL_DATADIR}/agentctl/images)
endif()
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/load-images.in
  ${CMAKE_CURRENT_BINARY_DIR}/load-images @ONLY)
install(PROGRAMS ${CMAKE_CURRENT_BINARY_DIR}/load-images
  DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/agentctl)
