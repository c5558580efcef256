#pragma once
// The parts of the _core extension module (the Python package's native half); each binds one
// area onto the module. The Python half (python/neuronsim/) gives them their user-facing shape.
#include <pybind11/pybind11.h>

namespace neuronsim::python {

void bind_act(pybind11::module_& m);
void bind_run(pybind11::module_& m);
void bind_cptc(pybind11::module_& m);

}  // namespace neuronsim::python
