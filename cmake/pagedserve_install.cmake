# The engine as an installable CMake package, for programs that embed it. After
#   cmake --install <build> --prefix P
# P holds (install component in brackets)
#   bin/                   pagedserve, pagedserve-bench                          [runtime]
#   lib/                   pagedserve_actors and every project library it links  [development]
#   include/pagedserve/    the public headers: common/, api/, actors/' facade   [development]
#   lib/cmake/pagedserve/  pagedserveConfig.cmake, its version file, the exported targets,
#                          FindCAF.cmake                                         [development]
#   share/pagedserve/models/pagedserve-demo/  the built-in demo model            [runtime]
#   share/pagedserve/models/pagedserve-demo-draft/  its speculative draft          [runtime]
# and another CMake project does find_package(pagedserve CONFIG REQUIRED) and links
# pagedserve::engine (docs/embedding.md; examples/CMakeLists.txt builds that way when it is
# the top-level project, tests/package checks it). Tests, benchmarks, fuzzers, examples and
# the shared fixtures are not installed.
#
# Included at the end of the top CMakeLists.txt: the export set is the link graph of
# pagedserve_actors, read once every target and its link libraries exist.

include(CMakePackageConfigHelpers)

set(PAGEDSERVE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/pagedserve)

# The programs. Project libraries are static, so nothing in them points into the build tree;
# INSTALL_RPATH_USE_LINK_PATH keeps the folders of shared libraries outside the system's
# (CUDA's lib64 in a CUDA build) as RPATH, as the build tree's copies have them.
foreach(program pagedserve pagedserve-bench)
  if(TARGET ${program})
    set_target_properties(${program} PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
    install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  endif()
endforeach()

# The built-in demo model and its draft, where an installed program looks for them
# (runtime/engine/built_in_model.h): <prefix>/share/pagedserve/models/pagedserve-demo(-draft).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/models/pagedserve-demo
                  ${PROJECT_SOURCE_DIR}/models/pagedserve-demo-draft
        DESTINATION ${CMAKE_INSTALL_DATADIR}/pagedserve/models COMPONENT runtime
        PATTERN "loss.csv" EXCLUDE)

if(NOT TARGET pagedserve_actors)
  return()  # no engine to export (the actors are being written)
endif()

# pagedserve::engine, what an embedder links: pagedserve_actors, whose link interface brings
# the rest of the engine (its PUBLIC dependencies, and its static PRIVATE ones as LINK_ONLY).
# Both the CAF-free facade (actors/engine.h) and the typed actor (actors/engine_actor.h,
# actors/spawn_engine.h) live in it.
add_library(pagedserve_package_engine INTERFACE)
target_link_libraries(pagedserve_package_engine INTERFACE pagedserve_actors)
set_target_properties(pagedserve_package_engine PROPERTIES EXPORT_NAME engine)
add_library(pagedserve::engine ALIAS pagedserve_package_engine)

# _pagedserve_link_closure(root targets_var external_var): the project targets that `root`
# links, directly or not, and the external names (imported targets, plain libraries) they
# reference. Every project target of it must be in the export set, or CMake stops at
# generate time ("target X requires target Y that is not in any export set"); every
# external target must be found by pagedserveConfig.cmake. Walking the real link graph keeps
# both right when libraries are split, renamed or gain a dependency.
function(_pagedserve_link_closure root targets_var external_var)
  set(queue ${root})
  set(targets)
  set(external)
  while(queue)
    list(POP_FRONT queue target)
    if(target IN_LIST targets)
      continue()
    endif()
    list(APPEND targets ${target})
    get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
    if(NOT libs)
      continue()
    endif()
    foreach(lib IN LISTS libs)
      # A static library lists its PRIVATE dependencies as $<LINK_ONLY:x>: linked all the same.
      if(lib MATCHES "^\\$<LINK_ONLY:([^$<>]+)>$")
        set(lib ${CMAKE_MATCH_1})
      endif()
      if(lib MATCHES "\\$<")
        message(WARNING "pagedserve_install: ${target} links '${lib}'; generator expressions "
                        "other than LINK_ONLY are not followed into the export set")
        continue()
      endif()
      # Imported targets are visible only in the folder that found them (OpenMP in
      # kernels/cpu): what is not a project target here counts as external.
      if(TARGET ${lib})
        get_target_property(aliased ${lib} ALIASED_TARGET)
        if(aliased)
          set(lib ${aliased})
        endif()
        get_target_property(imported ${lib} IMPORTED)
        if(NOT imported)
          list(APPEND queue ${lib})
          continue()
        endif()
      endif()
      list(APPEND external ${lib})
    endforeach()
  endwhile()
  list(REMOVE_DUPLICATES external)
  set(${targets_var} ${targets} PARENT_SCOPE)
  set(${external_var} ${external} PARENT_SCOPE)
