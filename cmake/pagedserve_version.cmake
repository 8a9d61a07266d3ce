# The version `pagedserve --version` prints: the project version and the commit the tree was
# configured from, "<12 hex digits>[-dirty]", or "unknown" without git or a .git of our own
# (a source tarball inside someone else's checkout must not print that checkout's commit).
# Read at configure time only: after a commit, the next reconfigure updates it.
#
# Writes ${PROJECT_BINARY_DIR}/generated/pagedserve_version.h; configure_file rewrites it
# only when its text changes, so an unchanged commit recompiles nothing.

set(PAGEDSERVE_GIT_COMMIT unknown)
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" -C "${PROJECT_SOURCE_DIR}" rev-parse --short=12 HEAD
    RESULT_VARIABLE _pagedserve_git_rc
    OUTPUT_VARIABLE _pagedserve_git_commit
    OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET)
  if(_pagedserve_git_rc EQUAL 0 AND _pagedserve_git_commit MATCHES "^[0-9a-f]+$")
    set(PAGEDSERVE_GIT_COMMIT "${_pagedserve_git_commit}")
    # Tracked files changed against HEAD (untracked files do not count). --no-optional-locks:
    # a configure must not write the index while someone else runs git in the same tree.
    execute_process(
      COMMAND "${GIT_EXECUTABLE}" --no-optional-locks -C "${PROJECT_SOURCE_DIR}"
              diff --quiet HEAD --
      RESULT_VARIABLE _pagedserve_git_dirty
      OUTPUT_QUIET ERROR_QUIET)
    if(_pagedserve_git_dirty EQUAL 1)
      string(APPEND PAGEDSERVE_GIT_COMMIT "-dirty")
    endif()
  endif()
  unset(_pagedserve_git_rc)
  unset(_pagedserve_git_commit)
  unset(_pagedserve_git_dirty)
endif()

configure_file("${CMAKE_CURRENT_LIST_DIR}/pagedserve_version.h.in"
               "${PROJECT_BINARY_DIR}/generated/pagedserve_version.h" @ONLY)
message(STATUS "pagedserve: version ${PROJECT_VERSION} (${PAGEDSERVE_GIT_COMMIT})")
