# The tree stays as .clang-format says (ctest Format.SourcesFollowClangFormat): every tracked
# C++ source is given to clang-format --dry-run --Werror, and a file it would change fails the
# test, named. Skipped (return code 77) where clang-format 14, the version the tree was
# formatted with (Debian 12's), is absent: another version formats some constructs otherwise.
cmake_minimum_required(VERSION 3.20)
find_program(CLANG_FORMAT NAMES clang-format-14 clang-format)
if(NOT CLANG_FORMAT)
  message("clang-format not found: skipped")
  cmake_language(EXIT 77)
endif()
execute_process(COMMAND ${CLANG_FORMAT} --version OUTPUT_VARIABLE _version)
if(NOT _version MATCHES "version 14\\.")
  message("${_version}: not clang-format 14: skipped")
  cmake_language(EXIT 77)
endif()
file(GLOB_RECURSE _sources RELATIVE ${SOURCE_DIR}
     ${SOURCE_DIR}/apps/*.[ch]* ${SOURCE_DIR}/bench/*.[ch]* ${SOURCE_DIR}/config/*.[ch]* ${SOURCE_DIR}/examples/*.[ch]*
     ${SOURCE_DIR}/firmware_model/*.[ch]* ${SOURCE_DIR}/include/*.[ch]* ${SOURCE_DIR}/model/*.[ch]* ${SOURCE_DIR}/platform/*.[ch]* ${SOURCE_DIR}/python/*.[ch]*
     ${SOURCE_DIR}/stats/*.[ch]* ${SOURCE_DIR}/sweep/*.[ch]* ${SOURCE_DIR}/tests/*.[ch]*)
list(FILTER _sources INCLUDE REGEX "\\.(cpp|h)$")
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${_sources} WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "sources that clang-format would change (run clang-format -i on them):\n${_err}")
endif()
list(LENGTH _sources _n)
message(STATUS "${_n} sources follow .clang-format")
