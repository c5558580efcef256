# The package from outside the tree: install the build into a temporary prefix, move the prefix
# (the install must be relocatable), check that no installed file names the build or source
# tree, then configure, build and run examples/vp against it in a clean directory.
# -DBUILD_DIR=<build tree> -DSOURCE_DIR=<source tree> -DWORK=<scratch directory>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/installed RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
file(RENAME ${WORK}/installed ${WORK}/moved)
file(GLOB_RECURSE installed LIST_DIRECTORIES false ${WORK}/moved/*)
foreach(f ${installed})
  file(STRINGS ${f} hits REGEX "${BUILD_DIR}|${SOURCE_DIR}|${WORK}")
  if(hits)
    list(GET hits 0 first)
    message(FATAL_ERROR "${f} names a build or source path: ${first}")
  endif()
endforeach()
foreach(required lib/cmake/neuronsim/neuronsimConfig.cmake lib/cmake/neuronsim/neuronsimConfigVersion.cmake lib/pkgconfig/neuronsim.pc
                 include/neuronsim/neuron_core.h include/neuronsim/version.h bin/neuronsim share/neuronsim/configs/mariana.yaml
                 share/neuronsim/catalog/pwp_bin_trainium/act_info.json
                 share/neuronsim/traces/demo.trace share/neuronsim/examples/vp/main.cpp)
  if(NOT EXISTS ${WORK}/moved/${required})
    message(FATAL_ERROR "the install lacks ${required}")
  endif()
endforeach()
# Every document a public header or an installed document refers to is installed, and every
# section of the cited sources it names is described by docs/sources.md.
file(GLOB_RECURSE texts LIST_DIRECTORIES false ${WORK}/moved/include/neuronsim/*.h ${WORK}/moved/share/neuronsim/*.md)
foreach(f ${texts})
  file(STRINGS ${f} refs REGEX "docs/[a-z0-9-]+\\.md|\\([a-z0-9-]+\\.md\\)")
  foreach(line ${refs})
    string(REGEX MATCHALL "[a-z0-9-]+\\.md" names "${line}")
    foreach(n ${names})
      if(NOT n MATCHES "^(README|hardware-facts|public-figures)\\.md$" AND NOT EXISTS ${WORK}/moved/share/neuronsim/docs/${n})
        message(FATAL_ERROR "${f} refers to ${n}, which is not installed")
      endif()
    endforeach()
  endforeach()
  file(STRINGS ${f} cites REGEX "hardware-facts §[A-Z]")
  foreach(line ${cites})
    string(REGEX MATCHALL "§[A-Z]" sections "${line}")
    foreach(sec ${sections})
      file(STRINGS ${WORK}/moved/share/neuronsim/docs/sources.md described REGEX "^\\| ${sec} \\|")
      if(NOT described)
        message(FATAL_ERROR "${f} cites hardware-facts ${sec}, which docs/sources.md does not describe")
      endif()
    endforeach()
  endforeach()
endforeach()
# The example, as its own project, from the installed copy of its sources.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/moved/share/neuronsim/examples/vp -B ${WORK}/vp-build -G Ninja -DCMAKE_PREFIX_PATH=${WORK}/moved
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring examples/vp failed:\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/vp-build RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building examples/vp failed:\n${out}\n${err}")
endif()
execute_process(COMMAND ${WORK}/vp-build/neuronsim_vp RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the example VP failed (${rc}):\n${out}\n${err}")
endif()
# The library inside someone's simulation is silent and writes no file: with --quiet the VP
# prints nothing itself, so every byte on stdout or stderr would be the library's (SystemC's
# banner is turned off). HOME, the cache variables, TMPDIR and the working directory are empty
# directories, and must stay empty through elaboration and sc_start.
file(REMOVE_RECURSE ${WORK}/quiet)
file(MAKE_DIRECTORY ${WORK}/quiet/home ${WORK}/quiet/cache ${WORK}/quiet/tmp ${WORK}/quiet/cwd)
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=NEURONSIM_CATALOG HOME=${WORK}/quiet/home XDG_CACHE_HOME=${WORK}/quiet/cache
                        TMPDIR=${WORK}/quiet/tmp SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=DISABLE ${WORK}/vp-build/neuronsim_vp --quiet
                WORKING_DIRECTORY ${WORK}/quiet/cwd RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the example VP failed with --quiet (${rc}):\n${out}\n${err}")
endif()
if(NOT out STREQUAL "" OR NOT err STREQUAL "")
  message(FATAL_ERROR "the library wrote to stdout or stderr:\nstdout: ${out}\nstderr: ${err}")
endif()
file(GLOB_RECURSE written LIST_DIRECTORIES true ${WORK}/quiet/*/*)
if(written)
  message(FATAL_ERROR "the example VP's run wrote files: ${written}")
