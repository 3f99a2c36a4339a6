# Writes eltwise.pc for the install. Every path in it is relative to the file's own folder
# (${pcfiledir}), so an installed tree can be moved. A static libeltwise lists what it links as
# private requirements (pkg-config --static); a shared one needs none.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  message(WARNING "eltwise: an absolute CMAKE_INSTALL_LIBDIR or CMAKE_INSTALL_INCLUDEDIR makes "
                  "eltwise.pc non-relocatable")
endif()
file(RELATIVE_PATH ELTWISE_PC_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" ELTWISE_PC_PREFIX "${ELTWISE_PC_PREFIX}")

set(ELTWISE_PC_REQUIRES_PRIVATE "")
set(ELTWISE_PC_LIBS_PRIVATE "")
set(ELTWISE_PC_CFLAGS "")
if(ELTWISE_STATIC_LIBRARY)
  if(ELTWISE_WITH_HWY)
    set(ELTWISE_PC_REQUIRES_PRIVATE "libhwy")
  endif()
  if(ELTWISE_WITH_CUDA)
    string(APPEND ELTWISE_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt")
  endif()
  string(APPEND ELTWISE_PC_LIBS_PRIVATE " ${CMAKE_THREAD_LIBS_INIT}")
  if(ELTWISE_COVERAGE)
    string(APPEND ELTWISE_PC_LIBS_PRIVATE " --coverage")  # libgcov (cmake/coverage.cmake)
  endif()
  string(STRIP "${ELTWISE_PC_LIBS_PRIVATE}" ELTWISE_PC_LIBS_PRIVATE)
else()
  set(ELTWISE_PC_CFLAGS " -DELTWISE_SHARED")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/eltwise.pc.in ${PROJECT_BINARY_DIR}/eltwise.pc @ONLY)
