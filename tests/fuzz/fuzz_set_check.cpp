// The PWP set parser and checker: the input is a set directory in four parts separated by
// "\n====\n" lines: act_info.json, s.json (the manifest), s_bkt.bin, s_ctrl.bin. `pwp check`
// runs on it (it reports, never throws); read_set either refuses the set with an Error or
// gives one the table-memory evaluator runs on, every function over a few inputs, each
// evaluation a value or an Error.
#include <filesystem>

#include "model/fp/bits.h"
#include "model/pwp/packer.h"
#include "model/pwp/set_check.h"
#include "model/pwp/table_eval.h"
#include "tests/fuzz/fuzz_support.h"

using namespace neuronsim;
using namespace neuronsim::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string dir = [] {
        const std::string d = fuzz::scratch_dir() + "/pwp_bin";
        std::filesystem::create_directories(d);
        fuzz::write_file(d + "/version.json", "{\"version\": \"fuzz\"}\n");
        return d;
    }();
    const std::vector<std::string> part = fuzz::split_parts(data, size, 4);
    fuzz::write_file(dir + "/act_info.json", part[0]);
    fuzz::write_file(dir + "/s.json", part[1]);
    fuzz::write_file(dir + "/s_bkt.bin", part[2]);
    fuzz::write_file(dir + "/s_ctrl.bin", part[3]);
    try {
        pwp::check_pwp_dir(dir);
    } catch (const std::exception& e) {
        fuzz::fuzz_fail(std::string("pwp check threw instead of reporting: ") + e.what());
    }
    pwp::PackedSet set;
    if (!fuzz::expect_ok_or_error([&] { set = pwp::read_set(dir + "/s.json"); })) return 0;
    const pwp::TableEvaluator te(set);
    static const uint32_t in[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x3f800000, 0xbf800000,
                                  0x00000001, 0x7f7fffff, 0x3a123456, 0xc1234567, 0x42c80000, 0xb5800000, 0x4b000001};
    for (const pwp::FuncMeta& f : set.manifest.profile_meta_data)
        for (uint32_t u : in) fuzz::expect_ok_or_error([&] { te.evaluate(f, fp::float_of(u)); });
    return 0;
}
