# ccache as the compiler launcher for C++ and CUDA, set so that a clone of the project in any
# folder reuses the objects of a build in another (CI builds a fresh clone right after the
# developer's own build of the same tree):
# - CCACHE_BASEDIR=<source dir>: absolute paths under the source tree (sources, -I) are hashed
#   and compiled as paths relative to the build folder, the same in every clone;
# - CCACHE_NOHASHDIR: the working folder is not hashed either (it is, by default, with -g,
#   since debug info names it; a cached object then names the first clone's folder there).
# - CCACHE_SLOPPINESS=pch_defines,time_macros: what ccache needs to cache the files that
#   include a precompiled header (actors/ precompiles CAF's); nothing here uses __DATE__/__TIME__.
# Compile definitions must not carry absolute paths (they are not rewritten): the tests read
# theirs from one generated file (tests/support/test_paths.cpp.in).
# PAGEDSERVE_CCACHE=OFF builds without it; without ccache installed nothing changes.
option(PAGEDSERVE_CCACHE "Use ccache as the compiler launcher when it is installed" ON)
find_program(PAGEDSERVE_CCACHE_PROGRAM ccache)
if(PAGEDSERVE_CCACHE AND PAGEDSERVE_CCACHE_PROGRAM)
  set(_pagedserve_launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
      CCACHE_NOHASHDIR=true CCACHE_SLOPPINESS=pch_defines,time_macros ${PAGEDSERVE_CCACHE_PROGRAM})
  set(CMAKE_C_COMPILER_LAUNCHER ${_pagedserve_launcher})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_pagedserve_launcher})
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${_pagedserve_launcher})
  message(STATUS "ccache: ${PAGEDSERVE_CCACHE_PROGRAM} (base dir ${PROJECT_SOURCE_DIR})")
endif()
