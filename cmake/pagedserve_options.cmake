# Compile options shared by every project target: warnings (as errors), sanitizers.
add_library(pagedserve_options INTERFACE)
target_compile_options(pagedserve_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough>)
if(PAGEDSERVE_WERROR)
  target_compile_options(pagedserve_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
if(PAGEDSERVE_SANITIZE)
  set(_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_compile_options(pagedserve_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${_san}>)
  target_link_options(pagedserve_options INTERFACE ${_san})
endif()
# A libFuzzer build (clang): all project code carries the fuzzer's coverage instrumentation
# and the sanitizers; the fuzz_* programs add libFuzzer's main at link time.
if(PAGEDSERVE_FUZZ AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(_fuzz -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
      -fno-sanitize-recover=undefined)
  target_compile_options(pagedserve_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${_fuzz}>)
  target_link_options(pagedserve_options INTERFACE -fsanitize=address,undefined)
endif()
if(CMAKE_BUILD_TYPE STREQUAL "Release")
  target_compile_options(pagedserve_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-O3>)
endif()

# The include root of project libraries: the source tree in this build, and
# <prefix>/include/pagedserve once installed (cmake/pagedserve_install.cmake), so
# `#include "actors/engine.h"` means the same file in both. Use it for every PUBLIC or
# INTERFACE include directory of a library that may be exported.
include(GNUInstallDirs)
set(PAGEDSERVE_PUBLIC_INCLUDE_DIRS
    "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>"
    "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/pagedserve>")

# pagedserve_add_library(name SOURCES ... DEPS ...): one static library of project code.
function(pagedserve_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PAGEDSERVE_PUBLIC_INCLUDE_DIRS})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE pagedserve_options)
endfunction()
