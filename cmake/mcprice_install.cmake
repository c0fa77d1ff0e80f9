# find_package(mcprice) support: export the library targets under the mcprice:: namespace.
include(CMakePackageConfigHelpers)

install(TARGETS mcprice_memory mcprice_kernels mcprice_engine
        EXPORT mcpriceTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(part memory kernels engine)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${part}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(DIRECTORY ${PROJECT_BINARY_DIR}/generated/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT mcpriceTargets NAMESPACE mcprice::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mcprice)
configure_package_config_file(cmake/mcpriceConfig.cmake.in
        ${PROJECT_BINARY_DIR}/mcpriceConfig.cmake
        INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mcprice)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mcpriceConfigVersion.cmake
        COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mcpriceConfig.cmake ${PROJECT_BINARY_DIR}/mcpriceConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mcprice)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/ DESTINATION ${CMAKE_INSTALL_DATADIR}/mcprice)