endif()
# A request for another minor version fails cleanly.
file(WRITE ${WORK}/old/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)\nproject(old LANGUAGES CXX)\nfind_package(neuronsim 0.1 REQUIRED)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/old -B ${WORK}/old-build -DCMAKE_PREFIX_PATH=${WORK}/moved RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "not compatible|version")
  message(FATAL_ERROR "find_package(neuronsim 0.1) should fail, saying why:\n${err}")
endif()
# The library exports the public API and SystemC's types only: no symbol of the third-party
# libraries built into it or of the standard library's instantiations.
execute_process(COMMAND nm -DC --defined-only ${WORK}/moved/lib/libneuronsim.so RESULT_VARIABLE rc OUTPUT_VARIABLE symbols ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on the installed library: ${err}")
endif()
string(REGEX MATCHALL "[^\n]*(nlohmann|YAML|spdlog|fmt::|boost::)[^\n]*" leaked "${symbols}")
string(REGEX MATCHALL "\n[0-9a-f]+ [A-Za-z] ((typeinfo name for|typeinfo for|vtable for|VTT for|guard variable for) )?(std|__gnu_cxx)::[^\n]*" std_leaked "${symbols}")
list(APPEND leaked ${std_leaked})
if(leaked)
  list(GET leaked 0 first)
  list(LENGTH leaked n)
  message(FATAL_ERROR "libneuronsim exports ${n} third-party or standard-library symbols, e.g. ${first}")
endif()
if(NOT symbols MATCHES "neuronsim::NeuronCoreDevice::stats_json" OR NOT symbols MATCHES "neuronsim::act_func_id")
  message(FATAL_ERROR "libneuronsim does not export its public API")
endif()
# A platform with another SystemC is refused by find_package, saying why.
file(WRITE ${WORK}/othersc/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)\nproject(othersc LANGUAGES CXX)\nset(SystemCLanguage_VERSION 3.0.0)\nfind_package(neuronsim 0.2 REQUIRED)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/othersc -B ${WORK}/othersc-build -DCMAKE_PREFIX_PATH=${WORK}/moved RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
string(REGEX REPLACE "[ \n]+" " " err_flat "${err}")  # CMake wraps the message
if(rc EQUAL 0 OR NOT err_flat MATCHES "built against SystemC [0-9.]+, but the platform's SystemCLanguage package is SystemC 3.0.0")
  message(FATAL_ERROR "find_package(neuronsim) with another SystemC should fail, saying why:\n${err}")
endif()
# pkg-config users.
execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${WORK}/moved/lib/pkgconfig pkg-config --modversion neuronsim
                RESULT_VARIABLE rc OUTPUT_VARIABLE v ERROR_VARIABLE err)
execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${WORK}/moved/lib/pkgconfig pkg-config --cflags --libs neuronsim
                RESULT_VARIABLE rc2 OUTPUT_VARIABLE flags ERROR_VARIABLE err2)
if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0 OR NOT v MATCHES "^${VERSION}" OR NOT flags MATCHES "-lneuronsim" OR NOT flags MATCHES "moved/.*include" OR NOT flags MATCHES "-Wl,-rpath,[^ ]*moved")
  message(FATAL_ERROR "pkg-config neuronsim: ${v} ${flags} ${err}${err2}")
endif()