endfunction()

# _pagedserve_find_dependencies(external_list out_var): the config-file code that finds each
# third-party package of `external_list` as cmake/pagedserve_dependencies.cmake (and
# kernels/cpu, kernels/cuda) found it, so that the imported targets the export names exist.
function(_pagedserve_find_dependencies external out_var)
  set(packages)
  set(boost_components)
  set(pkg_prefixes)
  foreach(lib IN LISTS external)
    if(lib MATCHES "^Boost::(.+)$")
      list(APPEND packages Boost)
      set(component ${CMAKE_MATCH_1})  # the next MATCHES resets CMAKE_MATCH_1
      if(NOT component MATCHES "^(headers|boost|disable_autolinking)$")
        list(APPEND boost_components ${component})
      endif()
    elseif(lib MATCHES "^PkgConfig::(.+)$")
      list(APPEND packages PkgConfig)
      list(APPEND pkg_prefixes ${CMAKE_MATCH_1})
    elseif(lib STREQUAL "Threads::Threads")
      list(APPEND packages Threads)
    elseif(lib MATCHES "^OpenMP::")
      list(APPEND packages OpenMP)
    elseif(lib MATCHES "^CAF::")
      list(APPEND packages CAF)
    elseif(lib MATCHES "^CUDA::")
      list(APPEND packages CUDAToolkit)
    elseif(lib MATCHES "^spdlog::")
      list(APPEND packages spdlog)
    elseif(lib MATCHES "^fmt::")
      list(APPEND packages fmt)
    elseif(lib MATCHES "^CLI11::")
      list(APPEND packages CLI11)
    elseif(lib STREQUAL "yaml-cpp")  # yaml-cpp 0.7 exports its target without a namespace
      list(APPEND packages yaml-cpp)
    elseif(lib MATCHES "::")
      message(WARNING "pagedserve_install: the engine links ${lib}, which pagedserveConfig.cmake "
                      "does not find; add it to _pagedserve_find_dependencies")
    endif()  # else a plain library name (m, dl): the linker finds it by itself
  endforeach()
  list(REMOVE_DUPLICATES boost_components)
  list(REMOVE_DUPLICATES pkg_prefixes)

  set(code "")
  if("Threads" IN_LIST packages)
    string(APPEND code "find_dependency(Threads)\n")
  endif()
  if("Boost" IN_LIST packages)
    # The minimum of cmake/pagedserve_dependencies.cmake.
    list(JOIN boost_components " " components)
    string(APPEND code "find_dependency(Boost 1.81 COMPONENTS ${components})\n")
  endif()
  foreach(package spdlog fmt CLI11 yaml-cpp)
    if(package IN_LIST packages)
      string(APPEND code "find_dependency(${package})\n")
    endif()
  endforeach()
  if("OpenMP" IN_LIST packages)
    string(APPEND code "find_dependency(OpenMP COMPONENTS CXX)\n")
  endif()
  if("CUDAToolkit" IN_LIST packages)
    string(APPEND code "find_dependency(CUDAToolkit)\n")
  endif()
  if("PkgConfig" IN_LIST packages)
    # pkg_check_modules(<PREFIX> IMPORTED_TARGET <module>) defines PkgConfig::<PREFIX>: the
    # same prefixes and modules as this build used (<PREFIX>_MODULE_NAME, cached by it).
    string(APPEND code "find_dependency(PkgConfig)\n")
    foreach(prefix IN LISTS pkg_prefixes)
      set(module "${${prefix}_MODULE_NAME}")
      if(NOT module)
        message(FATAL_ERROR
                "pagedserve_install: no pkg-config module is known for PkgConfig::${prefix}")
      endif()
      string(CONFIGURE [=[
if(NOT TARGET PkgConfig::@prefix@)
  pkg_check_modules(@prefix@ QUIET IMPORTED_TARGET @module@)
  if(NOT TARGET PkgConfig::@prefix@)
    set(pagedserve_NOT_FOUND_MESSAGE "pkg-config module @module@ not found")
    set(pagedserve_FOUND FALSE)
    return()
  endif()
endif()
]=] block @ONLY)
      string(APPEND code "${block}")
    endforeach()
  endif()
  if("CAF" IN_LIST packages)
    # Debian's CAF 0.17 ships no package file: cmake/FindCAF.cmake, installed next to the
    # config, is on the module path for this one call only.
    string(APPEND code [=[
list(PREPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}")
find_package(CAF 0.17 QUIET)
list(POP_FRONT CMAKE_MODULE_PATH)
if(NOT CAF_FOUND)
  set(pagedserve_NOT_FOUND_MESSAGE "CAF 0.17 (libcaf-dev) not found")
  set(pagedserve_FOUND FALSE)
  return()
endif()
]=])
  endif()
  set(${out_var} "${code}" PARENT_SCOPE)
