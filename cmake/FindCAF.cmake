# FindCAF: the C++ Actor Framework as Debian 12 ships it (libcaf-dev 0.17.6), which installs
# no CMake package file. Defines the imported targets CAF::core and CAF::io, the names that
# CAF >= 0.18 exports itself, so the rest of the build does not depend on which one is used.
#
#   find_package(CAF 0.17 REQUIRED)
#
# Result variables: CAF_FOUND, CAF_VERSION, CAF_INCLUDE_DIR, CAF_CORE_LIBRARY, CAF_IO_LIBRARY.

find_path(CAF_INCLUDE_DIR NAMES caf/all.hpp)
find_library(CAF_CORE_LIBRARY NAMES caf_core)
find_library(CAF_IO_LIBRARY NAMES caf_io)

# caf/config.hpp: `#define CAF_VERSION 1706` means 0.17.6 (major * 10000 + minor * 100 + patch).
if(CAF_INCLUDE_DIR AND EXISTS "${CAF_INCLUDE_DIR}/caf/config.hpp")
  file(STRINGS "${CAF_INCLUDE_DIR}/caf/config.hpp" _caf_version_line
       REGEX "^#define CAF_VERSION [0-9]+")
  if(_caf_version_line MATCHES "CAF_VERSION ([0-9]+)")
    set(_caf_number ${CMAKE_MATCH_1})
    math(EXPR _caf_major "${_caf_number} / 10000")
    math(EXPR _caf_minor "(${_caf_number} / 100) % 100")
    math(EXPR _caf_patch "${_caf_number} % 100")
    set(CAF_VERSION "${_caf_major}.${_caf_minor}.${_caf_patch}")
  endif()
  unset(_caf_version_line)
  unset(_caf_number)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CAF
  REQUIRED_VARS CAF_INCLUDE_DIR CAF_CORE_LIBRARY CAF_IO_LIBRARY
  VERSION_VAR CAF_VERSION)

if(CAF_FOUND)
  if(NOT TARGET CAF::core)
    add_library(CAF::core UNKNOWN IMPORTED)
    set_target_properties(CAF::core PROPERTIES
      IMPORTED_LOCATION "${CAF_CORE_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}")
    find_package(Threads REQUIRED)
    target_link_libraries(CAF::core INTERFACE Threads::Threads)
    # GCC 12 with -O3 and the sanitizers reports caf::config_value's variant (behind
    # actor_system_config::set) as maybe-uninitialized inside libstdc++: a false positive in
    # CAF's headers that -Werror would turn into a build failure for every CAF user.
    target_compile_options(CAF::core INTERFACE
      $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wno-maybe-uninitialized>)
  endif()
  if(NOT TARGET CAF::io)
    add_library(CAF::io UNKNOWN IMPORTED)
    set_target_properties(CAF::io PROPERTIES
      IMPORTED_LOCATION "${CAF_IO_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}")
    target_link_libraries(CAF::io INTERFACE CAF::core)
  endif()
endif()

mark_as_advanced(CAF_INCLUDE_DIR CAF_CORE_LIBRARY CAF_IO_LIBRARY)
