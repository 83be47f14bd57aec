# Warnings are errors for our own code only (generated protobuf code and
# volk are compiled without them).
function(rgfx_warnings target)
  # -Wrestrict stays a warning: GCC 12 reports false positives inside
  # std::string at -O3 (GCC bug 105329).
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wno-missing-field-initializers
                                           $<$<CXX_COMPILER_ID:GNU>:-Wno-error=restrict>)
endfunction()

# rgfx_library(NAME SOURCES ... DEPS ...): one library per folder.
function(rgfx_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  rgfx_warnings(${name})
endfunction()

# rgfx_test(NAME SOURCES ... DEPS ... [LABELS ...] [OWN_MAIN]): a GoogleTest
# binary run by CTest; it gets gtest's main() unless OWN_MAIN is given.
function(rgfx_test name)
  cmake_parse_arguments(ARG "OWN_MAIN" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock)
  if(NOT ARG_OWN_MAIN)
    target_link_libraries(${name} PRIVATE GTest::gtest_main)
  endif()
  rgfx_warnings(${name})
  add_test(NAME ${name} COMMAND ${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 900)
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${ARG_LABELS}")
endfunction()
