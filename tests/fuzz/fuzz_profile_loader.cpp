// The profile loader: the input is a profile JSON. A profile that loads is evaluated with
// evaluate_generic over special values, powers of two and a point in every declared octave;
// one that also packs (as the only member of a set, on both targets) is evaluated by the
// table-memory evaluator too, which must give the same bits wherever evaluate_generic is
// defined (table_eval.h).
#include <cstring>

#include "model/fp/bits.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/packer.h"
#include "model/pwp/profile_loader.h"
#include "model/pwp/table_eval.h"
#include "tests/fuzz/fuzz_support.h"

using namespace neuronsim;
using namespace neuronsim::model;

namespace {

std::vector<uint32_t> inputs(const pwp::Profile& p) {
    std::vector<uint32_t> v = {0x00000000,
                               0x80000000,
                               0x7f800000,
                               0xff800000,
                               0x7fc00000,
                               0xffc00001,
                               0x00000001,
                               0x807fffff,
                               0x7f7fffff,
                               0xff7fffff,
                               0x3f800000,
                               0xbf800000,
                               fp::bits_of(p.symmetry_point)};
    for (uint32_t e = 0; e < 256; e += 5) {
        v.push_back(e << 23 | 0x2aaaaa);
        v.push_back(0x80000000u | e << 23 | 0x555555);
    }
    for (int b = 0; b < 256; ++b) {
        if (p.pos.octaves[b].declared) v.push_back(static_cast<uint32_t>(b) << 23 | 0x400000);
        if (p.neg.octaves[b].declared) v.push_back(0x80000000u | static_cast<uint32_t>(b) << 23 | 0x400000);
    }
    return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    pwp::Profile p;
    if (!fuzz::expect_ok_or_error([&] { p = pwp::parse_profile(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json"); })) return 0;
    const std::vector<uint32_t> in = inputs(p);
    std::vector<float> out(in.size());
    std::vector<bool> defined(in.size());
    for (size_t i = 0; i < in.size(); ++i) defined[i] = fuzz::expect_ok_or_error([&] { out[i] = pwp::evaluate_generic(p, fp::float_of(in[i])); });
    for (pwp::Target target : {pwp::Target::Trainium, pwp::Target::WithLn}) {
        pwp::PackedSet set;
        if (!fuzz::expect_ok_or_error([&] { set = pwp::pack_set(target, "fuzz", {{"fuzz_1p", p}}); })) continue;
        const pwp::TableEvaluator te(set);
        const pwp::FuncMeta& f = te.lookup("fuzz");
        for (size_t i = 0; i < in.size(); ++i) {
            if (!defined[i]) continue;
            float t = 0;
            if (!fuzz::expect_ok_or_error([&] { t = te.evaluate(f, fp::float_of(in[i])); }))
                fuzz::fuzz_fail("input " + fp::hex8(in[i]) + ": evaluate_generic gives " + fp::hex8(fp::bits_of(out[i])) + ", the packed set raises an error");
            if (fp::bits_of(t) != fp::bits_of(out[i]))
                fuzz::fuzz_fail("input " + fp::hex8(in[i]) + ": evaluate_generic gives " + fp::hex8(fp::bits_of(out[i])) + ", the packed set " +
                                fp::hex8(fp::bits_of(t)) + " (" + pwp::target_name(target) + ")");
        }
    }
    return 0;
}
