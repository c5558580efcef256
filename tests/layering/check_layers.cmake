# The layering of docs/architecture (README "Layout"), checked on every source's #include lines:
# a library may include only the layers below it, and the plain-C++ layers no SystemC. Run by
# ctest (Layering.IncludesFollowTheLayers): cmake -DSOURCE_DIR=... -P check_layers.cmake. A
# violation fails, naming the file, the line and what the layer may include.
#
#   base     model/common, model/fp, model/io           : base
#   config   config/                                     : base, config, public config.h
#   stats    stats/                                      : base, stats
#   model    model/ (the rest)                           : base, config, model, public config.h
#   firmware firmware_model/                             : base, config, model, firmware, public config.h
#   sweep    sweep/                                      : base, config, stats, model, sweep, public config.h
#   platform platform/                                   : everything but apps/ and sweep/
#   python   python/src/ (the Python package's _core)    : as platform, and python/
cmake_minimum_required(VERSION 3.20)
set(_base "model/common/;model/fp/;model/io/")
set(_violations "")

function(check_layer name globs allowed systemc_ok)
  set(_files "")
  foreach(g ${globs})
    file(GLOB_RECURSE _f ${SOURCE_DIR}/${g})
    list(APPEND _files ${_f})
  endforeach()
  foreach(f ${_files})
    file(STRINGS ${f} _lines REGEX "^#include")
    file(RELATIVE_PATH _rel ${SOURCE_DIR} ${f})
    foreach(l ${_lines})
      if(l MATCHES "^#include \"([^\"]+)\"")
        set(_inc ${CMAKE_MATCH_1})
        set(_ok FALSE)
        foreach(a ${allowed})
          string(FIND "${_inc}" "${a}" _at)
          if(_at EQUAL 0)
            set(_ok TRUE)
          endif()
        endforeach()
        if(NOT _ok)
          set(_violations "${_violations}\n  ${_rel}: ${l}  (the ${name} layer may include: ${allowed})" PARENT_SCOPE)
          set(_violations "${_violations}\n  ${_rel}: ${l}  (the ${name} layer may include: ${allowed})")
        endif()
      elseif(NOT systemc_ok AND l MATCHES "^#include <(systemc|tlm)")
        set(_violations "${_violations}\n  ${_rel}: ${l}  (the ${name} layer is plain C++: no SystemC)" PARENT_SCOPE)
        set(_violations "${_violations}\n  ${_rel}: ${l}  (the ${name} layer is plain C++: no SystemC)")
      endif()
    endforeach()
  endforeach()
endfunction()

check_layer(base "model/common/*.[ch]*;model/fp/*.[ch]*;model/io/*.[ch]*" "${_base}" FALSE)
check_layer(config "config/*.[ch]*" "${_base};config/;neuronsim/config.h" FALSE)
check_layer(stats "stats/*.[ch]*" "${_base};stats/" FALSE)
check_layer(model "model/cptc/*.[ch]*;model/isa/*.[ch]*;model/pwp/*.[ch]*;model/trace/*.[ch]*;model/workloads/*.[ch]*"
            "${_base};config/;model/;neuronsim/config.h" FALSE)
check_layer(firmware "firmware_model/*.[ch]*" "${_base};config/;model/;firmware_model/;neuronsim/config.h" FALSE)
check_layer(sweep "sweep/*.[ch]*" "${_base};config/;stats/;model/;sweep/;neuronsim/config.h;neuronsim/version.h" FALSE)
check_layer(platform "platform/*.[ch]*" "${_base};config/;stats/;model/;firmware_model/;platform/;neuronsim/" TRUE)
check_layer(python "python/src/*.[ch]*" "${_base};config/;stats/;model/;firmware_model/;platform/;neuronsim/;python/;pybind11/" TRUE)

if(_violations)
  message(FATAL_ERROR "includes that cross the layers:${_violations}")
endif()
message(STATUS "layering: every include follows the layers")
