# SPDX-License-Identifier: MIT
# lq_add_test(NAME SOURCES... LIBS ... [GUI] [TIMEOUT s])
# One Qt Test executable per unit, with everything a test needs: moc, the Qt
# string hygiene, the data and binary folders, an environment that keeps the
# user's settings and audit log out of it. GUI tests run offscreen.
function(lq_add_test name)
  cmake_parse_arguments(T "GUI" "TIMEOUT" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} Qt6::Test)
  set_target_properties(${name} PROPERTIES AUTOMOC ON)
  lq_qt_defaults(${name})
  target_compile_definitions(${name} PRIVATE
    LQ_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
    LQ_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
  add_test(NAME ${name} COMMAND ${name})
  # Tests never touch the user's settings or audit log.
  set(home "${PROJECT_BINARY_DIR}/test-home")
  set(env "QT_QPA_PLATFORM=offscreen;XDG_CONFIG_HOME=${home}/config;XDG_DATA_HOME=${home}/data;LQ_AUDIT_DIR=${home}/audit")
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}" TIMEOUT ${T_TIMEOUT})
endfunction()

# Strict Qt string hygiene for Qt code (STYLE "Shape").
function(lq_qt_defaults target)
  target_compile_definitions(${target} PRIVATE
    QT_NO_CAST_FROM_ASCII QT_NO_CAST_TO_ASCII QT_USE_QSTRINGBUILDER QT_NO_FOREACH)
endfunction()
