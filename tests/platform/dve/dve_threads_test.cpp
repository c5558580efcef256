// VectorE's fast path and host threads (platform/dve/dve_engine.h) against its reference path on
// one thread (dve_reference_kernel: each operand gathered, the element loops of
// model/dve/vector_ops.h, the results scattered): every output byte, stats.json,
// instructions.csv and timeline.json identical for run.host_threads 1, 2 and 3, over operand
// layouts that may and may not be streamed (dst disjoint from the operands, the same pattern in
// place as either operand, shifted onto them, over the rows of another partition, onto a
// pointer column, a broadcast in place), dtypes (fp32 rows are computed where they lie),
// strides and both memories.
#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "model/fp/bits.h"
#include "tests/support/platform_run.h"

namespace neuronsim::test {
namespace {

class DveThreadsTest : public PlatformRunTest {
public:
    using PlatformRunTest::out;
    using PlatformRunTest::t;
};

// Binary32 inputs with NaN payloads, infinities, signed zeros, denormals and ordinary values.
std::string hostile(size_t n) {
    std::mt19937 rng(11);
    const uint32_t specials[] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00001u, 0xffa00002u, 1, 0x807fffffu};
    std::vector<float> v(n);
    for (float& x : v) {
        const unsigned k = rng() % 8;
        if (k == 0) x = model::fp::float_of(static_cast<uint32_t>(rng()));
        else if (k == 1) x = model::fp::float_of(specials[rng() % 8]);
        else x = std::normal_distribution<float>(0.0f, 4.0f)(rng);
    }
    return f32_bytes(v);
}

std::string tt(const std::string& op, const std::string& types, const std::string& src0, const std::string& src1, const std::string& dst, int nch) {
    return "dve tensor_tensor op=" + op + " " + types + " src0=" + src0 + " src1=" + src1 + " dst=" + dst + " num_active_channels=" + std::to_string(nch) +
           "\n";
}

TEST_F(DveThreadsTest, FastPathAndThreadsAreByteIdenticalToTheReferencePath) {
    t.write("in.bin", hostile(128 * 4096));
    const std::string f32 = "in0_dtype=fp32 in1_dtype=fp32 out_dtype=fp32";
    auto at = [](const char* where, const char* num, const char* step) { return std::string(where) + " " + num + " " + step; };
    const std::string trace =
        ".data sbuf:0:0x0 partitions=128 file=in.bin\n"
        ".data psum:0:0x0 partitions=128 f32 0.5\n"
        // Disjoint dst, 128 partitions: streamed, threaded.
        + tt("add", f32, at("sbuf:0:0x0", "src0.num=1024,1", "src0.step=1,0"), at("sbuf:0:0x1000", "src1.num=1024,1", "src1.step=1,0"),
             at("sbuf:0:0x8000", "dst.num=1024,1", "dst.step=1,0"), 128)
        // In place (dst the pattern of src0), max with NaNs and signed zeros: streamed.
        + tt("max", f32, at("sbuf:0:0x8000", "src0.num=512,2", "src0.step=1,512"), at("sbuf:0:0x2000", "src1.num=512,2", "src1.step=1,512"),
             at("sbuf:0:0x8000", "dst.num=512,2", "dst.step=1,512"), 128)
        // dst one element on from src0, over several chunks: each store feeds a later load
        // (the reference path).
        + tt("subtract", f32, at("sbuf:0:0x8000", "src0.num=1500,1", "src0.step=1,0"), at("sbuf:0:0x0", "src1.num=1500,1", "src1.step=1,0"),
             at("sbuf:0:0x8004", "dst.num=1500,1", "dst.step=1,0"), 64)
        // src0 in partitions 0..63, dst 64..127 of one memory (no shared byte: streamed) ...
        + tt("mult", f32, at("sbuf:0:0x8000", "src0.num=256,1", "src0.step=1,0"), at("sbuf:0:0x0", "src1.num=256,1", "src1.step=1,0"),
             at("sbuf:64:0x8000", "dst.num=256,1", "dst.step=1,0"), 64)
        // ... and 0..31 to 32..63 (the start-partition rule keeps a VectorE dst off its
        // operands' other rows).
        + tt("divide", f32, at("sbuf:0:0x8000", "src0.num=256,1", "src0.step=1,0"), at("sbuf:0:0x0", "src1.num=256,1", "src1.step=1,0"),
             at("sbuf:32:0x8000", "dst.num=256,1", "dst.step=1,0"), 32)
        // bf16 and fp16 in, a strided src, fp16 out into PSUM.
        +
        "dve tensor_copy in_dtype=fp32 out_dtype=bf16 src=sbuf:0:0x0 src.num=2048,1 src.step=1,0 dst=sbuf:0:0x10000 dst.num=2048,1 dst.step=1,0 "
        "num_active_channels=128\n"
        "dve tensor_copy in_dtype=fp32 out_dtype=fp16 src=sbuf:0:0x0 src.num=2048,1 src.step=1,0 dst=sbuf:0:0x11000 dst.num=2048,1 dst.step=1,0 "
        "num_active_channels=128\n" +
        tt("min", "in0_dtype=bf16 in1_dtype=fp16 out_dtype=fp16", at("sbuf:0:0x10000", "src0.num=256,3", "src0.step=3,700"),
           at("sbuf:0:0x11000", "src1.num=768,1", "src1.step=1,0"), at("psum:0:0x100", "dst.num=768,1", "dst.step=1,0"), 128)
        // tensor_scalar: two steps, a pointer in the same rows, reversed, int8 out (saturating).
        +
        "dve tensor_scalar op0=mult imm0=3.5 op1=subtract reverse1=1 operand1_src=pointer operand1=sbuf:0:0x40 operand_dtype=fp32 "
        "in_dtype=fp32 out_dtype=int8 src=sbuf:0:0x0 src.num=1000,1 src.step=1,0 dst=sbuf:0:0x12000 dst.num=1000,1 dst.step=1,0 "
        "num_active_channels=128\n"
        // ... bf16 in place with a pointer from PSUM ...
        "dve tensor_scalar op0=divide operand0_src=pointer operand0=psum:0:0x0 operand_dtype=fp32 in_dtype=bf16 out_dtype=bf16 "
        "src=sbuf:0:0x10000 src.num=2048,1 src.step=1,0 dst=sbuf:0:0x10000 dst.num=2048,1 dst.step=1,0 num_active_channels=128\n"
        // ... and a dst over its own pointer column (the scalars are read first either way).
        "dve tensor_scalar op0=add operand0_src=pointer operand0=sbuf:0:0x9000 operand_dtype=fp32 in_dtype=fp32 out_dtype=fp32 "
        "src=sbuf:0:0x0 src.num=64,1 src.step=1,0 dst=sbuf:0:0x8ffc dst.num=64,1 dst.step=1,0 num_active_channels=128\n"
        // Reductions: 2-D, negated, in order; one whose dst lies in its src.
        "dve tensor_reduce reduce_op=add negate=1 in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=1000,4 src.step=1,1024 dst=sbuf:0:0x13000 "
        "dst.num=1,1 dst.step=1,0 num_active_channels=128\n"
        "dve tensor_reduce reduce_op=max in_dtype=bf16 out_dtype=fp32 src=sbuf:0:0x10000 src.num=2048,1 src.step=1,0 dst=sbuf:0:0x13004 "
        "dst.num=1,1 dst.step=1,0 num_active_channels=128\n"
        "dve tensor_reduce reduce_op=min in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x13000 src.num=2,1 src.step=1,0 dst=sbuf:0:0x13004 "
        "dst.num=1,1 dst.step=1,0 num_active_channels=128\n"
        // reciprocal in place; a broadcast (step 0) in place over several chunks is not
        // streamed.
        "dve reciprocal in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x8000 src.num=1024,1 src.step=1,0 dst=sbuf:0:0x8000 dst.num=1024,1 "
        "dst.step=1,0 num_active_channels=96\n"
        "dve reciprocal in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x8000 src.num=1000,1 src.step=0,0 dst=sbuf:0:0x8000 dst.num=1000,1 "
        "dst.step=1,0 num_active_channels=32\n"
        // fp32 rows where they lie: a copy to a disjoint row, then dst the pattern of src1.
        "dve tensor_copy in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x1000 src.num=600,1 src.step=1,0 dst=sbuf:0:0xc000 dst.num=600,1 "
        "dst.step=1,0 num_active_channels=128\n" +
        tt("mult", f32, at("sbuf:0:0x0", "src0.num=600,1", "src0.step=1,0"), at("sbuf:0:0xc000", "src1.num=600,1", "src1.step=1,0"),
           at("sbuf:0:0xc000", "dst.num=600,1", "dst.step=1,0"), 128) +
        // bn_stats over 512 and 7 elements, bf16 and fp32.
        "dve bn_stats in_dtype=bf16 out_dtype=fp32 src=sbuf:0:0x10000 src.num=512,1 src.step=1,0 dst=sbuf:0:0x14000 dst.num=6,1 "
        "dst.step=1,0 num_active_channels=128\n"
        "dve bn_stats in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=7,1 src.step=1,0 dst=sbuf:0:0x14018 dst.num=6,1 dst.step=1,0 "
        "num_active_channels=128\n"
        ".dump sbuf:0:0x8000 bytes=0xd000 partitions=128 file=sbuf.bin\n"
        ".dump psum:0:0x0 bytes=0x800 partitions=128 file=psum.bin\n";
    struct Mode {
        bool reference;
        const char* threads;
    };
    std::map<std::string, std::string> want;
    for (const Mode m : {Mode{true, "1"}, Mode{false, "1"}, Mode{false, "2"}, Mode{false, "3"}}) {
        reset_systemc_context();
        reference_kernel = m.reference;
        overrides = {std::string("run.host_threads=") + m.threads};
        run(trace);
        for (const char* f : {"sbuf.bin", "psum.bin", "stats.json", "instructions.csv", "timeline.json"}) {
            const std::string got = out(f);
            if (m.reference) {
                want[f] = got;
                continue;
            }
            ASSERT_EQ(got.size(), want[f].size()) << f;
            EXPECT_TRUE(got == want[f]) << f << " differs with " << m.threads << " thread(s)";
        }
    }
}

}  // namespace
}  // namespace neuronsim::test
