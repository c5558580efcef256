// act: evaluators of one activation function over numpy buffers (model/pwp/function_eval.h),
// the catalog's functions and sets, profiles and packed sets as Python values, accuracy arrays.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "model/common/worker_pool.h"
#include "model/fp/bits.h"
#include "model/pwp/accuracy.h"
#include "model/pwp/catalog.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/function_eval.h"
#include "model/pwp/generator.h"
#include "model/pwp/profile_loader.h"
#include "model/pwp/profile_writer.h"
#include "model/pwp/set_check.h"
#include "model/workloads/act_functions.h"
#include "python/src/bindings.h"

namespace neuronsim::python {

namespace py = pybind11;
namespace pwp = model::pwp;
using F32Array = py::array_t<float, py::array::c_style>;

namespace {

// The pool of the last thread count asked for, kept: making threads per call would cost more
// than a small call. (One pool: a caller trying many counts does not collect threads.) Taken
// with the GIL held; a call holds its pool (shared) and its lock while the GIL is released,
// so Python threads evaluating at once take turns on it.
struct SharedPool {
    explicit SharedPool(unsigned threads) : pool(threads) {}
    model::WorkerPool pool;
    std::mutex busy;
};
std::shared_ptr<SharedPool> pool_for(unsigned threads) {
    static std::shared_ptr<SharedPool> pool;
    static unsigned asked = ~0u;
    if (!pool || asked != threads) {
        pool.reset();
        pool = std::make_shared<SharedPool>(threads);
        asked = threads;
    }
    return pool;
}

F32Array evaluate(const pwp::FunctionEvaluator& fe, const F32Array& x, std::optional<float> scale, std::optional<float> bias, unsigned threads) {
    std::optional<pwp::Prescale> pre;
    if (scale || bias) pre = pwp::Prescale{scale.value_or(1.0f), bias.value_or(0.0f)};
    std::vector<py::ssize_t> shape(x.shape(), x.shape() + x.ndim());
    F32Array out(shape);
    const float* in = x.data();
    float* o = out.mutable_data();
    const size_t n = static_cast<size_t>(x.size());
    const std::shared_ptr<SharedPool> pool = pool_for(threads);
    try {
        py::gil_scoped_release unlocked;
        std::lock_guard<std::mutex> lock(pool->busy);
        fe.evaluate(in, o, n, pre, pool->pool);
    } catch (const pwp::ElementError& e) {
        throw Error("element " + std::to_string(e.index) + " (input 0x" + model::fp::hex8(model::fp::bits_of(in[e.index])) + "): " + e.what());
    }
    return out;
}

py::array_t<float> sections_of(const pwp::Region& r, float pwp::Section::*field) {
    py::array_t<float> a(static_cast<py::ssize_t>(r.sections.size()));
    float* d = a.mutable_data();
    for (size_t i = 0; i < r.sections.size(); ++i) d[i] = r.sections[i].*field;
    return a;
}

py::dict region_arrays(const pwp::Region& r) {
    py::dict d;
    d["x"] = sections_of(r, &pwp::Section::x);
    d["d0"] = sections_of(r, &pwp::Section::d0);
    d["d1"] = sections_of(r, &pwp::Section::d1);
    d["d2"] = sections_of(r, &pwp::Section::d2);
    d["d3"] = sections_of(r, &pwp::Section::d3);
    py::list octaves;
    for (size_t e = 0; e < r.octaves.size(); ++e) {
        const auto& o = r.octaves[e];
        if (!o.declared) continue;
        octaves.append(py::dict(py::arg("exponent") = e, py::arg("first") = o.first, py::arg("count") = o.count, py::arg("extract_size") = o.extract_size));
    }
    d["octaves"] = octaves;
    return d;
}

py::dict catalog_fn_dict(const pwp::CatalogFn& f) {
    return py::dict(py::arg("name") = f.name, py::arg("stem") = f.name + "_" + std::to_string(f.budget) + "p", py::arg("func_id") = f.sunda_id,
                    py::arg("with_ln_func_id") = f.tonga_id, py::arg("lut_size") = f.max_lut, py::arg("domain") = py::make_tuple(f.domain_lo, f.domain_hi),
                    py::arg("domain_negative") = f.domain_neg, py::arg("certified") = py::make_tuple(f.cert_lo, f.cert_hi),
                    py::arg("reference_name") = f.act ? py::object(py::str(std::string(pwp::act_fn_name(*f.act)))) : py::object(py::none()));
}

const pwp::CatalogFn& catalog_fn(const std::string& name) {
    if (const pwp::CatalogFn* f = pwp::find_catalog_fn(name)) return *f;
    std::string names;
    for (const pwp::CatalogFn& f : pwp::catalog()) names += (names.empty() ? "" : ", ") + f.name;
    throw Error("function '" + name + "' is not in the catalog (its functions: " + names + ")");
}

}  // namespace

void bind_act(py::module_& m) {
    py::class_<pwp::FunctionEvaluator>(m, "Evaluator", "One activation function ready to evaluate float32 buffers.")
        .def_static(
            "of_profile", [](const std::string& path) { return pwp::FunctionEvaluator::of_profile(pwp::load_profile(path)); }, py::arg("path"))
        .def_static(
            "of_profile_json",
            [](const std::string& text, const std::string& source) { return pwp::FunctionEvaluator::of_profile(pwp::parse_profile(text, source)); },
            py::arg("text"), py::arg("source"))
        .def_static(
            "of_set",
            [](const std::string& set, const std::string& target, const std::string& func) {
                return pwp::FunctionEvaluator::of_set(pwp::read_set(pwp::resolve_set(set, target)), func);
            },
            py::arg("set"), py::arg("target"), py::arg("func"))
        .def_static(
            "of_pwp_dir",
            [](const std::string& dir, const std::string& func, bool exact, float alpha) {
                return pwp::FunctionEvaluator::of_pwp_dir(dir, pwp::builtin_func_map(), func, exact, alpha);
            },
            py::arg("dir"), py::arg("func"), py::arg("exact"), py::arg("alpha"))
        .def("evaluate", &evaluate, py::arg("x").noconvert(), py::arg("scale"), py::arg("bias"), py::arg("threads"))
        .def_property_readonly("description", &pwp::FunctionEvaluator::description);

    m.def("act_fn_name", &pwp::resolve_act_fn_name, py::arg("name"), "The reference's activation name for `name` (any case).");
    m.def("act_fn_names", [] {
        std::vector<std::string> v;
        for (auto n : pwp::act_fn_names()) v.emplace_back(n);
        return v;
    });
    m.def("catalog", [] {
        py::list l;
        for (const pwp::CatalogFn& f : pwp::catalog()) {
            py::dict d = catalog_fn_dict(f);
            py::list sets;
            const auto& roster = model::workloads::trainium_sets();
            for (size_t i = 0; i < roster.size(); ++i)
                if (f.sunda_id > 0 && model::workloads::set_holds(int(i), f.name)) sets.append(roster[i].name);
            d["sets"] = sets;
            l.append(d);
        }
        return l;
    });
    m.def("trainium_sets", [] {
        std::vector<std::string> v;
        for (const auto& s : model::workloads::trainium_sets()) v.push_back(s.name);
        return v;
    });
    m.def(
        "first_set_covering", [](const std::vector<std::string>& fns) { return model::workloads::first_set_covering(fns); }, py::arg("functions"));
    m.def("catalog_dir", &pwp::default_catalog_dir);
    m.def("resolve_set", &pwp::resolve_set, py::arg("set"), py::arg("target"));

    // A profile as the vendor's JSON text (Python parses it) and its sections as arrays.
    m.def(
        "profile_json", [](const std::string& path) { return pwp::profile_to_text(pwp::load_profile(path)); }, py::arg("path"));
    m.def(
        "profile_arrays",
        [](const std::string& text, const std::string& source) {
            const pwp::Profile p = pwp::parse_profile(text, source);
            return py::dict(py::arg("pos") = region_arrays(p.pos), py::arg("neg") = region_arrays(p.neg), py::arg("warnings") = p.warnings);
        },
        py::arg("text"), py::arg("source"));
    m.def(
        "generate_profile", [](const std::string& func) { return pwp::profile_to_text(pwp::generate_profile(catalog_fn(func))); }, py::arg("func"));
    m.def(
        "pack_set",
        [](const std::string& target, const std::string& name, const std::vector<std::pair<std::string, std::string>>& members, const std::string& out_dir) {
            std::vector<pwp::SetMember> ms;
            std::vector<std::string> stems;
            for (const auto& [stem, text] : members) {
                ms.push_back({stem, pwp::parse_profile(text, stem)});
                stems.push_back(stem);
            }
            pwp::write_set(pwp::pack_set(pwp::parse_target(target), name, ms), out_dir);
            pwp::list_set_in_act_info(name, stems, out_dir);
        },
        py::arg("target"), py::arg("name"), py::arg("members"), py::arg("out_dir"));
    m.def(
        "read_set",
        [](const std::string& set, const std::string& target) {
            const pwp::PackedSet s = pwp::read_set(pwp::resolve_set(set, target));
            auto bytes = [](const std::vector<uint8_t>& v) {
                py::array_t<uint8_t> a(static_cast<py::ssize_t>(v.size()));
                std::copy(v.begin(), v.end(), a.mutable_data());
                return a;
            };
            return py::dict(py::arg("name") = s.name, py::arg("target") = pwp::target_name(s.target),
                            py::arg("manifest") = pwp::manifest_to_json(s.manifest).dump(), py::arg("bkt") = bytes(s.bkt), py::arg("ctrl") = bytes(s.ctrl),
                            py::arg("ctrl_stride") = s.stride);
        },
        py::arg("set"), py::arg("target"));
    m.def(
        "check_pwp_dir",
        [](const std::string& dir) {
            const pwp::CheckResult r = pwp::check_pwp_dir(dir);
            py::list issues;
            for (const auto& i : r.issues) issues.append(py::dict(py::arg("file") = i.file, py::arg("where") = i.where, py::arg("what") = i.what));
            return py::dict(py::arg("issues") = issues, py::arg("sets") = r.sets, py::arg("functions") = r.functions, py::arg("bkt_records") = r.bkt_records,
                            py::arg("ctrl_words") = r.ctrl_words);
        },
        py::arg("dir"));
    // The catalog function's closed form (the reference simulator's float formula) over x.
    m.def(
        "closed_form",
        [](const std::string& func, const F32Array& x) {
            const pwp::CatalogFn& f = catalog_fn(func);
            F32Array out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
            for (py::ssize_t i = 0; i < x.size(); ++i) out.mutable_data()[i] = pwp::closed_form(f, x.data()[i]);
            return out;
        },
        py::arg("func"), py::arg("x").noconvert());
    m.def(
        "ulp_distance",
        [](const F32Array& a, const F32Array& b) {
            if (a.size() != b.size()) throw Error("ulp_distance: the arrays differ in size");
            py::array_t<double> out(a.size());
            for (py::ssize_t i = 0; i < a.size(); ++i) out.mutable_data()[i] = pwp::ulp_distance(a.data()[i], b.data()[i]);
            return out;
        },
        py::arg("a").noconvert(), py::arg("b").noconvert());
    // Accuracy of an evaluator against a catalog function's closed form, element by element;
    // an element the evaluator cannot evaluate is NaN in y and False in `handled`.
    m.def(
        "accuracy_arrays",
        [](const pwp::FunctionEvaluator& fe, const std::string& func, const F32Array& x) {
            const pwp::CatalogFn& f = catalog_fn(func);
            const size_t n = static_cast<size_t>(x.size());
            py::array_t<float> y(x.size()), c(x.size());
            py::array_t<double> abs_err(x.size()), rel_err(x.size()), ulp(x.size());
            py::array_t<bool> handled(x.size());
            const float* in = x.data();
            float* yo = y.mutable_data();
            bool* h = handled.mutable_data();
            float* co = c.mutable_data();
            double *ao = abs_err.mutable_data(), *ro = rel_err.mutable_data(), *uo = ulp.mutable_data();
            const std::shared_ptr<SharedPool> pool = pool_for(0);
            {
                py::gil_scoped_release unlocked;
                std::lock_guard<std::mutex> lock(pool->busy);
                for (size_t at = 0; at < n;) {
                    try {
                        fe.evaluate(in + at, yo + at, n - at, std::nullopt, pool->pool);
                        for (size_t i = at; i < n; ++i) h[i] = true;
                        break;
                    } catch (const pwp::ElementError& e) {
                        for (size_t i = at; i < at + e.index; ++i) h[i] = true;
                        h[at + e.index] = false;
                        yo[at + e.index] = std::numeric_limits<float>::quiet_NaN();
                        at += e.index + 1;
                    }
                }
                for (size_t i = 0; i < n; ++i) {
                    const float cv = pwp::closed_form(f, in[i]);
                    co[i] = cv;
                    const double a = std::fabs(double(yo[i]) - double(cv));
                    ao[i] = (yo[i] == cv) ? 0.0 : a;
                    ro[i] = (yo[i] == cv) ? 0.0 : a / std::fabs(double(cv));
                    uo[i] = h[i] ? pwp::ulp_distance(yo[i], cv) : std::numeric_limits<double>::quiet_NaN();
                }
            }
            return py::dict(py::arg("y") = y, py::arg("expected") = c, py::arg("abs") = abs_err, py::arg("rel") = rel_err, py::arg("ulp") = ulp,
                            py::arg("handled") = handled);
        },
        py::arg("evaluator"), py::arg("func"), py::arg("x").noconvert());
    m.def(
        "catalog_fn", [](const std::string& name) { return catalog_fn_dict(catalog_fn(name)); }, py::arg("name"));
}

}  // namespace neuronsim::python
