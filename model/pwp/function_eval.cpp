#include "model/pwp/function_eval.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <vector>

#include "model/common/error.h"
#include "model/pwp/act_fn.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/fast_eval.h"
#include "model/pwp/flat_table.h"
#include "model/pwp/table_eval.h"

namespace neuronsim::model::pwp {

namespace {

// Elements per block a thread takes: large enough that handing out blocks costs nothing
// measurable, small enough that two threads share a 1 M-element batch evenly.
constexpr size_t kBlock = 1 << 14;

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

}  // namespace

std::string resolve_act_fn_name(const std::string& name) {
    if (find_act_fn(name)) return name;
    for (std::string_view n : act_fn_names())
        if (lower(std::string(n)) == lower(name)) return std::string(n);
    std::string names;
    for (std::string_view n : act_fn_names()) names += (names.empty() ? "" : ", ") + std::string(n);
    try {
        lookup_act_fn(name);  // raises the reference's own "Unsupported activation function" text
    } catch (const Error& e) {
        throw Error(std::string(e.what()) + " (the reference's names: " + names + ")");
    }
    return name;
}

struct FunctionEvaluator::Impl {
    enum class Kind { Profile, Set, Simulator } kind;
    std::string description;
    // Profile path
    std::optional<Profile> profile;
    FlatTable flat;
    // Set path (the evaluator refers to the set, so the set lives here, never moved after)
    std::optional<PackedSet> set;
    std::optional<TableEvaluator> tables;
    const FuncMeta* meta = nullptr;
    // Simulator path; `table` (and `flat`) when its sim_<fn> is evaluate_generic on a loaded
    // profile (use_pwp, the directory opens, not Prelu): then the batch pass runs it.
    std::optional<Simulator> sim;
    const Profile* table = nullptr;
    std::string name;
    bool use_pwp = true;
    float alpha = 0;
};

FunctionEvaluator::FunctionEvaluator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FunctionEvaluator::FunctionEvaluator(FunctionEvaluator&&) noexcept = default;
FunctionEvaluator& FunctionEvaluator::operator=(FunctionEvaluator&&) noexcept = default;
FunctionEvaluator::~FunctionEvaluator() = default;

FunctionEvaluator FunctionEvaluator::of_profile(Profile p) {
    auto impl = std::make_unique<Impl>();
    impl->kind = Impl::Kind::Profile;
    impl->description = "profile " + (p.name.empty() ? p.source : p.name);
    impl->profile = std::move(p);
    impl->flat = flatten_profile(*impl->profile);
    return FunctionEvaluator(std::move(impl));
}

FunctionEvaluator FunctionEvaluator::of_set(PackedSet set, const std::string& func) {
    auto impl = std::make_unique<Impl>();
    impl->kind = Impl::Kind::Set;
    impl->set = std::move(set);
    impl->tables.emplace(*impl->set);
    impl->meta = &impl->tables->lookup(func);
    impl->description = impl->meta->bare_name() + " (set " + impl->set->name + ")";
    return FunctionEvaluator(std::move(impl));
}

FunctionEvaluator FunctionEvaluator::of_pwp_dir(const std::string& dir, const FuncMap& map, const std::string& func, bool exact, float alpha) {
    auto impl = std::make_unique<Impl>();
    impl->kind = Impl::Kind::Simulator;
    impl->name = resolve_act_fn_name(func);
    if (impl->name != func)
        throw Error("activation '" + func + "': the reference dispatches by exact name; did you mean '" + impl->name +
                    "'? ('neuronsim act list' lists the 31 names)");
    impl->sim.emplace(dir, map);
    if (!dir.empty() && !impl->sim->can_use_pwp_table())
        throw Error("profile directory " + dir +
                    ": does not open (the reference would silently fall back to the closed forms; ask for the closed form instead)");
    impl->use_pwp = !exact;
    impl->alpha = alpha;
    const ActFn fn = lookup_act_fn(impl->name);
    if (impl->use_pwp && fn != ActFn::Prelu && impl->sim->can_use_pwp_table()) impl->table = impl->sim->table(fn);
    if (impl->table) impl->flat = flatten_profile(*impl->table);
    impl->description = impl->name + (exact ? " (closed form)" : " (" + dir + ")");
    return FunctionEvaluator(std::move(impl));
}

const std::string& FunctionEvaluator::description() const { return impl_->description; }

void FunctionEvaluator::evaluate_block(const float* in, float* out, size_t n, const std::optional<Prescale>& pre, size_t index0) const {
    const Impl& m = *impl_;
    if (m.kind == Impl::Kind::Simulator && !m.table) {
        // The reference's visitor always applies the pre-scale (1 and 0 when none is asked).
        const Prescale p = pre.value_or(Prescale{});
        try {
            activate(*m.sim, m.name, out, in, n, p.scale, p.bias, m.alpha, m.use_pwp);
        } catch (const ElementError& e) {
            throw ElementError(index0 + e.index, e.what());
        }
        return;
    }
    const float* x = in;
    std::vector<float> scaled;
    const std::optional<Prescale> p = m.kind == Impl::Kind::Simulator ? pre.value_or(Prescale{}) : pre;  // as above
    if (p) {
        scaled.resize(n);
        for (size_t i = 0; i < n; ++i) {
            float v = p->scale * in[i];
            scaled[i] = v + p->bias;
        }
        x = scaled.data();
    }
    // The profile of the profile path, or of a simulator function on a loaded table.
    const Profile* profile = m.kind == Impl::Kind::Simulator ? m.table : m.profile ? &*m.profile : nullptr;
    auto one = [&](float v) { return profile ? evaluate_generic(*profile, v) : m.tables->evaluate(*m.meta, v); };
    try {
        if (profile) evaluate_fast_n(m.flat, x, out, n, [&](float v) { return evaluate_generic(*profile, v); });
        else m.tables->evaluate_n(*m.meta, x, out, n);
    } catch (const Error&) {
        // Which element: the batch pass does not say, so find it one by one (the error path only).
        for (size_t i = 0; i < n; ++i) {
            try {
                out[i] = one(x[i]);
            } catch (const Error& e) {
                throw ElementError(index0 + i, e.what());
            }
        }
        throw;
    }
}

void FunctionEvaluator::evaluate(const float* in, float* out, size_t n, const std::optional<Prescale>& pre) const { evaluate_block(in, out, n, pre, 0); }

void FunctionEvaluator::evaluate(const float* in, float* out, size_t n, const std::optional<Prescale>& pre, WorkerPool& pool) const {
    const size_t blocks = (n + kBlock - 1) / kBlock;
    if (blocks <= 1 || pool.threads() == 1) return evaluate_block(in, out, n, pre, 0);
    std::mutex mu;
    std::optional<ElementError> first;
    pool.run(blocks, [&](size_t b) {
        const size_t at = b * kBlock, len = std::min(kBlock, n - at);
        try {
            evaluate_block(in + at, out + at, len, pre, at);
        } catch (const ElementError& e) {
            std::lock_guard<std::mutex> lock(mu);
            if (!first || e.index < first->index) first.emplace(e);
        } catch (const std::exception& e) {
            std::lock_guard<std::mutex> lock(mu);
            if (!first || at < first->index) first.emplace(at, e.what());
        }
    });
    if (first) throw *first;
}

}  // namespace neuronsim::model::pwp
