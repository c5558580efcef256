// `neuronsim pwp ...`: generate, pack, inspect, check, measure and verify PWP tables.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "apps/commands.h"
#include "model/common/error.h"
#include "model/common/progress_line.h"
#include "model/fp/bits.h"
#include "model/io/json_path.h"
#include "model/pwp/accuracy.h"
#include "model/pwp/catalog.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/fast_eval.h"
#include "model/pwp/flat_table.h"
#include "model/pwp/generator.h"
#include "model/pwp/profile_loader.h"
#include "model/pwp/roster.h"
#include "model/pwp/set_check.h"
#include "model/pwp/table_eval.h"
#include "model/pwp/verify_all.h"

namespace neuronsim::apps {

namespace {

using namespace model;
using namespace model::pwp;

int run_gen(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("out", po::value<std::string>()->required(), "output directory")("func", po::value<std::vector<std::string>>()->multitoken(),
                                                                                        "only these functions (bare name or stem, e.g. exp or ln_400p)")(
        "stamp", "mark DIR as this build's built-in catalog (the build does this; not with --func)");
    po::variables_map vm;
    if (parse_options(prog,
                      "Generates the PWP catalog: DIR/pwp_jsons (one profile per function),\n"
                      "DIR/pwp_bin_trainium and DIR/pwp_bin_with_ln (act_info.json, version.json and\n"
                      "every set's _bkt.bin, _ctrl.bin and .json). Deterministic. With --func, only\n"
                      "those profiles, and only the sets whose members were all generated.",
                      opts, args, vm))
        return 0;
    std::vector<std::string> only = vm.count("func") ? vm["func"].as<std::vector<std::string>>() : std::vector<std::string>{};
    if (vm.count("stamp") && !only.empty()) throw UsageError("--stamp marks a whole catalog: leave out --func");
    auto t0 = std::chrono::steady_clock::now();
    CatalogReport rep = write_catalog(vm["out"].as<std::string>(), only);
    if (vm.count("stamp")) stamp_built_in_catalog(vm["out"].as<std::string>());
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("wrote %zu profiles and %zu sets to %s in %.2f s\n", rep.profiles.size(), rep.sets.size(), vm["out"].as<std::string>().c_str(), s);
    for (const auto& sk : rep.skipped_sets) std::printf("  skipped %s (not every member was generated)\n", sk.c_str());
    return 0;
}

int run_pack(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("target", po::value<std::string>()->required(), "trainium (func_id = sunda_id, ctrl stride 32) or with_ln (tonga_id, 16)")(
        "name", po::value<std::string>()->required(), "set name: writes NAME_bkt.bin, NAME_ctrl.bin, NAME.json")(
        "out", po::value<std::string>()->required(), "output directory")("profile", po::value<std::vector<std::string>>()->required(),
                                                                         "member profiles in set order (also positional)");
    po::positional_options_description pos;
    pos.add("profile", -1);
    po::variables_map vm;
    if (parse_options(prog,
                      "Packs profiles into one function set, members in the order given; each member's\n"
                      "name is its file stem without the trailing _<N>p. The set is also listed in\n"
                      "DIR/act_info.json (after the sets already there; its position is its index, set=N)\n"
                      "and DIR/version.json is written if absent, so `run --pwp DIR` loads DIR.",
                      opts, args, vm, &pos, "--target trainium|with_ln --name SET --out DIR PROFILE.json..."))
        return 0;
    std::vector<SetMember> members;
    std::vector<std::string> stems;
    for (const std::string& path : vm["profile"].as<std::vector<std::string>>()) {
        Profile p = load_profile(path);
        stems.push_back(std::filesystem::path(path).stem().string());
        members.push_back({stems.back(), std::move(p)});
    }
    PackedSet set = pack_set(parse_target(vm["target"].as<std::string>()), vm["name"].as<std::string>(), members);
    write_set(set, vm["out"].as<std::string>());
    list_set_in_act_info(set.name, stems, vm["out"].as<std::string>());
    std::printf("packed %zu functions into %s/%s: %lld bkt records, %lld ctrl words (stride %zu)\n", members.size(), vm["out"].as<std::string>().c_str(),
                set.name.c_str(), static_cast<long long>(set.manifest.bkt_entry_cnt), static_cast<long long>(set.manifest.ctl_entry_cnt), set.stride);
    return 0;
}

std::string f32(uint32_t bits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%08x (%.9g)", bits, static_cast<double>(fp::float_of(bits)));
    return buf;
}

void inspect_profile(const std::string& path) {
    Profile p = load_profile(path);
    std::printf("profile %s: name \"%s\", %zu stored sections", path.c_str(), p.name.c_str(), p.stored_sections());
    if (p.meta.lut_size) std::printf(" (lut_size %lld)", static_cast<long long>(*p.meta.lut_size));
    std::printf("\n  symmetry_en %d invert_sign %d use_neg_region %d symmetry_point %s\n", p.symmetry_en, p.symmetry_invert_sign_opt,
                p.symmetry_opt_use_neg_region, f32(fp::bits_of(p.symmetry_point)).c_str());
    std::printf("  zero %s  nan %s  +inf %s  -inf %s\n", f32(fp::bits_of(p.zero_result)).c_str(), f32(fp::bits_of(p.nan_result)).c_str(),
                f32(fp::bits_of(p.pinf_result)).c_str(), f32(fp::bits_of(p.ninf_result)).c_str());
    for (const auto& [region, label] : {std::pair{&p.neg, "neg"}, std::pair{&p.pos, "pos"}}) {
        std::printf("  %s octaves (exponent:extract_size:stored):", label);
        int n = 0;
        for (int b = 0; b < 256; ++b) {
            const auto& o = region->octaves[b];
            if (!o.declared) continue;
            std::printf("%s %d:%u:%u", (n++ % 8 == 0) ? "\n   " : "", b - 127, o.extract_size, o.count);
        }
        std::printf("%s\n", n ? "" : " none");
    }
    for (const auto& [s, label] : {std::pair{&p.sat_pos_high, "pos_high"}, std::pair{&p.sat_pos_low, "pos_low"}, std::pair{&p.sat_neg_high, "neg_high"},
                                   std::pair{&p.sat_neg_low, "neg_low"}})
        std::printf("  clamp %-8s sat_point %d mantissa_point %d  x %s d0 %s d1 %s d2 %s d3 %s\n", label, s->sat_point, s->mantissa_point,
                    f32(fp::bits_of(s->section.x)).c_str(), f32(fp::bits_of(s->section.d0)).c_str(), f32(fp::bits_of(s->section.d1)).c_str(),
                    f32(fp::bits_of(s->section.d2)).c_str(), f32(fp::bits_of(s->section.d3)).c_str());
    for (const auto& w : p.warnings) std::printf("  warning: %s\n", w.c_str());
}

void inspect_manifest(const std::string& path) {
    SetManifest m = parse_manifest(io::read_text_file(path, io::kMaxJsonFileBytes, "set manifest"), path);
    std::printf("set manifest %s: %s %lld records, %s %lld words, %zu functions\n", path.c_str(), m.bkt_bin.c_str(), static_cast<long long>(m.bkt_entry_cnt),
                m.ctl_bin.c_str(), static_cast<long long>(m.ctl_entry_cnt), m.profile_meta_data.size());
    std::printf("  %-36s %5s %6s %6s %6s %7s %s\n", "function", "id", "bkt", "ctrl", "exp_off", "base+/-", "clamps(pos_lo neg_lo pos_hi neg_hi) thresholds");
    for (const FuncMeta& f : m.profile_meta_data) {
        long long b = -1, c = -1;
        for (const auto& [k, v] : m.func_to_bkt_start_idx)
            if (k == f.bare_name()) b = v;
        for (const auto& [k, v] : m.func_to_ctl_start_idx)
            if (k == f.bare_name()) c = v;
        std::printf("  %-36s %5lld %6lld %6lld %6lld %3lld/%-3lld %lld %lld %lld %lld  small %lld/%lld large %lld:%lld/%lld:%lld sym %d%d%d\n",
                    f.func_name.c_str(), static_cast<long long>(f.func_id), b, c, static_cast<long long>(f.exp_offset),
                    static_cast<long long>(f.pwl_control_base_pos), static_cast<long long>(f.pwl_control_base_neg),
                    static_cast<long long>(f.pos_small_signal_pwl_control), static_cast<long long>(f.neg_small_signal_pwl_control),
                    static_cast<long long>(f.pos_large_signal_pwl_control), static_cast<long long>(f.neg_large_signal_pwl_control),
                    static_cast<long long>(f.small_pos_signal_exp_threshold), static_cast<long long>(f.small_neg_signal_exp_threshold),
                    static_cast<long long>(f.large_pos_signal_exp_threshold), static_cast<long long>(f.large_pos_signal_mantissa_threshold),
                    static_cast<long long>(f.large_neg_signal_exp_threshold), static_cast<long long>(f.large_neg_signal_mantissa_threshold), f.symmetry_opt_en,
                    f.sym_invert_sign_point, f.symmetry_opt_use_neg_region);
    }
}

void inspect_bkt(const std::string& path) {
    const std::vector<uint8_t> b = io::read_bytes_checked(path, io::kMaxBlobFileBytes, "bkt blob");
    if (b.size() % kBktRecordBytes) throw Error(path + ": " + std::to_string(b.size()) + " bytes is not a whole number of 32-byte records");
    std::printf("bkt %s: %zu records [d0, d1, d2, d3, x] + 12 pad bytes\n", path.c_str(), b.size() / kBktRecordBytes);
    for (size_t i = 0; i < b.size() / kBktRecordBytes; ++i) {
        Section s = read_bkt(b, i);
        std::printf("  %5zu d0 %-26s d1 %-26s d2 %-26s d3 %-26s x %s%s\n", i, f32(fp::bits_of(s.d0)).c_str(), f32(fp::bits_of(s.d1)).c_str(),
                    f32(fp::bits_of(s.d2)).c_str(), f32(fp::bits_of(s.d3)).c_str(), f32(fp::bits_of(s.x)).c_str(),
                    bkt_pad_is_zero(b, i) ? "" : "  PAD NOT ZERO");
    }
}

void inspect_ctrl(const std::string& path, size_t stride) {
    const std::vector<uint8_t> b = io::read_bytes_checked(path, io::kMaxBlobFileBytes, "ctrl blob");
    if (stride == 0) {
        // The sibling manifest knows the count; stride = size / count.
        std::string man = path.substr(0, path.size() - std::string("_ctrl.bin").size()) + ".json";
        SetManifest m = parse_manifest(io::read_text_file(man, io::kMaxJsonFileBytes, "set manifest"), man);
        if (m.ctl_entry_cnt <= 0 || b.size() % static_cast<size_t>(m.ctl_entry_cnt))
            throw Error(path + ": size " + std::to_string(b.size()) + " is not a multiple of ctl_entry_cnt " + std::to_string(m.ctl_entry_cnt) + " from " +
                        man);
        stride = b.size() / static_cast<size_t>(m.ctl_entry_cnt);
    }
    if (stride < 4 || b.size() % stride) throw Error(path + ": size " + std::to_string(b.size()) + " is not a multiple of stride " + std::to_string(stride));
    std::printf("ctrl %s: %zu words, stride %zu B\n", path.c_str(), b.size() / stride, stride);
    for (size_t i = 0; i < b.size() / stride; ++i) {
        uint32_t w = read_ctrl(b, i, stride);
        CtrlWord c = unpack_ctrl(w);
        std::printf("  %5zu %08x  bkt_base %4u extract_lsb %2u extract_size %2u%s%s\n", i, w, c.bkt_base, c.extract_lsb, c.extract_size,
                    c.reserved ? "  RESERVED BITS SET" : "", ctrl_pad_is_zero(b, i, stride) ? "" : "  PAD NOT ZERO");
    }
}

int run_inspect(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("file", po::value<std::string>()->required(),
                       "profile .json, set manifest .json, act_info.json, *_bkt.bin or *_ctrl.bin (also positional)")(
        "stride", po::value<size_t>()->default_value(0), "ctrl stride in bytes (default: from the sibling <set>.json)");
    po::positional_options_description pos;
    pos.add("file", 1);
    po::variables_map vm;
    if (parse_options(prog, "Decodes a PWP file into readable text.", opts, args, vm, &pos, "FILE [--stride N]")) return 0;
    const std::string path = vm["file"].as<std::string>();
    auto ends = [&](const char* suffix) {
        std::string s(suffix);
        return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
    };
    if (ends("_bkt.bin")) inspect_bkt(path);
    else if (ends("_ctrl.bin")) inspect_ctrl(path, vm["stride"].as<size_t>());
    else {
        const std::string text = io::read_text_file(path, io::kMaxJsonFileBytes, "PWP JSON file");
        nlohmann::ordered_json j = io::parse_json_text(text, path);
        if (j.is_object() && j.contains("pos_exponents")) inspect_profile(path);
        else if (j.is_object() && j.contains("profile_meta_data")) inspect_manifest(path);
        else if (j.is_object() && j.contains("act_func_sets")) {
            auto sets = parse_act_info(text, path);
            std::printf("act_info %s: %zu sets\n", path.c_str(), sets.size());
            for (size_t i = 0; i < sets.size(); ++i) {
                std::printf("  %2zu %-42s", i, sets[i].name.c_str());
                for (const auto& [f, b] : sets[i].act) std::printf(" %s[%d]", f.c_str(), b);
                std::printf("\n");
            }
        } else {
            throw Error(path + ": not a profile (pos_exponents), set manifest (profile_meta_data) or act_info.json (act_func_sets)");
        }
    }
    return 0;
}

int run_check(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("dir", po::value<std::string>()->required(), "a pwp_bin_* directory (also positional)");
    po::positional_options_description pos;
    pos.add("dir", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "Validates a pwp_bin_* directory (ours or the vendor's): counts against file\n"
                      "sizes, zero pads and reserved bits, extract_lsb == 23 - extract_size, bases that\n"
                      "accumulate the actual sections, top-octave mantissa thresholds against the\n"
                      "materialised sections, clamp pointers, the ctrl stride (size / count), members\n"
                      "against act_info.json. Prints each violation with file and record; exit 1 if any.",
                      opts, args, vm, &pos, "DIR"))
        return 0;
    const std::string dir = vm["dir"].as<std::string>();
    CheckResult r = check_pwp_dir(dir);
    for (const CheckIssue& i : r.issues) std::printf("%s/%s: %s: %s\n", dir.c_str(), i.file.c_str(), i.where.c_str(), i.what.c_str());
    std::printf("%s: %zu sets, %zu functions, %zu bkt records, %zu ctrl words: %zu violation(s)\n", dir.c_str(), r.sets, r.functions, r.bkt_records,
                r.ctrl_words, r.issues.size());
    return r.issues.empty() ? 0 : 1;
}

// The certified |x| range of a catalog function, "+-[lo, hi]" where negatives are included.
std::string certified_text(const CatalogFn& fn) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s[%.3g, %.3g]", fn.domain_neg ? "+-" : "", std::max(fn.domain_lo, fn.cert_lo), std::min(fn.domain_hi, fn.cert_hi));
    return buf;
}

