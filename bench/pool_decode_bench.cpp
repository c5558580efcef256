// Host speed of the GPSIMD CPTC decode model: one decode instruction over 128 partitions x
// 8192 elements through the firmware model (dispatch, validators, unpack, de-interleave,
// scales, saturating store), per kernel leg. Items are decoded elements. The third argument
// picks the decoder, side by side in one process: 0 the element-by-element decoder
// (FirmwareConfig::reference_decode, the baseline), 1 the fast decode (model/cptc/decode.h).
#include <cstring>
#include <random>

#include <benchmark/benchmark.h>

#include "firmware_model/pool_firmware.h"
#include "model/cptc/cptc.h"
#include "model/isa/address.h"
#include "model/isa/layouts.h"

namespace {

using namespace neuronsim;
using namespace neuronsim::model::isa;

constexpr uint32_t kParts = 128;
constexpr uint16_t kElements = 8192;
constexpr uint64_t kPer = 64 * 1024;  // SBUF bytes per partition here

void BM_CptcDecode(benchmark::State& state) {
    const unsigned bits = static_cast<unsigned>(state.range(0));
    const uint8_t out = static_cast<uint8_t>(state.range(1));
    std::mt19937 rng(1);
    std::normal_distribution<float> d(0.0f, 1.0f);
    std::vector<float> v(kElements);
    for (auto& x : v) x = d(rng);
    const model::cptc::Target t = model::cptc::route_target(bits, model::cptc::default_routing(), static_cast<model::fp::Dtype>(out));
    const model::cptc::Encoded e = model::cptc::encode(v, t, 64);
    std::vector<uint8_t> sbuf(kParts * kPer, 0);
    for (uint32_t p = 0; p < kParts; ++p) std::memcpy(sbuf.data() + p * kPer, e.bytes.data(), e.bytes.size());
    firmware_model::SbufAccess access = [&](uint32_t p, uint64_t off, uint64_t) { return sbuf.data() + p * kPer + off; };
    firmware_model::FirmwareConfig cfg;
    cfg.cptc_flag = true;
    cfg.routing = {{1, 1}, {2, 2}, {3, 5}, {4, 3}, {5, 4}, {6, 6}, {7, 6}};
    cfg.reference_decode = state.range(2) == 0;
    firmware_model::PoolFirmware fw(cfg);
    ConvLutOp op{};
    op.header = {kConvLutLoad, kInstWordLen, 0, 0};
    op.src = {encode_addr4(MemSpace::Sbuf, 0, 0), {1, 4}, {4, static_cast<uint16_t>(e.bytes.size() / 16)}};
    op.in_dtype = 0x09;
    op.out_dtype = out;
    op.num_active_rows = op.num_active_cols = 128;
    op.multiplicative_const[0] = e.s0;
    op.multiplicative_const[1] = e.s1;
    op.row_grp = op.col_grp = 0xf;
    op.block_size = 64;
    op.lut_dtype = static_cast<uint8_t>(0x18 + bits);
    op.dst = {encode_addr4(MemSpace::Sbuf, 0, 0x4000), {1, 0, 0}, {kElements, 1, 1}};
    Bundle b;
    std::memcpy(b.b.data(), &op, sizeof op);
    for (auto _ : state) {
        firmware_model::ExecResult r = fw.execute(b, 0, access);
        benchmark::DoNotOptimize(r.groups);
        benchmark::DoNotOptimize(sbuf.data());
    }
    state.SetItemsProcessed(state.iterations() * int64_t{kParts} * kElements);
    state.SetLabel(fw.execute(b, 0, access).kernel);
}
// Every K and every output leg of its kernel (default routing): CPTC1 -> fp32 (impl<1>),
// CPTC2 -> fp16 (impl<2>), CPTC3 -> uint8 (impl<5>, integer), CPTC4 -> fp16 (impl<3>), CPTC5 ->
// fp16 / fp32 (impl<4>), CPTC6 and CPTC7 -> fp32 / fp16 / int8 / uint8 (impl<6>).
BENCHMARK(BM_CptcDecode)
    ->ArgsProduct({{1}, {0x0A}, {0, 1}})
    ->ArgsProduct({{2}, {0x07}, {0, 1}})
    ->ArgsProduct({{3}, {0x03}, {0, 1}})
    ->ArgsProduct({{4}, {0x07}, {0, 1}})
    ->ArgsProduct({{5}, {0x07, 0x0A}, {0, 1}})
    ->ArgsProduct({{6}, {0x0A, 0x07, 0x02, 0x03}, {0, 1}})
    ->ArgsProduct({{7}, {0x0A, 0x07, 0x02, 0x03}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
