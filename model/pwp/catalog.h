#pragma once
// The function catalog: every function the rosters name (hardware-facts §B.1/§B.3/§B.4), with
// its profile budget (the `_<N>p` selector), the shipped lut_size it must not exceed, its ids,
// its symmetry class, its special results and how the generator lays out its table.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "model/pwp/act_fn.h"

namespace neuronsim::model::pwp {

enum class Symmetry {
    Asymmetric,  // both regions stored, sel = v
    Odd,  // pos region stored; f(-x) = -f(x)
    Even,  // pos region stored; f(-x) = f(x)
    PointStoreNeg,  // neg region stored, sel = -|v|; negative inputs return 1 - r (sigmoid)
    PositiveOnly,  // pos region stored; negative inputs land in NaN clamps
};

// What a side's high clamp (|x| at or beyond the saturation point) evaluates.
enum class HighClamp {
    Constant,  // d0 = the limit
    Identity,  // d1 = 1: f(x) = x (softplus, gelu, silu, mish for large x)
    Extrapolate,  // the last bucket's cubic continues (sin, arctan: no range reduction)
};

// What the low clamp (|x| below the first octave) evaluates.
enum class LowClamp {
    Taylor,  // cubic about 0 with d0 = f(0), d1..d3 fitted near 0
    Constant,  // f at the first octave's lower edge (restricted domains)
};

struct SideLayout {
    bool used = false;
    HighClamp high = HighClamp::Constant;
    double limit = 0;  // the Constant high clamp's value
    double sat = 0;  // |x| where the high clamp engages; 0 = found from the tail
    double tail_abs = 0;  // for a found saturation point: |f - limit| allowed beyond it
};

struct CatalogFn {
    std::string name;  // bare pwp name, "exp"
    int budget = 1;  // profile selector: exp_400p.json
    int max_lut = 0;  // shipped lut_size (hardware-facts §B.1, set sizes of §B.3)
    int sunda_id = 0;  // func_id on trainium (the neuron_id column)
    int tonga_id = 0;  // func_id on with_ln; 0 = not in any with_ln set
    Symmetry symmetry = Symmetry::Asymmetric;
    std::optional<ActFn> act;  // the simulator's dispatch name, when it has one

    // Table generation (budget > 1). Magnitudes. e_lo is the lowest stored octave where the
    // low clamp is a Constant; a Taylor low clamp's reach is chosen by the generator.
    int e_lo = 0;
    LowClamp low = LowClamp::Taylor;
    SideLayout pos, neg;  // in input (v) terms: pos = v > 0, neg = v < 0
    double domain_lo = 0, domain_hi = 0;  // valid |x| range for the accuracy sweep
    bool domain_neg = true;  // the valid domain includes negative inputs
    // The |x| range (within the domain) where the table is certified to the accuracy bar
    // |y - f| <= 1e-6 max(|f|, 0.1). Narrower than the domain only where float coefficients
    // cannot hold the cubic, or the shipped lut_size cannot pay for the octaves that remain
    // (docs/pwp-tables.md, "Certified domains", gives each limit's cause).
    double cert_lo = 0, cert_hi = std::numeric_limits<double>::infinity();
    // Where the reference simulator's float closed form is itself too far from the function to
    // measure a table against (derivative_silu's 1 - sigmoid(x) for large x carries the
    // rounding of 1 + exp(-x), amplified x times): the signed x range in which accuracy is
    // measured against the function in double precision, rounded to float. Empty if lo >= hi.
    double ideal_ref_lo = 0, ideal_ref_hi = 0;
    double (*target)(double) = nullptr;  // the function in double precision (ideal())

    float zero_result = 0, pinf_result = 0, ninf_result = 0;  // nan_result is always NaN

    std::string file_name() const { return name + "_" + std::to_string(budget) + "p.json"; }
    bool resident() const { return budget == 1; }
    bool certified(double m) const { return m >= std::max(domain_lo, cert_lo) && m <= std::min(domain_hi, cert_hi); }
};

// Every function of both rosters, heroes first in roster order, then the 13 residents.
const std::vector<CatalogFn>& catalog();
// By bare name ("exp") and budget (400); budget 0 takes the first of that name.
const CatalogFn* find_catalog_fn(const std::string& name, int budget = 0);

// The function the table approximates: double precision for fitting, and the float closed
// form of the reference simulator that accuracy is measured against.
double ideal(const CatalogFn& fn, double x);
float closed_form(const CatalogFn& fn, float x);
// What a table's output is measured against: the closed form, except in ideal_ref_lo..hi.
float reference(const CatalogFn& fn, float x);

}  // namespace neuronsim::model::pwp