int run_accuracy(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("func", po::value<std::vector<std::string>>()->multitoken(), "only these functions (bare name or stem)")(
        "samples", po::value<uint32_t>()->default_value(4096), "mantissas per octave")("json", po::bool_switch(), "print JSON instead of a table");
    po::variables_map vm;
    if (parse_options(prog,
                      "Generates each catalog function's table and measures it with evaluate_generic\n"
                      "against the closed form over a dense sweep of every octave of its valid domain.\n"
                      "The bar: |y - f| <= 1e-6 max(|f|, 0.1); its score |y - f| / max(|f|, 0.1) must be\n"
                      "<= 1e-6 over the domain the catalog certifies (narrower than the sweep only where\n"
                      "float coefficients or the lut_size cannot hold the cubic, docs/pwp-tables.md).\n"
                      "Prints lut_size, the certified |x| range, the max score there and its worst input,\n"
                      "the |x| range where the bar is missed, max and mean relative error (normal\n"
                      "results), max ulp error, and the max score outside the certified range.",
                      opts, args, vm))
        return 0;
    std::vector<std::string> only = vm.count("func") ? vm["func"].as<std::vector<std::string>>() : std::vector<std::string>{};
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    if (!vm["json"].as<bool>())
        std::printf("%-36s %9s %-26s %8s %4s  %-36s %-9s %9s %9s %9s  %s\n", "function", "lut/max", "certified |x| in", "score", "pass",
                    "worst input -> got (expected)", "missed", "max_rel", "mean_rel", "max_ulp", "outside: score at");
    size_t matched = 0;
    for (const CatalogFn& fn : catalog()) {
        const std::string stem = fn.file_name().substr(0, fn.file_name().size() - 5);
        if (fn.resident()) continue;
        if (!only.empty() && std::find(only.begin(), only.end(), fn.name) == only.end() && std::find(only.begin(), only.end(), stem) == only.end()) continue;
        ++matched;
        Profile p = generate_profile(fn);
        Accuracy a = measure_accuracy(fn, p, vm["samples"].as<uint32_t>());
        if (vm["json"].as<bool>()) {
            nlohmann::ordered_json j;
            j["function"] = a.function;
            j["lut_size"] = a.lut_size;
            j["max_lut_size"] = fn.max_lut;
            j["samples"] = a.samples;
            j["certified"] = {std::max(fn.domain_lo, fn.cert_lo), std::min(fn.domain_hi, fn.cert_hi)};
            j["certified_negative"] = fn.domain_neg;
            j["max_score"] = a.max_score;
            j["pass"] = a.pass();
            j["worst_input"] = fp::hex8(a.worst_input);
            j["worst_output"] = fp::hex8(a.worst_output);
            j["worst_expected"] = fp::hex8(a.worst_expected);
            j["failing_samples"] = a.failing;
            if (a.failing) j["fail_range"] = {a.fail_lo, a.fail_hi};
            j["max_rel"] = a.max_rel;
            j["mean_rel"] = a.mean_rel;
            j["max_ulp"] = a.max_ulp;
            j["max_score_outside"] = a.max_score_outside;
            if (a.max_score_outside > 0) j["worst_outside_input"] = fp::hex8(a.worst_outside_input);
            j["unhandled"] = a.unhandled;
            out.push_back(j);
        } else {
            char range[64] = "-";
            if (a.failing) std::snprintf(range, sizeof range, "[%.3g, %.3g] (%llu)", a.fail_lo, a.fail_hi, static_cast<unsigned long long>(a.failing));
            char worst[80];
            std::snprintf(worst, sizeof worst, "%08x -> %08x (%08x)", a.worst_input, a.worst_output, a.worst_expected);
            char outside[48] = "-";
            if (a.max_score_outside > 0) std::snprintf(outside, sizeof outside, "%.2e at %08x", a.max_score_outside, a.worst_outside_input);
            std::printf("%-36s %4zu/%-4d %-26s %8.2e %4s  %-36s %-9s %9.2e %9.2e %9.3g  %s\n", a.function.c_str(), a.lut_size, fn.max_lut,
                        certified_text(fn).c_str(), a.max_score, a.pass() ? "yes" : "NO", worst, range, a.max_rel, a.mean_rel, a.max_ulp, outside);
        }
    }
    if (!only.empty() && matched == 0) throw Error("--func: no table function matches (residents have no table to measure)");
    if (vm["json"].as<bool>()) std::cout << out.dump(2) << "\n";
    return 0;
}

