// `neuronsim kernel`: writes a runnable trace of a tiled kernel at real sizes (model/workloads).
#include <cstdio>
#include <iostream>

#include "apps/commands.h"
#include "apps/config_options.h"
#include "model/common/error.h"
#include "model/workloads/kernels.h"

namespace neuronsim::apps {

namespace {

namespace wl = model::workloads;

int run_kernel(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("name", po::value<std::string>(),
                       "kernel: softmax, rmsnorm, layernorm, mlp-act, mlp, linear, attention, cptc-dequant-act (also positional)")(
        "list", po::bool_switch(), "list the kernels, the model presets and their parameters")("out,o", po::value<std::string>(),
                                                                                               "the trace to write; its .data inputs are written beside it")(
        "shape", po::value<std::string>(), "ROWSxCOLS (rows are tiled over the 128 partitions, cols are each row's free elements)")(
        "dtype", po::value<std::string>()->default_value("fp32"), "element type of inputs and outputs: fp32, bf16, fp16")(
        "act", po::value<std::string>(),
        "mlp-act: gelu (default) or silu; mlp: gelu (default; BERT's W_1, gelu, W_2) or silu (LLaMA's gated form); cptc-dequant-act: gelu (default), "
        "silu, identity")("intermediate", po::value<uint64_t>(), "mlp: the intermediate size (default 3072)")(
        "heads", po::value<uint64_t>(), "attention: the heads; they divide the hidden size (default hidden/64)")(
        "features", po::value<uint64_t>(), "linear: the output features (default: the input's)")("bits", po::value<unsigned>()->default_value(4),
                                                                                                 "cptc-dequant-act: CPTC-K, K in 1..7")(
        "eps", po::value<std::string>(), "rmsnorm/layernorm epsilon (default 1e-5)")("seed", po::value<uint64_t>()->default_value(1),
                                                                                     "seed of the generated inputs")(
        "dma-lanes", po::value<uint32_t>()->default_value(0),
        "0 (default): each tile's load is one transfer on queue dma.0 (stores dma.1) that the device spreads over its DMA engines; K: the "
        "per-engine form, a tile's rows split over K engines for loads and K others for stores")(
        "buffers", po::value<uint32_t>()->default_value(0), "SBUF slots a phase cycles through (0: as many as fit, up to 4; 1: no double buffering)")(
        "max-data-mib", po::value<uint64_t>()->default_value(64),
        "largest input tensor written whole; larger ones are a ring of tiles the loads cycle through, whose outputs land in a ring of the "
        "same rows within the same budget")(
        "model", po::value<std::string>(),
        "preset: bert-base or llama2-7b (one layer: norms, QKV projection, attention, out projection, MLP; with --layer, --seq)")(
        "layer", po::value<uint32_t>()->default_value(0), "preset: the layer (0-based; it selects the seed)")("seq", po::value<uint64_t>(),
                                                                                                              "preset: the sequence length");
    add_config_options(opts);
    po::positional_options_description pos;
    pos.add("name", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "Writes a complete, runnable trace of a tiled kernel as a compiler would schedule it: 128-row\n"
                      "tiles, DMA loads and stores on separate engines double-buffered against compute,\n"
                      "semaphores between the engines, table loads only when a step needs a set that is not\n"
                      "resident. The inputs come from --seed and are written beside the trace; .dump lines\n"
                      "name the outputs `neuronsim run` will write. Shapes over a limit of the generation\n"
                      "(free size, SBUF) are refused naming the limit. docs/workloads.md has the details.",
                      opts, args, vm, &pos,
                      "NAME [--shape RxC] [--dtype T] [--gen G] [--seed S] -o FILE.trace | --model M --layer N --seq S -o FILE.trace | --list"))
        return 0;
    if (vm["list"].as<bool>()) {
        std::cout << wl::kernel_list();
        return 0;
    }
    wl::KernelRequest r;
    if (vm.count("name")) r.kernel = vm["name"].as<std::string>();
    if (vm.count("model")) r.model = vm["model"].as<std::string>();
    if (r.kernel.empty() && r.model.empty()) throw UsageError(prog + ": name a kernel (or --model, or --list)");
    if (!vm.count("out")) throw UsageError(prog + ": -o FILE.trace is required");
    if (vm.count("shape")) {
        if (!r.model.empty()) throw UsageError(prog + ": --shape does not apply to --model (the model's sizes and --seq decide)");
        try {
            wl::parse_kernel_shape(vm["shape"].as<std::string>(), r);
        } catch (const Error& e) {
            throw UsageError(prog + ": " + e.what());
        }
    }
    if (r.model.empty() && (vm.count("seq") || !vm["layer"].defaulted())) throw UsageError(prog + ": --layer and --seq apply to --model only");
    try {
        r.dtype = wl::parse_kernel_dtype(vm["dtype"].as<std::string>());
    } catch (const Error& e) {
        throw UsageError(prog + ": " + e.what());
    }
    if (vm.count("act")) r.act = vm["act"].as<std::string>();
    r.bits = vm["bits"].as<unsigned>();
    if (vm.count("intermediate")) r.intermediate = vm["intermediate"].as<uint64_t>();
    for (const char* key : {"intermediate", "heads", "features"})
        if (vm.count(key) && vm[key].as<uint64_t>() == 0) throw UsageError(prog + ": --" + key + " 0: expected a positive number");
    if (vm.count("heads")) r.heads = vm["heads"].as<uint64_t>();
    if (vm.count("features")) r.features = vm["features"].as<uint64_t>();
    r.eps = float_operand(vm, "eps", 1e-5f);
    r.seed = vm["seed"].as<uint64_t>();
    r.lanes = vm["dma-lanes"].as<uint32_t>();
    r.buffers = vm["buffers"].as<uint32_t>();
    r.max_data_bytes = vm["max-data-mib"].as<uint64_t>() << 20;
    if (vm.count("seq")) r.seq = vm["seq"].as<uint64_t>();
    r.layer = vm["layer"].as<uint32_t>();
    const Config cfg = config_from(vm);
    const std::string out = vm["out"].as<std::string>();
    const wl::KernelSummary s = wl::write_kernel(r, wl::gen_limits(cfg), out);

