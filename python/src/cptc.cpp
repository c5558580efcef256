// cptc_encode: rows of values as the CPTC-K streams a GPSIMD decode reads (model/cptc, the
// encoder of `neuronsim cptc encode`), for the kernel builder's cptc_decode.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>

#include "model/common/error.h"
#include "model/cptc/cptc.h"
#include "model/fp/dtype.h"
#include "model/isa/field_names.h"
#include "python/src/bindings.h"

namespace neuronsim::python {

namespace py = pybind11;

namespace {

// values: (rows, cols) float32, one partition's row each. All rows share the instruction's
// scale words (an integer leg: one multiplier for the whole tensor, as the kernel generator).
py::dict cptc_encode(py::array_t<float, py::array::c_style | py::array::forcecast> values, unsigned bits, const std::string& out, unsigned block) {
    if (values.ndim() != 2) throw Error("cptc_encode: values must be 2-D (rows, cols), got " + std::to_string(values.ndim()) + "-D");
    const uint64_t rows = static_cast<uint64_t>(values.shape(0)), cols = static_cast<uint64_t>(values.shape(1));
    if (!rows || !cols) throw Error("cptc_encode: values are empty");
    // The trace's names of out_dtype (fp16, fp32, int8, uint8, ...); the routing refuses a type
    // the kernel's leg does not store, naming the ones it does.
    model::fp::Dtype od = model::fp::Dtype::Invalid;
    if (!out.empty()) {
        const std::optional<uint8_t> code = model::isa::field_code("out_dtype", out);
        if (!code) throw Error("cptc_encode: out '" + out + "': expected one of " + model::isa::field_names_list("out_dtype"));
        od = static_cast<model::fp::Dtype>(*code);
    }
    const model::cptc::Target t = model::cptc::route_target(bits, model::cptc::default_routing(), od);
    const uint64_t stream = model::cptc::stream_bytes(bits, cols, block, !t.integer);
    const float* v = values.data();
    const uint16_t m = t.integer ? model::cptc::integer_multiplier(std::vector<float>(v, v + rows * cols), bits) : 0;
    const size_t ob = model::fp::dtype_bytes(t.out);
    py::array_t<uint8_t> bytes({rows, stream}), decoded({rows, cols * ob});
    uint16_t s0 = 0, s1 = 0;
    for (uint64_t r = 0; r < rows; ++r) {
        const model::cptc::Encoded e = model::cptc::encode(std::vector<float>(v + r * cols, v + (r + 1) * cols), t, block, m);
        if (e.bytes.size() != stream || e.decoded.size() != cols * ob) throw Error("cptc_encode: the encoder wrote an unexpected row size");
        if (r && (e.s0 != s0 || e.s1 != s1)) throw Error("cptc_encode: row " + std::to_string(r) + " needs other scale words than row 0");
        s0 = e.s0, s1 = e.s1;
        std::memcpy(bytes.mutable_data(static_cast<py::ssize_t>(r)), e.bytes.data(), stream);
        std::memcpy(decoded.mutable_data(static_cast<py::ssize_t>(r)), e.decoded.data(), cols * ob);
    }
    return py::dict(py::arg("bytes") = bytes, py::arg("decoded") = decoded,
                    py::arg("out_dtype") = model::isa::field_name("out_dtype", static_cast<uint8_t>(t.out)),
                    py::arg("fields") = model::cptc::instruction_fields(t, block, s0, s1, stream, cols), py::arg("kernel") = model::cptc::describe(t));
}

}  // namespace

void bind_cptc(py::module_& m) {
    m.def("cptc_encode", &cptc_encode, py::arg("values"), py::arg("bits"), py::arg("out") = "", py::arg("block") = 64,
          "Rows of values as CPTC-K streams: bytes (rows, stream), decoded (rows, cols x out bytes), out_dtype, the decode's fields, its kernel.");
}

}  // namespace neuronsim::python