endfunction()

_pagedserve_link_closure(pagedserve_package_engine _pagedserve_export_targets _pagedserve_external)
_pagedserve_find_dependencies("${_pagedserve_external}" PAGEDSERVE_FIND_DEPENDENCIES)
list(JOIN _pagedserve_export_targets " " _pagedserve_export_names)
message(STATUS "pagedserve: installable engine targets: ${_pagedserve_export_names}")

# Exported as pagedserve::<target name> (pagedserve::pagedserve_actors, ...), the facade as
# pagedserve::engine. pagedserve_options is in the set too: the libraries link it privately,
# which an export keeps as $<LINK_ONLY:...> (its link options, the sanitizers, apply to
# the final program; its compile options never leave the build).
install(TARGETS ${_pagedserve_export_targets}
        EXPORT pagedserveTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
install(EXPORT pagedserveTargets
        NAMESPACE pagedserve::
        DESTINATION ${PAGEDSERVE_INSTALL_CMAKEDIR}
        COMPONENT development)

# The public headers, at the same relative path as in the source tree (the INSTALL_INTERFACE
# include root of PAGEDSERVE_PUBLIC_INCLUDE_DIRS): common/ and api/ whole (read at install
# time, so a header added since the last configure is installed too), and of actors/ the
# facade, the typed actor, its public messages and the spawn functions. Nothing of runtime/
# or kernels/: no public header includes them (tests/package checks that every installed
# header's includes are installed, and that there are at most 40).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/common ${PROJECT_SOURCE_DIR}/api
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pagedserve
        COMPONENT development
        FILES_MATCHING
        PATTERN "*.h")
install(FILES ${PROJECT_SOURCE_DIR}/actors/engine.h ${PROJECT_SOURCE_DIR}/actors/engine_actor.h
              ${PROJECT_SOURCE_DIR}/actors/engine_messages.h
              ${PROJECT_SOURCE_DIR}/actors/spawn_engine.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pagedserve/actors
        COMPONENT development)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/pagedserveConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/pagedserveConfig.cmake
                              INSTALL_DESTINATION ${PAGEDSERVE_INSTALL_CMAKEDIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/pagedserveConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/pagedserveConfig.cmake
              ${PROJECT_BINARY_DIR}/package/pagedserveConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/FindCAF.cmake
        DESTINATION ${PAGEDSERVE_INSTALL_CMAKEDIR}
        COMPONENT development)

unset(_pagedserve_export_targets)
unset(_pagedserve_export_names)
unset(_pagedserve_external)