int run_verify(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("set", po::value<std::string>()->required(), "set manifest DIR/SET.json, or a set name of the built-in catalog")(
        "target", po::value<std::string>()->default_value("trainium"), "the built-in catalog's target when --set is a name")(
        "func", po::value<std::string>()->required(), "function (bare name, stem or func_id)")("profile", po::value<std::string>(),
                                                                                               "source profile (default: DIR/../pwp_jsons/<stem>.json)")(
        "threads", po::value<unsigned>()->default_value(std::max(1u, std::thread::hardware_concurrency())), "worker threads")(
        "fast", po::bool_switch(),
        "compare evaluate_generic with the fast path's batch pass instead (SIMD, on the decoded profile "
        "and on the decoded set), counting the elements it hands to the reference path");
    po::variables_map vm;
    if (parse_options(prog,
                      "Sweeps all 2^32 inputs through both paths, evaluate_generic on the source profile\n"
                      "and the table-memory evaluator on the packed set, and compares the bits.",
                      opts, args, vm))
        return 0;
    const std::string manifest = pwp::resolve_set(vm["set"].as<std::string>(), vm["target"].as<std::string>());
    PackedSet set = read_set(manifest);
    TableEvaluator te(set);
    const FuncMeta& f = te.lookup(vm["func"].as<std::string>());
    std::string prof_path = vm.count("profile")
                                ? vm["profile"].as<std::string>()
                                : (std::filesystem::path(manifest).parent_path().parent_path() / "pwp_jsons" / (f.func_name + ".json")).string();
    Profile p = load_profile(prof_path);
    const unsigned nt = std::max(1u, vm["threads"].as<unsigned>());
    ProgressLine line(uint64_t{1} << 32, "inputs", isatty(STDERR_FILENO), 0.5);
    const VerifyResult r = verify_all_inputs(p, te, f, nt, vm["fast"].as<bool>(), [&](uint64_t done) { line.update(done); });
    line.finish(false);
    std::printf(
        "%s in %s (%s, %zu-byte ctrl stride) vs %s: %llu identical, %llu unhandled by both, %llu mismatched, "
        "%.1f s on %u thread(s)\n",
        f.func_name.c_str(), set.name.c_str(), manifest.c_str(), set.stride, prof_path.c_str(), static_cast<unsigned long long>(r.equal),
        static_cast<unsigned long long>(r.both_unhandled), static_cast<unsigned long long>(r.mismatched), r.seconds, nt);
    if (vm["fast"].as<bool>())
        std::printf("fast path (%s): elements handed to the reference path: %llu of the profile's pass, %llu of the set's\n", simd_name(active_simd_level()),
                    static_cast<unsigned long long>(r.fallbacks_profile), static_cast<unsigned long long>(r.fallbacks_set));
    if (r.first_mismatch) {
        std::printf("first mismatch: input %08x\n", *r.first_mismatch);
        return 1;
    }
    return 0;
}

}  // namespace

Command pwp_command() {
    return {
        "pwp", "PWP tables: gen, pack, inspect, check, accuracy, verify", [](const std::string& prog, const std::vector<std::string>& args) {
            return dispatch(
                prog,
                "Piecewise-polynomial activation tables: the profile generator, the function-set\npacker and checker, and the accuracy and equivalence tools.",
                {{"gen", "generate the catalog: profiles and both targets' sets", run_gen},
                 {"pack", "pack profiles into one function set", run_pack},
                 {"inspect", "decode a profile, manifest, act_info, bkt or ctrl file", run_inspect},
                 {"check", "validate a pwp_bin_* directory", run_check},
                 {"accuracy", "measure every generated table against its closed form", run_accuracy},
                 {"verify", "compare both evaluators over all 2^32 inputs", run_verify}},
                args);
        }};
}

}  // namespace neuronsim::apps
