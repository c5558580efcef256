#pragma once
// One activation function ready to evaluate buffers, by any of the three paths `neuronsim act
// eval` and the Python package's `act.eval` offer: a per-function profile (evaluate_generic),
// a packed set's tables (the hardware path) or the reference simulator on a profile
// directory (name dispatch, or its closed forms). The profile and set paths run on the SIMD
// batch pass (fast_eval.h), whose flagged elements go to the element-by-element reference;
// the simulator path is the reference's own buffer loop. Buffers may be split over host
// threads: every element is computed by the same code whatever the split, so the bits do not
// depend on it.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "model/common/worker_pool.h"
#include "model/pwp/func_map.h"
#include "model/pwp/packer.h"
#include "model/pwp/profile.h"
#include "model/pwp/simulator.h"

namespace neuronsim::model::pwp {

// The ACT pre-scale x*scale + bias: multiply, then add, each rounded to binary32.
struct Prescale {
    float scale = 1.0f, bias = 0.0f;
};

class FunctionEvaluator {
public:
    static FunctionEvaluator of_profile(Profile p);
    // `func`: a bare name, stem or func_id of one of the set's functions (TableEvaluator::lookup).
    static FunctionEvaluator of_set(PackedSet set, const std::string& func);
    // The reference simulator over `dir`: `func` one of the 31 activation names (act_fn.h),
    // `exact` its closed form. A name in another case ("gelu") is refused naming the right one.
    static FunctionEvaluator of_pwp_dir(const std::string& dir, const FuncMap& map, const std::string& func, bool exact, float alpha);

    FunctionEvaluator(FunctionEvaluator&&) noexcept;
    FunctionEvaluator& operator=(FunctionEvaluator&&) noexcept;
    ~FunctionEvaluator();

    // out[i] = f(in[i]), or f(in[i]*scale + bias) with a pre-scale. An element that cannot be
    // evaluated raises ElementError with its index (the lowest failing index); out[] is then
    // incomplete. With a pool, the buffer is split into blocks over its threads.
    void evaluate(const float* in, float* out, size_t n, const std::optional<Prescale>& pre) const;
    void evaluate(const float* in, float* out, size_t n, const std::optional<Prescale>& pre, WorkerPool& pool) const;

    // What is evaluated, for messages: "exp (set exp_and_others)", "Gelu (DIR)", ...
    const std::string& description() const;

private:
    struct Impl;
    explicit FunctionEvaluator(std::unique_ptr<Impl> impl);
    void evaluate_block(const float* in, float* out, size_t n, const std::optional<Prescale>& pre, size_t index0) const;
    std::unique_ptr<Impl> impl_;
};

// The activation name `name` stands for in the simulator's dispatch, exactly or, failing
// that, ignoring case; an unknown one is an error listing the 31 names.
std::string resolve_act_fn_name(const std::string& name);

}  // namespace neuronsim::model::pwp
