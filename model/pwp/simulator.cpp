#include "model/pwp/simulator.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "model/common/log.h"
#include "model/pwp/closed_forms.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/profile_loader.h"

namespace neuronsim::model::pwp {

namespace {

bool probe_opens(const std::string& path) {
    if (path.empty()) return false;
    // The reference's ifstream probe, without its wait on a FIFO (O_NONBLOCK).
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    ::close(fd);
    return true;
}

std::string join(const std::string& dir, const std::string& file) {
    if (!dir.empty() && dir.back() == '/') return dir + file;
    return dir + "/" + file;
}

}  // namespace

Simulator::Simulator(std::string pwp_path, const FuncMap& func_map) : pwp_path_(std::move(pwp_path)), can_use_pwp_table_(probe_opens(pwp_path_)) {
    empty_table_.name = "(no profile)";
    empty_table_.source = "empty default table";
    if (!can_use_pwp_table_) return;
    for (const FuncMapEntry& e : func_map) {
        const std::string path = join(pwp_path_, e.file);
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) {
            missing_file_[static_cast<size_t>(e.fn)] = path;
            model::log(model::LogLevel::Debug, "pwp", "PWP profile " + path + " for " + std::string(act_fn_name(e.fn)) + " not present");
            continue;
        }
        tables_[static_cast<size_t>(e.fn)] = load_profile(path);
        for (const std::string& w : tables_[static_cast<size_t>(e.fn)]->warnings) model::log(model::LogLevel::Warning, "pwp", path + ": " + w);
    }
}

const Profile* Simulator::table(ActFn fn) const {
    const auto& t = tables_[static_cast<size_t>(fn)];
    return t ? &*t : nullptr;
}

const Profile& Simulator::table_for_pwp(ActFn fn) const {
    const size_t i = static_cast<size_t>(fn);
    if (tables_[i]) return *tables_[i];
    if (!missing_file_[i].empty()) throw Error("PWP profile for " + std::string(act_fn_name(fn)) + " not found: " + missing_file_[i]);
    static bool warned[kNumActFn] = {};
    if (!warned[i]) {
        warned[i] = true;
        model::log(model::LogLevel::Warning, "pwp",
                   std::string(act_fn_name(fn)) + " has no FuncMap entry: evaluating the empty default table as the reference does");
    }
    return empty_table_;
}

float Simulator::sim(ActFn fn, float ele, float alpha, bool use_pwp) const {
    if (fn != ActFn::Prelu && use_pwp && can_use_pwp_table_) return evaluate_generic(table_for_pwp(fn), ele);
    return exact(fn, ele, alpha);
}

void Simulator::simulate(const std::string& name, float* out, const float* in, float scale, float bias, float alpha, size_t count, bool use_pwp) const {
    const ActFn fn = lookup_act_fn(name);
    // Register order, not parameter names: multiplier = bias (xmm1), addend = scale (xmm0).
    const float multiplier = bias;
    const float addend = scale;
    for (size_t i = 0; i < count; ++i) {
        float scaled = multiplier * in[i];
        scaled = scaled + addend;
        try {
            out[i] = sim(fn, scaled, alpha, use_pwp);
        } catch (const Error& e) {
            throw ElementError(i, e.what());
        }
    }
}

float Simulator::simulate(const std::string& name, float value, float alpha, bool use_pwp) const { return sim(lookup_act_fn(name), value, alpha, use_pwp); }

void activate(const Simulator& sim, const std::string& name, float* out, const float* in, size_t count, float scale, float bias, float alpha, bool use_pwp) {
    // The reference's visitor hands the multiplier in the second float register; so do we.
    sim.simulate(name, out, in, /*scale (addend)=*/bias, /*bias (multiplier)=*/scale, alpha, count, use_pwp);
}

}  // namespace neuronsim::model::pwp
