#include "platform/record/divergence_ranking.h"

#include <cmath>

#include "platform/record/record_text.h"

namespace neuronsim::platform::record {

void DivergenceRanking::add(const InstructionRecord& r) {
    if (r.model_ns < 0) return;
    const double sim = ns(r.end - r.start), diff = std::fabs(sim - r.model_ns);
    if (top_.size() >= kKept && diff <= std::fabs(top_.back().simulated_ns - top_.back().model_ns)) return;
    Divergence d{*r.engine + "#" + std::to_string(r.index), *r.mnemonic, r.source(), r.model_formula, sim, r.model_ns, r.model_why};
    auto at = top_.begin();
    while (at != top_.end() && std::fabs(at->simulated_ns - at->model_ns) >= diff) ++at;  // ties: the earlier first
    top_.insert(at, std::move(d));
    if (top_.size() > kKept) top_.pop_back();
}

}  // namespace neuronsim::platform::record