    std::printf("wrote %s (%llu bytes) for %s:\n", out.c_str(), static_cast<unsigned long long>(s.trace_bytes), cfg.generation.name.c_str());
    for (const auto& p : s.phases) std::printf("  %s\n", p.c_str());
    std::printf("%llu tiles, %llu table load%s, %llu elements; instructions:", static_cast<unsigned long long>(s.tiles),
                static_cast<unsigned long long>(s.table_loads), s.table_loads == 1 ? "" : "s", static_cast<unsigned long long>(s.elements));
    for (const auto& [engine, n] : s.instructions) std::printf(" %s %llu", engine.c_str(), static_cast<unsigned long long>(n));
    std::printf("\ninputs (.data):\n");
    for (const auto& f : s.files) std::printf("  %s (%llu bytes)\n", f.path.c_str(), static_cast<unsigned long long>(f.bytes));
    if (s.ringed) std::printf("  inputs over --max-data-mib repeat as a ring of whole tiles; the outputs land in a ring of the same size\n");
    std::printf("outputs (.dump, written into the run's --out):");
    for (const auto& d : s.dumps) std::printf(" %s", d.c_str());
    std::string flags;
    for (const auto& f : s.run_flags) flags += " " + f;
    std::printf("\nrun: neuronsim run %s--trace %s%s\n", vm.count("gen") ? ("--gen " + vm["gen"].as<std::string>() + " ").c_str() : "", out.c_str(),
                flags.c_str());
    for (const auto& n : s.notes) std::printf("note: %s\n", n.c_str());
    return 0;
}

}  // namespace

Command kernel_command() { return {"kernel", "write a runnable trace of a tiled kernel (softmax, norms, MLP, attention, CPTC) or a model layer", run_kernel}; }

}  // namespace neuronsim::apps
