#include <algorithm>
#include <cstdio>
// `neuronsim act ...`: evaluate activation functions outside the simulated platform.
#include <functional>
#include <iostream>
#include <optional>

#include <spdlog/spdlog.h>

#include "apps/commands.h"
#include "model/common/error.h"
#include "model/common/worker_pool.h"
#include "model/fp/bits.h"
#include "model/io/bits_file.h"
#include "model/pwp/catalog.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/func_map.h"
#include "model/pwp/function_eval.h"
#include "model/pwp/profile_loader.h"
#include "model/workloads/act_functions.h"

namespace neuronsim::apps {

namespace {

using namespace model;

const char* kEvalHelp =
    "Evaluates one activation function over a file of binary32 values.\n\n"
    "  act eval --profile FILE.json            --in IN --out OUT [--scale S] [--bias B]\n"
    "      evaluate_generic on one per-function profile; the pre-scale in*S + B (float,\n"
    "      multiply then add) is applied only when --scale or --bias is given.\n"
    "  act eval --pwp-dir DIR --func NAME [--exact] --in IN --out OUT [--scale S] [--bias B] [--alpha A]\n"
    "      the reference simulator: FuncMap loads DIR's profiles, NAME is dispatched by name\n"
    "      (see 'act list'), out = f(in*S + B; A) with S=1, B=0 by default; --exact forces\n"
    "      the closed form (the reference's no-profile numerics).\n"
    "  act eval --set DIR/SET.json|SET [--target T] --func NAME_OR_ID --in IN --out OUT [--scale S] [--bias B]\n"
    "      the hardware path: the table-memory evaluator on a packed set's bkt/ctrl blobs and its\n"
    "      profile_meta_data; NAME_OR_ID is a bare name (exp), a stem (exp_400p) or a func_id (7).\n"
    "      A bare SET name (exp_and_others) is taken from the built-in generated catalog.\n\n"
    "IN/OUT hold one binary32 bit pattern per line as 8 hex digits (3f800000; 0x accepted on\n"
    "input); --format f32 makes both raw little-endian binary32. S, B, A are float32, given as\n"
    "decimals (0.5) or bit patterns (0x3f000000). An element that cannot be evaluated fails\n"
    "the command, naming its line and bits; OUT is then not written.";

// Elements evaluated per batch (split over the threads): memory stays flat however large IN is.
constexpr size_t kBatchElements = 1 << 18;

int run_eval(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("profile", po::value<std::string>(), "per-function profile JSON (evaluate_generic)")(
        "pwp-dir", po::value<std::string>(), "profile directory for the reference simulator")("set", po::value<std::string>(),
                                                                                              "packed set manifest DIR/SET.json, or a built-in set name")(
        "target", po::value<std::string>()->default_value("trainium"), "with a bare --set name: trainium or with_ln")(
        "func", po::value<std::string>(), "activation name (with --pwp-dir), e.g. Exp, Gelu")(
        "exact", po::bool_switch(), "with --pwp-dir: use the closed form, not the tables")("funcmap", po::value<std::string>(),
                                                                                           "FuncMap JSON replacing the built-in configs/pwp_funcmap.json")(
        "in", po::value<std::string>()->required(), "input element file")("out", po::value<std::string>()->required(), "output element file")(
        "scale", po::value<std::string>(), "pre-scale multiplier S (float32)")("bias", po::value<std::string>(), "pre-scale addend B (float32)")(
        "alpha", po::value<std::string>(), "alpha operand A (float32; used by Prelu)")("format", po::value<std::string>()->default_value("hex"),
                                                                                       "element file format: hex or f32")(
        "threads", po::value<unsigned>()->default_value(0), "host threads (0: the hardware threads); the results do not depend on it");
    po::variables_map vm;
    if (parse_options(prog, kEvalHelp, opts, args, vm)) return 0;

    const bool by_profile = vm.count("profile") > 0;
    const bool by_dir = vm.count("pwp-dir") > 0;
    const bool by_set = vm.count("set") > 0;
    if (by_profile + by_dir + by_set != 1) throw UsageError(prog + ": give exactly one of --profile, --pwp-dir or --set");
    if ((by_dir || by_set) && !vm.count("func")) throw UsageError(prog + ": --pwp-dir and --set need --func");
    if (by_profile && vm.count("func")) throw UsageError(prog + ": --func goes with --pwp-dir or --set, not --profile");
    if (!by_dir && (vm["exact"].as<bool>() || vm.count("funcmap"))) throw UsageError(prog + ": --exact and --funcmap go with --pwp-dir");
    if (!by_dir && vm.count("alpha")) throw UsageError(prog + ": --alpha has no effect on the tables; use --pwp-dir with Prelu");

    const io::ElementFormat format = io::parse_element_format(vm["format"].as<std::string>());
    const float scale = float_operand(vm, "scale", 1.0f);
    const float bias = float_operand(vm, "bias", 0.0f);
    const float alpha = float_operand(vm, "alpha", 0.0f);
    const std::string in_path = vm["in"].as<std::string>();
    const std::string out_path = vm["out"].as<std::string>();

    std::optional<pwp::FunctionEvaluator> fe;
    if (by_profile) {
        pwp::Profile profile = pwp::load_profile(vm["profile"].as<std::string>());
        for (const std::string& w : profile.warnings) spdlog::warn("{}: {}", profile.source, w);
        fe.emplace(pwp::FunctionEvaluator::of_profile(std::move(profile)));
    } else if (by_set) {
        fe.emplace(pwp::FunctionEvaluator::of_set(pwp::read_set(pwp::resolve_set(vm["set"].as<std::string>(), vm["target"].as<std::string>())),
                                                  vm["func"].as<std::string>()));
    } else {
        const std::string dir = vm["pwp-dir"].as<std::string>();
        pwp::FuncMap map = vm.count("funcmap") ? pwp::load_func_map(vm["funcmap"].as<std::string>()) : pwp::builtin_func_map();
        try {
            fe.emplace(pwp::FunctionEvaluator::of_pwp_dir(dir, map, vm["func"].as<std::string>(), vm["exact"].as<bool>(), alpha));
        } catch (const Error& e) {
            throw Error("--pwp-dir " + dir + ": " + e.what());
        }
    }
    std::optional<pwp::Prescale> pre;
    if (vm.count("scale") || vm.count("bias") || by_dir) pre = pwp::Prescale{scale, bias};
    model::WorkerPool pool(vm["threads"].as<unsigned>());

    // Streams: a batch of elements at a time, into a temporary renamed over OUT when all are done.
    io::ElementReader reader(in_path, format);
    std::vector<float> in, out;
    io::ElementWriter writer(out_path, format);
    while (reader.next(in, kBatchElements)) {
        out.resize(in.size());
        try {
            fe->evaluate(in.data(), out.data(), in.size(), pre, pool);
        } catch (const pwp::ElementError& e) {
            throw Error(reader.place(e.index) + ": element 0x" + fp::hex8(fp::bits_of(in[e.index])) + ": " + e.what());
        }
        writer.write(out.data(), out.size());
    }
    writer.commit();
    spdlog::info("wrote {} element(s) to {}", writer.count(), out_path);
    return 0;
}

int run_list(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("funcmap", po::value<std::string>(), "FuncMap JSON replacing the built-in one")(
        "functions", po::bool_switch(), "instead: the functions a trace names (func=NAME), their func_id and the sets that hold them");
    po::variables_map vm;
    if (parse_options(prog,
                      "Lists the 31 activation names of the reference dispatch, in its order,\nwith the profile file the FuncMap loads for each. "
                      "With --functions: the catalog's functions\nas traces name them (func=NAME or its func_id) on the resident target, trainium,\n"
                      "and the sets (set=NAME or its index) that hold each.",
                      opts, args, vm))
        return 0;
    if (vm["functions"].as<bool>()) {
        const auto& sets = model::workloads::trainium_sets();
        std::printf("%-28s %7s  %s\n", "function", "func_id", "sets holding it (index name)");
        std::vector<std::string> seen;
        for (const pwp::CatalogFn& f : pwp::catalog()) {
            if (f.sunda_id <= 0 || std::find(seen.begin(), seen.end(), f.name) != seen.end()) continue;
            seen.push_back(f.name);
            std::string in;
            for (size_t i = 0; i < sets.size(); ++i)
                if (model::workloads::set_holds(int(i), f.name)) in += (in.empty() ? "" : ", ") + std::to_string(i) + " " + sets[i].name;
            std::printf("%-28s %7d  %s\n", f.name.c_str(), f.sunda_id, in.empty() ? "(none of the built-in sets)" : in.c_str());
        }
        return 0;
    }
    pwp::FuncMap map = vm.count("funcmap") ? pwp::load_func_map(vm["funcmap"].as<std::string>()) : pwp::builtin_func_map();
    for (std::string_view name : pwp::act_fn_names()) {
        std::string file = "-";
        for (const auto& e : map)
            if (pwp::act_fn_name(e.fn) == name) file = e.file;
        if (name == "Prelu") file = "- (no PWP path: alpha slope)";
        std::cout << name << std::string(name.size() < 32 ? 32 - name.size() : 1, ' ') << file << "\n";
    }
    return 0;
}

}  // namespace

Command act_command() {
    return {"act", "evaluate activation functions (eval, list)", [](const std::string& prog, const std::vector<std::string>& args) {
                return dispatch(prog, "Activation-function tools outside the simulated platform.",
                                {{"eval", "evaluate a function over a file of binary32 values", run_eval},
                                 {"list", "list the activation names and their profile files", run_list}},
                                args);
            }};
}

}  // namespace neuronsim::apps
