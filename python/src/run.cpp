// run: a trace on the simulated NeuronCore into a run directory, in this process, exactly as
// `neuronsim run` writes it (platform/host/run_directory.h); the Python half reads the
// directory back as arrays and tables.
#include <pybind11/stl.h>

#include <mutex>
#include <optional>

#include "model/io/sha256.h"
#include "model/io/write_file.h"
#include "model/trace/assembler.h"
#include "neuronsim/config.h"
#include "platform/config.h"
#include "platform/host/run_directory.h"
#include "platform/host/simulate.h"
#include "python/src/bindings.h"

namespace neuronsim::python {

namespace py = pybind11;
using namespace platform;

namespace {

// The run of `trace` into `out` (prepared: prepare_run_directory was called, and the caller
// staged its inputs there). Any failure after the directory is prepared is written into its
// RUN_INCOMPLETE, as the CLI does.
py::dict run_trace(const std::string& trace, const std::string& out, const std::string& gen, const std::vector<std::string>& overlays,
                   std::vector<std::string> overrides, const std::string& numerics, const std::string& act_numerics, const std::string& pwp,
                   std::optional<unsigned> threads, bool cost_model, bool csv, bool timeline, bool prepared, const std::string& uninitialised,
                   const std::string& hazards) {
    if (numerics != "full" && numerics != "none") throw Error("numerics: expected 'full' or 'none', got '" + numerics + "'");
    if (act_numerics != "pwp" && act_numerics != "exact") throw Error("act_numerics: expected 'pwp' or 'exact', got '" + act_numerics + "'");
    if (uninitialised != "zero" && uninitialised != "nan") throw Error("uninitialised: expected 'zero' or 'nan', got '" + uninitialised + "'");
    if (hazards != "warn" && hazards != "error" && hazards != "off") throw Error("hazards: expected 'warn', 'error' or 'off', got '" + hazards + "'");
    // SystemC's simulation context is one per process: runs from several Python threads take
    // turns (the lock is taken with the GIL released, so a waiting thread blocks no other).
    RunReport rep;
    std::string generation;
    try {
        py::gil_scoped_release unlocked;
        static std::mutex one_run_at_a_time;
        std::lock_guard<std::mutex> lock(one_run_at_a_time);
        if (!prepared) prepare_run_directory(out, false);
        RunInputs inputs;
        inputs.overrides = overrides;
        if (threads) overrides.insert(overrides.begin(), "run.host_threads=" + std::to_string(*threads));
        const Config cfg = compose_config(gen, overlays, overrides);
        generation = cfg.generation.name;
        inputs.preset = canonical_generation(cfg.generation.name);
        for (const std::string& o : overlays) inputs.overlays.emplace_back(o, model::io::sha256_file(o, "config overlay"));
        inputs.trace_path = trace;
        inputs.trace_sha256 = model::io::sha256_file(trace, "trace");

        RunOptions ro;
        ro.out_dir = out;
        ro.dumps_overwrite = false;
        ro.pwp_dir = pwp;
        DeviceOptions& d = ro.device;
        d.act_exact = act_numerics == "exact";
        d.uninitialised_nan = uninitialised == "nan";
        d.timing_only = numerics == "none";
        d.hazards = hazards == "off" ? DeviceOptions::Hazards::Off : DeviceOptions::Hazards::Collect;
        d.cost_model = cost_model;
        d.record_csv = csv;
        d.record_timeline = timeline;
        d.process_name = "neuronsim " + cfg.generation.name + ": " + trace;

        const std::string streams = out + "/streams";
        model::trace::assemble_trace(trace, streams);
        fresh_simulation_context();
        rep = run_into_directory(cfg, inputs, streams, ro);
    } catch (const RunDirectoryRefused&) {
        throw;
    } catch (const std::exception& e) {
        model::io::write_file_atomic(out + "/" + kRunIncomplete, std::string("failed: ") + e.what() + "\n");
        throw;
    }
    py::list found;
    for (size_t i = 0; i < rep.hazards.size(); ++i) {
        const Hazard& h = rep.hazards[i];
        auto side = [](const Hazard::Side& x) -> py::object {
            if (x.engine.empty()) return py::none();
            return py::dict(py::arg("engine") = x.engine, py::arg("index") = x.index, py::arg("mnemonic") = x.mnemonic,
                            py::arg("issue_ns") = x.issue_ps / 1000.0,
                            py::arg("end_ns") = x.completed ? py::object(py::float_(x.end_ps / 1000.0)) : py::object(py::none()));
        };
        found.append(py::dict(py::arg("kind") = h.kind, py::arg("first") = side(h.first), py::arg("second") = side(h.second), py::arg("memory") = h.memory,
                              py::arg("partitions") = py::make_tuple(h.partition_first, h.partition_last + 1),
                              py::arg("bytes") = py::make_tuple(h.byte_first, h.byte_end), py::arg("text") = rep.hazard_text[i]));
    }
    return py::dict(py::arg("simulated_ns") = rep.simulated.to_seconds() * 1e9, py::arg("instructions") = rep.instructions,
                    py::arg("wall_seconds") = rep.wall_seconds, py::arg("dumps") = rep.dumps, py::arg("generation") = generation, py::arg("hazards") = found);
}

}  // namespace

void bind_run(py::module_& m) {
    m.def("run_trace", &run_trace, py::arg("trace"), py::arg("out"), py::arg("gen"), py::arg("overlays"), py::arg("overrides"), py::arg("numerics"),
          py::arg("act_numerics"), py::arg("pwp"), py::arg("threads"), py::arg("cost_model"), py::arg("csv"), py::arg("timeline"), py::arg("prepared"),
          py::arg("uninitialised"), py::arg("hazards"));
    m.def(
        "memory",
        [](const std::string& gen) {
            const Config c = compose_config(gen, {}, {});
            return py::dict(py::arg("generation") = c.generation.name, py::arg("partitions") = c.memory.partitions,
                            py::arg("sbuf_bytes_per_partition") = c.memory.sbuf_bytes_per_partition,
                            py::arg("psum_bytes_per_partition") = c.memory.psum_bytes_per_partition(), py::arg("psum_bank_bytes") = c.memory.psum_bank_bytes,
                            py::arg("dram_bytes") = c.memory.dram_bytes);
        },
        py::arg("gen"));
    m.def("prepare_run_directory", &prepare_run_directory, py::arg("out"), py::arg("force"));
    m.def("generations", [] { return generation_names(); });
    m.def("canonical_generation", &canonical_generation, py::arg("generation"));
    m.def(
        "config_yaml",
        [](const std::string& gen, const std::vector<std::string>& overlays, const std::vector<std::string>& overrides) {
            return config_to_yaml(compose_config(gen, overlays, overrides));
        },
        py::arg("gen"), py::arg("overlays"), py::arg("overrides"));
}

}  // namespace neuronsim::python
