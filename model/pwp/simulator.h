#pragma once
// The reference simulator's activation surface (PWPSim::Simulator, seed 003 §2-§5): a profile
// directory, the FuncMap that loads it, name dispatch over the 31 activation names, and the
// sim_<fn> gate "usePwp && can_use_pwp_table" choosing evaluate_generic or the closed form.
#include <array>
#include <cstddef>
#include <optional>
#include <string>

#include "model/common/error.h"
#include "model/pwp/act_fn.h"
#include "model/pwp/func_map.h"
#include "model/pwp/profile.h"

namespace neuronsim::model::pwp {

// An element of a buffer that could not be evaluated; `index` is its position.
class ElementError : public Error {
public:
    ElementError(size_t index, const std::string& what) : Error(what), index(index) {}
    size_t index;
};

class Simulator {
public:
    // can_use_pwp_table is exactly "pwp_path is non-empty and opens" (an ifstream probe; on
    // Linux a directory opens). When it does, every FuncMap file present in the directory is
    // loaded now (a malformed one is an error); an absent one is an error only when its
    // function is evaluated with the PWP path. Unlike the reference, which concatenates
    // pwp_path + file name, a missing trailing '/' is supplied.
    explicit Simulator(std::string pwp_path, const FuncMap& func_map = builtin_func_map());

    bool can_use_pwp_table() const { return can_use_pwp_table_; }
    const std::string& pwp_path() const { return pwp_path_; }

    // The loaded profile of `fn`, or nullptr (not in the FuncMap, or its file is absent).
    const Profile* table(ActFn fn) const;

    // sim_<fn>(ele, alpha, usePwp). Prelu has no PWP branch. A function the FuncMap does not
    // name evaluates, like the reference's tables[name] default entry, on an empty table.
    float sim(ActFn fn, float ele, float alpha, bool use_pwp) const;

    // The buffer overload, with the reference's register order (seed 003 §2.3): the FIRST
    // float parameter, declared "scale", is the ADDEND and the second, declared "bias", is the
    // MULTIPLIER: out[i] = fn(bias * in[i] + scale). Callers wanting in*scale + bias use
    // activate(), which passes them the way the reference's visitor does.
    void simulate(const std::string& name, float* out, const float* in, float scale, float bias, float alpha, size_t count, bool use_pwp) const;

    // The scalar overload: one already pre-scaled value, no scale/bias.
    float simulate(const std::string& name, float value, float alpha, bool use_pwp) const;

private:
    const Profile& table_for_pwp(ActFn fn) const;

    std::string pwp_path_;
    bool can_use_pwp_table_ = false;
    std::array<std::optional<Profile>, kNumActFn> tables_;
    std::array<std::string, kNumActFn> missing_file_;  // FuncMap file that was absent
    Profile empty_table_;  // the reference's default AFTable
};

// The visitor-level contract: out[i] = fn(in[i]*scale + bias; alpha), multiply then add in
// float. Errors carry the element index (ElementError).
void activate(const Simulator& sim, const std::string& name, float* out, const float* in, size_t count, float scale, float bias, float alpha, bool use_pwp);

}  // namespace neuronsim::model::pwp
