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
                 share/neuronsim/traces/demo.trace share/neuronsim/examples/vp/main.cpp)
  if(NOT EXISTS ${WORK}/moved/${required})
    message(FATAL_ERROR "the install lacks ${required}")
  endif()
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
# A request for another minor version fails cleanly.
file(WRITE ${WORK}/old/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)\nproject(old LANGUAGES CXX)\nfind_package(neuronsim 0.1 REQUIRED)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/old -B ${WORK}/old-build -DCMAKE_PREFIX_PATH=${WORK}/moved RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "not compatible|version")
  message(FATAL_ERROR "find_package(neuronsim 0.1) should fail, saying why:\n${err}")
endif()
# pkg-config users.
execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${WORK}/moved/lib/pkgconfig pkg-config --modversion neuronsim
                RESULT_VARIABLE rc OUTPUT_VARIABLE v ERROR_VARIABLE err)
execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${WORK}/moved/lib/pkgconfig pkg-config --cflags --libs neuronsim
                RESULT_VARIABLE rc2 OUTPUT_VARIABLE flags ERROR_VARIABLE err2)
if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0 OR NOT v MATCHES "^${VERSION}" OR NOT flags MATCHES "-lneuronsim" OR NOT flags MATCHES "moved/.*include")
  message(FATAL_ERROR "pkg-config neuronsim: ${v} ${flags} ${err}${err2}")
endif()
