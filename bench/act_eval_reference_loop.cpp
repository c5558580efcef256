// The baseline of `neuronsim act eval --set` as a whole process (scripts/bench_act_eval.sh):
// a reference-structured scalar loop, as the reference simulator evaluates a buffer: read the
// binary32 inputs, evaluate each element by reading the set's blobs (the table-memory
// evaluator's element-by-element oracle, no SIMD pass, one thread), write the outputs.
//   neuronsim_act_eval_reference_loop SET.json FUNC IN.f32 OUT.f32
//   neuronsim_act_eval_reference_loop --make-inputs N OUT.f32   (N mixed inputs, deterministic)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "model/common/error.h"
#include "model/io/read_file.h"
#include "model/io/write_file.h"
#include "model/pwp/packer.h"
#include "model/pwp/table_eval.h"

namespace {

// A mix a kernel sees: most values of ordinary magnitude (|x| < 16), some tiny and huge, some
// arbitrary bit patterns (NaNs and infinities included), from a fixed 64-bit LCG.
std::vector<float> mixed_inputs(size_t n) {
    std::vector<float> v(n);
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const uint32_t r = static_cast<uint32_t>(s >> 32), kind = r % 10;
        const float u = static_cast<float>((r >> 8) & 0xFFFF) / 65536.0f;
        if (kind < 7) v[i] = (u - 0.5f) * 32.0f;
        else if (kind < 8) v[i] = std::ldexp(u + 0.5f, static_cast<int>(r % 60) - 40);
        else {
            uint32_t b = r * 2654435761u;
            std::memcpy(&v[i], &b, 4);
        }
    }
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace neuronsim;
    try {
        if (argc == 4 && std::string(argv[1]) == "--make-inputs") {
            const std::vector<float> v = mixed_inputs(std::strtoull(argv[2], nullptr, 10));
            model::io::write_file_atomic(argv[3], v.data(), v.size() * sizeof(float));
            return 0;
        }
        if (argc != 5) {
            std::fprintf(stderr, "usage: %s SET.json FUNC IN.f32 OUT.f32 | --make-inputs N OUT.f32\n", argv[0]);
            return 2;
        }
        const model::pwp::PackedSet set = model::pwp::read_set(argv[1]);
        const model::pwp::TableEvaluator te(set);
        const model::pwp::FuncMeta& f = te.lookup(argv[2]);
        const std::vector<uint8_t> bytes = model::io::read_bytes_checked(argv[3], model::io::kMaxDataFileBytes, "inputs");
        if (bytes.size() % 4) throw Error(std::string(argv[3]) + ": not a whole number of binary32 values");
        std::vector<float> in(bytes.size() / 4), out(in.size());
        std::memcpy(in.data(), bytes.data(), bytes.size());
        for (size_t i = 0; i < in.size(); ++i) out[i] = te.evaluate_reference(f, in[i]);
        model::io::write_file_atomic(argv[4], out.data(), out.size() * sizeof(float));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
