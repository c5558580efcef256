// Sweep specs (docs/what-if.md): the fuzzed text as SPEC.yaml, in a directory with the trace
// files a.trace and b.trace and the overlay o.yaml. Bad input must end in neuronsim::Error
// naming the spec and the YAML path; a spec that parses must expand to the number of points
// its axes multiply to, with one point key per identity, and give run arguments for each.
#include <set>

#include "sweep/point.h"
#include "sweep/spec.h"
#include "tests/fuzz/fuzz_support.h"

using namespace neuronsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string dir = [] {
        for (const char* f : {"a.trace", "b.trace"}) fuzz::write_file(fuzz::scratch_dir() + "/" + f, "act sync\n");
        fuzz::write_file(fuzz::scratch_dir() + "/o.yaml", "act:\n  clock_ghz: 1.0\n");
        return fuzz::scratch_dir();
    }();
    const std::string text(reinterpret_cast<const char*>(data), size);
    fuzz::expect_ok_or_error([&] {
        const sweep::Spec s = sweep::parse_spec(text, "spec.yaml", dir);
        size_t want = 0;  // each entry on its own generations, or the study's
        for (const auto& g : s.trace_generations) want += g.empty() ? s.generations.size() : g.size();
        for (const sweep::KernelSpec& k : s.kernels) want += k.generations.empty() ? s.generations.size() : k.generations.size();
        want *= size_t(s.repeat);
        if (s.combine == "zip" && !s.axes.empty()) {
            want *= s.axes.front().size();
        } else if (s.combine == "oat") {  // the baseline, then each axis's values alone
            size_t k = 1;
            for (const sweep::Axis& a : s.axes) k += a.size();
            want *= k;
        } else {
            for (const sweep::Axis& a : s.axes) want *= a.size();
        }
        if (want > 20000) return;  // valid but slow to expand: not what this harness is for
        const auto points = sweep::expand(s);
        if (points.size() != want) fuzz::fuzz_fail("expand gave " + std::to_string(points.size()) + " points, the axes multiply to " + std::to_string(want));
        std::set<std::string> identities, keys;
        for (const sweep::Point& p : points) {
            if (identities.insert(p.identity()).second && !keys.insert(p.key()).second) fuzz::fuzz_fail("two identities share the key " + p.key());
            if (sweep::run_arguments(p, "out", s.numerics).empty()) fuzz::fuzz_fail("no run arguments");
        }
    });
    return 0;
}
