// The fast CPTC decode (model/cptc/decode.h) against the decoder it replaced
// (decode_reference, the oracle): identical bytes for every K, every kernel leg and output
// type, signed and unsigned codes, block sizes, partial last groups and blocks, random
// streams with random block scales (NaN, infinity, subnormal and negative fp16 included) and
// random global scales.
#include <random>

#include <gtest/gtest.h>

#include "model/cptc/cptc.h"
#include "model/cptc/decode.h"
#include "model/fp/dtype.h"

namespace neuronsim::model::cptc {
namespace {

TEST(CptcDecodeFast, RandomStreamsDecodeToTheReferenceBytes) {
    std::mt19937 rng(13);
    size_t cases = 0, elements_checked = 0;
    const fp::Dtype outs[] = {fp::Dtype::Fp16, fp::Dtype::Fp32, fp::Dtype::Int8, fp::Dtype::Uint8};
    for (unsigned bits = 1; bits <= 7; ++bits)
        for (fp::Dtype out : outs)
            for (int integer = 0; integer < 2; ++integer)
                for (int is_signed = 0; is_signed < 2; ++is_signed)
                    for (int trial = 0; trial < 8; ++trial) {
                        if (integer && out != fp::Dtype::Uint8) continue;
                        DecodeParams p;
                        p.bits = bits;
                        p.out = out;
                        p.integer = integer;
                        p.is_signed = is_signed;
                        const unsigned block_sizes[] = {8, 16, 24, 64, 128, 512};
                        p.block_size = block_sizes[rng() % 6];
                        p.elements = trial == 0 ? 64 : 1 + rng() % 3000;  // partial groups and blocks
                        p.s1 = rng() % 2 ? kFormatBlockScales : 0;
                        // Global scale: ordinary, or any fp16 pattern; the integer leg's is an integer.
                        p.s0 = integer          ? static_cast<uint16_t>(rng() % 300)
                               : trial % 3 == 0 ? static_cast<uint16_t>(rng())
                                                : fp::f32_to_fp16(std::ldexp(1.0f, static_cast<int>(rng() % 20) - 10));
                        const uint64_t n = stream_bytes(bits, p.elements, p.block_size, p.s1 & kFormatBlockScales);
                        std::vector<uint8_t> stream(n);
                        for (auto& b : stream) b = static_cast<uint8_t>(rng());
                        const size_t ob = fp::dtype_bytes(out);
                        std::vector<uint8_t> want(p.elements * ob, 0xA5), got(p.elements * ob, 0x5A);
                        decode_reference(p, stream.data(), want.data());
                        decode_fast(p, stream.data(), got.data());
                        for (uint64_t k = 0; k < p.elements * ob; ++k)
                            ASSERT_EQ(got[k], want[k])
                                << "K=" << bits << " out=" << fp::dtype_name(static_cast<uint8_t>(out)) << " integer=" << integer << " signed=" << is_signed
                                << " block=" << p.block_size << " elements=" << p.elements << " s0=0x" << std::hex << p.s0 << " byte " << std::dec << k;
                        ++cases;
                        elements_checked += p.elements;
                    }
    EXPECT_GT(cases, 500u);
    EXPECT_GT(elements_checked, 500000u);
}

TEST(CptcDecodeFast, Fp16StoreMatchesTheReferenceRoundingOnEveryReachableMagnitude) {
    // The fast path stores fp16 with the CPU's conversion; the reference with f32_to_fp16.
    // Saturated values are finite and within 65504: compare them on a dense sweep of floats.
    if (!decode_fast_simd()) GTEST_SKIP() << "no AVX-512 fast decode on this CPU";
    DecodeParams p;
    p.bits = 1;
    p.is_signed = false;
    p.out = fp::Dtype::Fp16;
    p.s1 = kFormatBlockScales;
    p.block_size = 64;
    p.elements = 64;
    // One group of all-ones codes (code 1) and a block scale: the value is s0 x scale. Sweep s0
    // over every fp16 pattern and the block scale over a spread of fp16 patterns.
    std::vector<uint8_t> stream(stream_bytes(1, 64, 64, true), 0);
    for (int i = 0; i < 8; ++i) stream[i] = 0xFF;
    std::vector<uint8_t> want(128), got(128);
    for (uint32_t s0 = 0; s0 < 0x10000; s0 += 1) {
        p.s0 = static_cast<uint16_t>(s0);
        for (uint16_t bs : {0x3c00, 0x0001, 0x0400, 0x3555, 0x1234, 0xbc01, 0x7bff, 0x0200}) {
            stream[16] = static_cast<uint8_t>(bs);
            stream[17] = static_cast<uint8_t>(bs >> 8);
            decode_reference(p, stream.data(), want.data());
            decode_fast(p, stream.data(), got.data());
            ASSERT_EQ(got, want) << "s0 0x" << std::hex << s0 << " block scale 0x" << bs;
        }
    }
}

}  // namespace
}  // namespace neuronsim::model::cptc
