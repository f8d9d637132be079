# SPDX-License-Identifier: MIT
# The version every binary prints (--version, Help > About): PROJECT_VERSION
# and the git commit it was configured from, in a header generated into the
# build dir. Not a git checkout (a source tarball), or no git: "unknown".
set(LQ_GIT_COMMIT "unknown")
set(LQ_SOURCE_DATE_EPOCH "")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(
    COMMAND ${GIT_EXECUTABLE} describe --always --dirty
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    OUTPUT_VARIABLE lq_describe
    RESULT_VARIABLE lq_rc
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(lq_rc EQUAL 0 AND NOT lq_describe STREQUAL "")
    set(LQ_GIT_COMMIT "${lq_describe}")
    # Configure again when HEAD moves (commit, checkout), so the commit a
    # binary names is the one it was built from. A worktree has its own HEAD log.
    execute_process(
      COMMAND ${GIT_EXECUTABLE} rev-parse --absolute-git-dir
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      OUTPUT_VARIABLE lq_gitdir
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    # The commit's date dates the man pages, so a rebuild gives the same pages.
    execute_process(
      COMMAND ${GIT_EXECUTABLE} log -1 --format=%ct
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      OUTPUT_VARIABLE LQ_SOURCE_DATE_EPOCH
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(EXISTS "${lq_gitdir}/logs/HEAD")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${lq_gitdir}/logs/HEAD")
    endif()
  endif()
endif()
message(STATUS "LiteQueue Admin ${PROJECT_VERSION}, commit ${LQ_GIT_COMMIT}")

configure_file(${CMAKE_CURRENT_LIST_DIR}/lqversion.h.in
               ${PROJECT_BINARY_DIR}/generated/lqversion.h @ONLY)
add_library(lqversion INTERFACE)
target_include_directories(lqversion INTERFACE ${PROJECT_BINARY_DIR}/generated)
