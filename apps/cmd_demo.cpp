// `neuronsim demo`: the built-in evaluation demo (the main job until traces run).
#include <cstdio>
#include <iostream>

#include "apps/commands.h"
#include "model/common/error.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/simulator.h"

namespace neuronsim::apps {

namespace {

using namespace model;

int run_demo(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("pwp-dir", po::value<std::string>(), "profile directory (default: the built-in generated catalog's pwp_jsons)");
    po::variables_map vm;
    if (parse_options(prog,
                      "Prints a small table of activation results through the reference simulator:\n"
                      "the exact closed forms, then the PWP tables' results for the same inputs.",
                      opts, args, vm))
        return 0;

    const std::vector<std::string> funcs = {"Exp", "Sigmoid", "Tanh", "Gelu", "Silu", "Reciprocal", "Sqrt"};
    const std::vector<float> xs = {-4.0f, -1.0f, -0.5f, 0.0f, 0.25f, 1.0f, 2.0f, 8.0f};

    auto table = [&](const pwp::Simulator& sim, bool use_pwp, const char* title) {
        std::printf("%s\n%10s", title, "x");
        for (const auto& f : funcs) std::printf(" %13s", f.c_str());
        std::printf("\n");
        for (float x : xs) {
            std::printf("%10g", static_cast<double>(x));
            for (const auto& f : funcs) {
                float y = 0;
                try {
                    pwp::activate(sim, f, &y, &x, 1, 1.0f, 0.0f, 0.0f, use_pwp);
                    std::printf(" %13.7g", static_cast<double>(y));
                } catch (const pwp::ElementError& e) {
                    // An unhandled section of the table, or no profile for the function.
                    std::printf(" %13s", std::string(e.what()).rfind("Unhandled", 0) == 0 ? "(no section)" : "(no profile)");
                }
            }
            std::printf("\n");
        }
    };

    pwp::Simulator exact_sim("");
    table(exact_sim, false, "Reference closed forms, out = f(x):");
    const std::string dir = vm.count("pwp-dir") ? vm["pwp-dir"].as<std::string>() : pwp::default_catalog_dir() + "/pwp_jsons";
    pwp::Simulator sim(dir);
    if (!sim.can_use_pwp_table()) throw Error("--pwp-dir " + sim.pwp_path() + ": does not open");
    std::printf("\n");
    table(sim, true, ("PWP tables (evaluate_generic) from " + sim.pwp_path() + ":").c_str());
    return 0;
}

}  // namespace

Command demo_command() { return {"demo", "print a small table of activation results: the closed forms beside the tables", run_demo}; }

}  // namespace neuronsim::apps
