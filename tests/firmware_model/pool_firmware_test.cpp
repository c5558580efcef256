// The POOL firmware model without SystemC: kernel_info tables and dispatch, the EXTISA_3
// staging gate, the legacy LUT load, the S2_CONVLUT validators and their messages, the
// routing ladder and odd-impl guards, every decode leg (expected values written out by hand),
// saturation, and the 0xf0 Nop / Copy kernels.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "firmware_model/pool_firmware.h"
#include "model/common/error.h"
#include "model/common/worker_pool.h"
#include "model/cptc/cptc.h"
#include "model/fp/dtype.h"
#include "model/isa/address.h"
#include "model/isa/layouts.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {
namespace {

using namespace firmware_model;
using namespace model::isa;

constexpr uint64_t kPer = 4096;  // SBUF bytes per partition in these tests

struct Sbuf {
    std::vector<uint8_t> mem = std::vector<uint8_t>(128 * kPer, 0);
    SbufAccess access() {
        return [this](uint32_t p, uint64_t off, uint64_t len) -> uint8_t* {
            if (p >= 128 || off + len > kPer) throw Error("outside the test SBUF");
            return mem.data() + p * kPer + off;
        };
    }
    uint8_t* at(uint32_t p, uint64_t off) { return mem.data() + p * kPer + off; }
    uint16_t u16(uint32_t p, uint64_t off) { return static_cast<uint16_t>(at(p, off)[0] | at(p, off)[1] << 8); }
    uint32_t u32(uint32_t p, uint64_t off) {
        uint32_t v;
        std::memcpy(&v, at(p, off), 4);
        return v;
    }
};

FirmwareConfig staged(int nc = 4) {
    FirmwareConfig c;
    c.nc_version = nc;
    c.cptc_flag = true;
    c.routing = {{1, 1}, {2, 2}, {3, 5}, {4, 3}, {5, 4}, {6, 6}, {7, 6}};
    return c;
}

// A CPTC decode of `elements` codes per partition from sbuf 0x0 to sbuf 0x800.
ConvLutOp decode_op(uint8_t lut_dtype, uint8_t out_dtype, uint16_t s0, uint16_t s1, uint16_t elements, uint16_t units) {
    ConvLutOp op{};
    op.header = {kConvLutLoad, kInstWordLen, 0, 0};
    op.src = {encode_addr4(MemSpace::Sbuf, 0, 0), {1, 4}, {4, units}};
    op.in_dtype = 0x09;
    op.out_dtype = out_dtype;
    op.num_active_rows = op.num_active_cols = 128;
    op.multiplicative_const[0] = s0;
    op.multiplicative_const[1] = s1;
    op.row_grp = op.col_grp = 0xf;
    op.block_size = 64;
    op.lut_dtype = lut_dtype;
    op.dst = {encode_addr4(MemSpace::Sbuf, 0, 0x800), {1, 0, 0}, {elements, 1, 1}};
    return op;
}

// The same decode as 0xf0 spec 7 (ExtendedInstCptcDecode).
ConvLutOp spec7_op(ConvLutOp op) {
    op.header.opcode = kExtended;
    op.spec = 7;
    return op;
}

Bundle bundle_of(const ConvLutOp& op) {
    Bundle b;
    std::memcpy(b.b.data(), &op, sizeof op);
    return b;
}

// Places the same codes (no block scales) in every partition; returns the 16-byte units used.
uint16_t place_codes(Sbuf& s, const std::vector<int32_t>& codes, unsigned bits) {
    const auto bytes = model::cptc::pack_codes(codes, bits);
    for (uint32_t p = 0; p < 128; ++p) std::memcpy(s.at(p, 0), bytes.data(), bytes.size());
    return static_cast<uint16_t>(bytes.size() / 16);
}

std::string error_of(PoolFirmware& fw, const Bundle& b, Sbuf& s) {
    try {
        fw.execute(b, 0, s.access());
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(PoolFirmware, KernelInfoTablesInRegistrationOrder) {
    const auto& x = extisa3_kernel_info();
    ASSERT_EQ(x.size(), 9u);
    EXPECT_EQ(x[7].opcode, 0xe4);
    EXPECT_EQ(x[7].func_va, 0x01002258u);
    EXPECT_EQ(x[8].opcode, 0xf0);
    EXPECT_EQ(x[8].spec, 7);
    const auto& m = main_kernel_info();
    ASSERT_EQ(m.size(), 17u);
    std::vector<int> specs;
    for (const auto& r : m)
        if (r.opcode == 0xf0) specs.push_back(r.spec);
    EXPECT_EQ(specs, (std::vector<int>{0, 1, 2, 4, 3}));  // five 0xf0 rows, this order
    for (const auto& r : m) EXPECT_NE(r.opcode, 0xe4);  // 0xe4 lives in EXTISA_3 only
}

TEST(PoolFirmware, StagingGate) {
    unsetenv("NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE");
    FirmwareConfig c = staged();
    EXPECT_TRUE(c.extisa3_staged());
    c.cptc_flag = false;
    EXPECT_FALSE(c.extisa3_staged());  // opt-in
    setenv("NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE", "1", 1);
    EXPECT_TRUE(c.extisa3_staged());  // the environment variable stages it too
    c.coretype_perf = false;
    EXPECT_FALSE(c.extisa3_staged());  // PERF core type only
    c.coretype_perf = true;
    c.cptc_library = false;
    EXPECT_FALSE(c.extisa3_staged());
    c.cptc_library = true;
    c.nc_version = 2;
    EXPECT_FALSE(c.extisa3_staged());  // SUNDA never reaches lib 3
    unsetenv("NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE");
}

TEST(PoolFirmware, UnknownOpcodeMessages) {
    unsetenv("NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE");
    Sbuf s;
    FirmwareConfig off = staged();
    off.cptc_flag = false;
    PoolFirmware fw(off);
    ConvLutOp op = decode_op(0x1c, 0x07, 0x3c00, 0, 64, 2);
    EXPECT_EQ(error_of(fw, bundle_of(op), s), "UNKNOWN OPCODE=0xe4");
    op.header.opcode = kExtended;
    op.spec = 7;
    EXPECT_EQ(error_of(fw, bundle_of(op), s), "UNKNOWN EXTENDED OPCODE=7");
    op.spec = 0;
    EXPECT_EQ(fw.execute(bundle_of(op), 0, s.access()).kernel, "ExtendedInstEngineNop");  // main image
    PoolFirmware sunda(staged(2));
    EXPECT_EQ(error_of(sunda, bundle_of(op), s), "UNKNOWN OPCODE=0xf0");
    op.header.opcode = 0x47;  // Cast: registered in the main image, not modelled here
    EXPECT_NE(error_of(fw, bundle_of(op), s).find("Cast"), std::string::npos);
}

TEST(PoolFirmware, LegacyLutLoadTakesSixteenUint16) {
    Sbuf s;
    PoolFirmware fw(staged());
    ConvLutOp op{};
    op.header = {kConvLutLoad, kInstWordLen, 0, 0};
    op.src = {encode_addr4(MemSpace::Sbuf, 3, 0x40), {2, 0}, {16, 1}};
    op.in_dtype = 0x05;
    for (unsigned i = 0; i < 32; ++i) {
        s.at(3, 0x40 + 2 * i)[0] = static_cast<uint8_t>(i);
        s.at(3, 0x40 + 2 * i)[1] = 0xA0;
    }
    for (uint8_t lut : {uint8_t{0x00}, uint8_t{0x0A}}) {  // INVALID and FP32 both mean "not CPTC"
        op.lut_dtype = lut;
        EXPECT_FALSE(fw.conv_lut_loaded() && lut == 0);
        EXPECT_EQ(fw.execute(bundle_of(op), 0, s.access()).kernel, "pool_conv_lut_load (legacy LUT)");
        EXPECT_TRUE(fw.conv_lut_loaded());
        EXPECT_EQ(fw.conv_lut()[0], 0xA000);
        EXPECT_EQ(fw.conv_lut()[15], 0xA01E);  // step 2: every other entry
    }
    op.in_dtype = 0x09;
    EXPECT_NE(error_of(fw, bundle_of(op), s).find("legacy conversion LUT load needs in_dtype UINT16, got 0x9"), std::string::npos);
    op.in_dtype = 0x05;
    op.src.num_elem[0] = 8;
    EXPECT_NE(error_of(fw, bundle_of(op), s).find("needs 16 source elements, got 8"), std::string::npos);
}

TEST(PoolFirmware, ValidatorsAndTheirMessages) {
    Sbuf s;
    PoolFirmware fw(staged());
    const uint16_t units = place_codes(s, std::vector<int32_t>(64, 1), 4);
    auto err = [&](auto edit) {
        ConvLutOp op = decode_op(0x1c, 0x07, 0x3c00, 0, 64, units);
        edit(op);
        return error_of(fw, bundle_of(op), s);
    };
    EXPECT_EQ(err([](ConvLutOp& o) { o.in_dtype = 0x05; }), "P0: Error, unsupported in_dtype for cptc_decode : 0x5");
    EXPECT_EQ(err([](ConvLutOp& o) { o.out_dtype = 0x0A; }), "P0: Error, unsupported out_dtype for cptc_decode : 0xa");  // impl<3>: fp16 only
    EXPECT_NE(err([](ConvLutOp& o) { o.block_size = 12; }).find("block_size 12 is not a non-zero multiple of 8"), std::string::npos);
    EXPECT_NE(err([](ConvLutOp& o) { o.block_size = 0; }).find("block_size 0"), std::string::npos);
    EXPECT_NE(err([](ConvLutOp& o) { o.num_active_rows = 64; }).find("num_active_rows and num_active_cols 128, got 64"), std::string::npos);
    EXPECT_NE(err([](ConvLutOp& o) { o.num_active_cols = 127; }).find("got 127"), std::string::npos);
    EXPECT_NE(err([](ConvLutOp& o) { o.row_grp = 7; }).find("row_grp and col_grp 0xf"), std::string::npos);
    EXPECT_NE(err([](ConvLutOp& o) { o.src.num_elem[0] = 8; }).find("4 UINT32 (one 16-byte unit), got 8"), std::string::npos);
    EXPECT_NE(err([](ConvLutOp& o) { o.src.num_elem[1] = 1; }).find("CPTC source holds 16 bytes per partition, 64 CPTC4 elements need 32"), std::string::npos);
    EXPECT_NE(err([](ConvLutOp& o) { o.src.start_addr = encode_addr4(MemSpace::Psum, 0, 0); }).find("SBUF only"), std::string::npos);
    EXPECT_EQ(err([](ConvLutOp&) {}), "(no error)");
    PoolFirmware cayman_like(staged(3));  // valid_nc: V3 or later
    EXPECT_EQ(error_of(cayman_like, bundle_of(decode_op(0x1c, 0x07, 0x3c00, 0, 64, units)), s), "(no error)");
}

TEST(PoolFirmware, RoutingLadderAndOddGuards) {
    Sbuf s;
    const uint16_t units = place_codes(s, std::vector<int32_t>(64, 1), 7);
    struct Case {
        uint8_t lut, out;
        const char* kernel;
    };
    for (const Case& c : {Case{0x19, 0x0A, "cptc_decode_impl<1>"}, Case{0x1A, 0x07, "cptc_decode_impl<2>"}, Case{0x1B, 0x03, "cptc_decode_impl<5>"},
                          Case{0x1C, 0x07, "cptc_decode_impl<3>"}, Case{0x1D, 0x0A, "cptc_decode_impl<4>"}, Case{0x1E, 0x07, "cptc_decode_impl<6>"},
                          Case{0x1F, 0x02, "cptc_decode_impl<6>"}}) {
        PoolFirmware fw(staged());
        ExecResult r = fw.execute(bundle_of(decode_op(c.lut, c.out, 0x3c00, 0, 64, units)), 0, s.access());
        EXPECT_EQ(r.kernel, c.kernel) << int(c.lut);
        EXPECT_EQ(r.bits, c.lut - 0x18u);
        EXPECT_EQ(r.groups, 1u);
    }
    // The even rows are configurable; the odd kernels re-check the value they serve.
    FirmwareConfig c = staged();
    c.routing[7] = 4;
    EXPECT_EQ(PoolFirmware(c).execute(bundle_of(decode_op(0x1F, 0x0A, 0x3c00, 0, 64, units)), 0, s.access()).kernel, "cptc_decode_impl<4>");
    c.routing[2] = 1;
    PoolFirmware g1(c);
    EXPECT_EQ(error_of(g1, bundle_of(decode_op(0x1A, 0x0A, 0x3c00, 0, 64, units)), s), "P0: cptc_decode_impl<1> rejects CPTC value 2 (it serves 1)");
    c.routing[6] = 5;
    PoolFirmware g5(c);
    EXPECT_EQ(error_of(g5, bundle_of(decode_op(0x1E, 0x03, 0x3c00, 0, 64, units)), s), "P0: cptc_decode_impl<5> rejects CPTC value 6 (it serves 3)");
    c.routing[5] = 3;
    PoolFirmware g3(c);
    EXPECT_EQ(error_of(g3, bundle_of(decode_op(0x1D, 0x07, 0x3c00, 0, 64, units)), s), "P0: cptc_decode_impl<3> rejects CPTC value 5 (it serves 4)");
    c.routing.erase(5);
    PoolFirmware none(c);
    EXPECT_NE(error_of(none, bundle_of(decode_op(0x1D, 0x07, 0x3c00, 0, 64, units)), s).find("no cptc_decode_impl for CPTC value 5"), std::string::npos);
}

// One decode of 64 codes; returns the sbuf at 0x800 of partition `p`.
struct Decoded {
    Sbuf s;
    ExecResult r;
};
Decoded run_decode(const std::vector<int32_t>& codes, unsigned bits, uint8_t out, uint16_t s0, FirmwareConfig cfg = staged()) {
    Decoded d;
    const uint16_t units = place_codes(d.s, codes, bits);
    PoolFirmware fw(cfg);
    d.r = fw.execute(bundle_of(decode_op(static_cast<uint8_t>(0x18 + bits), out, s0, 0, static_cast<uint16_t>(codes.size()), units)), 0, d.s.access());
    return d;
}

TEST(PoolFirmware, SignedFp32LegImpl1) {
    // CPTC1 signed: bit 1 is -1. s0 = 0.5 (0x3800): -0.5 = 0xbf000000, 0 = 0.
    std::vector<int32_t> codes(64, 0);
    codes[0] = 1;
    Decoded d = run_decode(codes, 1, 0x0A, 0x3800);
    EXPECT_EQ(d.s.u32(0, 0x800), 0xbf000000u);
    EXPECT_EQ(d.s.u32(127, 0x800 + 4), 0x00000000u);
}

TEST(PoolFirmware, UnsignedFp16LegImpl2) {
    // CPTC2 unsigned: 3 x 1.5 = 4.5 (fp16 0x4480); signed would give -1.5.
    std::vector<int32_t> codes(64, 2);
    codes[5] = 3;
    Decoded d = run_decode(codes, 2, 0x07, 0x3e00);
    EXPECT_EQ(d.s.u16(0, 0x800 + 10), 0x4480);
    EXPECT_EQ(d.s.u16(0, 0x800), 0x4200);  // 2 x 1.5 = 3
}

TEST(PoolFirmware, SignedFp16LegImpl3AndSaturation) {
    // CPTC4 signed: -8..7. -8 x 2 = -16 (0xcc00); 7 x 65504 saturates to 65504 (0x7bff), not inf.
    std::vector<int32_t> codes(64, 0);
    codes[0] = -8;
    codes[63] = 7;
    Decoded d = run_decode(codes, 4, 0x07, 0x4000);
    EXPECT_EQ(d.s.u16(0, 0x800), 0xcc00);
    EXPECT_EQ(d.s.u16(0, 0x800 + 126), 0x4b00);  // 14
    Decoded sat = run_decode(codes, 4, 0x07, 0x7bff);
    EXPECT_EQ(sat.s.u16(0, 0x800 + 126), 0x7bff);
    EXPECT_EQ(sat.s.u16(0, 0x800), 0xfbff);
}

TEST(PoolFirmware, MixedLegImpl4StoresFp16AndFp32) {
    std::vector<int32_t> codes(64, 0);
    codes[1] = -16;  // CPTC5: -16..15
    codes[2] = 15;
    Decoded f32 = run_decode(codes, 5, 0x0A, 0x3400);  // x 0.25
    EXPECT_EQ(f32.s.u32(0, 0x800 + 4), 0xc0800000u);  // -4
    EXPECT_EQ(f32.s.u32(0, 0x800 + 8), 0x40700000u);  // 3.75
    Decoded f16 = run_decode(codes, 5, 0x07, 0x3400);
    EXPECT_EQ(f16.s.u16(0, 0x800 + 2), 0xc400);
    EXPECT_EQ(f16.s.u16(0, 0x800 + 4), 0x4380);
}

TEST(PoolFirmware, IntegerLegImpl5) {
    // CPTC3 unsigned integer: code x s0 (s0 as an integer), clamped to 255; no float ops.
    std::vector<int32_t> codes(64, 0);
    codes[0] = 7;
    codes[1] = 3;
    Decoded d = run_decode(codes, 3, 0x03, 20);
    EXPECT_EQ(d.s.at(0, 0x800)[0], 140);
    EXPECT_EQ(d.s.at(0, 0x801)[0], 60);
    Decoded sat = run_decode(codes, 3, 0x03, 40);
    EXPECT_EQ(sat.s.at(0, 0x800)[0], 255);
    EXPECT_EQ(sat.s.at(0, 0x801)[0], 120);
    // Block scales present (fp16 2.0 after the group): the integer leg ignores them.
    Sbuf s;
    std::vector<uint8_t> bytes = model::cptc::pack_codes(codes, 3);
    bytes.resize(bytes.size() + 16, 0);
    bytes[32] = 0x00;
    bytes[33] = 0x40;
    for (uint32_t p = 0; p < 128; ++p) std::memcpy(s.at(p, 0), bytes.data(), bytes.size());
    PoolFirmware fw(staged());
    fw.execute(bundle_of(decode_op(0x1b, 0x03, 20, model::cptc::kFormatBlockScales, 64, 3)), 0, s.access());
    EXPECT_EQ(s.at(9, 0x800)[0], 140);  // 7 x 20, not 7 x 20 x 2 (float legs: BlockScalesMultiply... below)
}

TEST(PoolFirmware, WidestLegImpl6AllOutputs) {
    std::vector<int32_t> codes(64, 0);
    codes[0] = -32;  // CPTC6 signed: -32..31
    codes[1] = 31;
    Decoded f16 = run_decode(codes, 6, 0x07, 0x3c00);
    EXPECT_EQ(f16.s.u16(0, 0x800), 0xd000);  // -32
    EXPECT_EQ(f16.s.u16(0, 0x802), 0x4fc0);  // 31
    Decoded f32 = run_decode(codes, 6, 0x0A, 0x3c00);
    EXPECT_EQ(f32.s.u32(0, 0x800), 0xc2000000u);
    Decoded i8 = run_decode(codes, 6, 0x02, 0x3c00);
    EXPECT_EQ(static_cast<int8_t>(i8.s.at(0, 0x800)[0]), -32);
    EXPECT_EQ(static_cast<int8_t>(i8.s.at(0, 0x801)[0]), 31);
    // UINT8 output decodes the same bits unsigned: -32 is 0b100000 = 32.
    Decoded u8 = run_decode(codes, 6, 0x03, 0x3c00);
    EXPECT_EQ(u8.s.at(0, 0x800)[0], 32);
    Decoded big = run_decode(codes, 6, 0x02, 0x4800);  // x 8: -256 and 248 saturate to int8
    EXPECT_EQ(static_cast<int8_t>(big.s.at(0, 0x800)[0]), -128);
    EXPECT_EQ(static_cast<int8_t>(big.s.at(0, 0x801)[0]), 127);
}

TEST(PoolFirmware, BlockScalesMultiplyAfterTheGlobalScale) {
    Sbuf s;
    std::vector<float> v(128);
    for (unsigned i = 0; i < 128; ++i) v[i] = static_cast<float>(static_cast<int>(i % 15) - 7) * (i < 64 ? 1.0f : 0.5f);
    const model::cptc::Encoded e = model::cptc::encode(v, model::cptc::route_target(4, model::cptc::default_routing()), 64);
    for (uint32_t p = 0; p < 128; ++p) std::memcpy(s.at(p, 0), e.bytes.data(), e.bytes.size());
    PoolFirmware fw(staged());
    ConvLutOp op = decode_op(0x1c, 0x07, 0x4000, e.s1, 128, static_cast<uint16_t>(e.bytes.size() / 16));
    ExecResult r = fw.execute(bundle_of(op), 0, s.access());
    EXPECT_EQ(r.groups, 2u);
    EXPECT_EQ(r.elements, 128u);
    for (unsigned i = 0; i < 128; ++i) {
        const float want = 2.0f * v[i];  // exact: the inputs are on the code grid
        EXPECT_EQ(model::fp::fp16_to_f32(s.u16(5, 0x800 + 2 * i)), want) << i;
    }
}

TEST(PoolFirmware, ExtendedSpec7LogsAndDecodes) {
    Sbuf s;
    const uint16_t units = place_codes(s, std::vector<int32_t>(64, 1), 4);
    PoolFirmware fw(staged());
    ConvLutOp op = spec7_op(decode_op(0x1c, 0x07, 0x3c00, 0, 64, units));
    ExecResult r = fw.execute(bundle_of(op), 2, s.access());
    EXPECT_EQ(r.kernel, "cptc_decode_impl<3>");
    ASSERT_FALSE(r.log.empty());
    EXPECT_EQ(r.log[0], "P2: Decode : ExtendedInstCptcDecode : num_active_chans = 128");
    EXPECT_EQ(s.u16(0, 0x800), 0x3c00);
    op.lut_dtype = 0x0A;  // spec 7 still runs the validators: FP32 is not is_cptc
    EXPECT_EQ(error_of(fw, bundle_of(op), s), "P0: CPTC decode needs a CPTC lut_dtype (is_cptc: not INVALID, not FP32), got 0xa");
    // The firmware's is_cptc is only "not INVALID, not FP32": 0x0C decodes as value 4 (what a
    // CAYMAN program, whose ISA cannot name CPTC4, would have to write).
    op.lut_dtype = 0x0C;
    EXPECT_EQ(fw.execute(bundle_of(op), 0, s.access()).kernel, "cptc_decode_impl<3>");
}

TEST(PoolFirmware, ACoreTouchesOnlyItsPartitions) {
    Sbuf s;
    const uint16_t units = place_codes(s, std::vector<int32_t>(64, 1), 4);
    PoolFirmware fw(staged());
    ConvLutOp op = spec7_op(decode_op(0x1c, 0x07, 0x3c00, 0, 64, units));
    ExecResult r = fw.execute(bundle_of(op), 1, s.access(), 16, 16);  // core 1 of 8
    EXPECT_EQ(r.partitions, 16u);
    EXPECT_EQ(r.log[0], "P1: Decode : ExtendedInstCptcDecode : num_active_chans = 128");
    for (uint32_t p = 0; p < 128; ++p) EXPECT_EQ(s.u16(p, 0x800), p >= 16 && p < 32 ? 0x3c00 : 0) << p;
}

TEST(PoolFirmware, ExtendedCopyMovesElements) {
    Sbuf s;
    FirmwareConfig c = staged(3);
    c.cptc_flag = false;
    PoolFirmware fw(c);
    ConvLutOp op{};
    op.header = {kExtended, kInstWordLen, 0, 0};
    op.spec = 1;
    op.in_dtype = 0x05;  // UINT16
    op.num_active_rows = 2;
    op.src = {encode_addr4(MemSpace::Sbuf, 0, 0x10), {2, 0}, {3, 1}};  // every other element
    op.dst = {encode_addr4(MemSpace::Sbuf, 0, 0x100), {1, 0, 0}, {3, 1, 1}};
    for (uint32_t p = 0; p < 2; ++p)
        for (unsigned i = 0; i < 6; ++i) s.at(p, 0x10 + 2 * i)[0] = static_cast<uint8_t>(10 * p + i);
    ExecResult r = fw.execute(bundle_of(op), 0, s.access());
    EXPECT_EQ(r.kernel, "ExtendedInstCopy");
    EXPECT_EQ(r.bytes_per_partition, 6u);
    EXPECT_EQ(s.u16(0, 0x100), 0);
    EXPECT_EQ(s.u16(0, 0x102), 2);
    EXPECT_EQ(s.u16(1, 0x104), 14);
    EXPECT_EQ(s.u16(2, 0x100), 0);  // only the active rows
    op.dst.num_elem[0] = 4;
    EXPECT_NE(error_of(fw, bundle_of(op), s).find("src has 3 elements, dst 4"), std::string::npos);
}

// Random operand bytes (counts kept small for time), often well-formed enough to reach the
// kernels (every third).
Bundle random_bundle(std::mt19937& rng, int i) {
    Bundle b;
    for (auto& x : b.b) x = static_cast<uint8_t>(rng());
    b.b[0] = i % 2 ? kConvLutLoad : kExtended;
    b.b[12] = static_cast<uint8_t>(std::array<int, 4>{0, 1, 7, 5}[i % 4]);
    for (size_t off : {size_t{24}, size_t{26}, size_t{58}, size_t{60}, size_t{62}}) b.set_u16(off, static_cast<uint16_t>(rng() % 40));
    if (i % 3 == 0) {
        b.set_u8(32, 0x09);
        b.set_u8(38, 128);
        b.set_u8(39, 128);
        b.set_u8(44, 0xf);
        b.set_u8(45, 0xf);
        b.set_u8(46, 64);
        b.set_u32(16, encode_addr4(MemSpace::Sbuf, 0, 0));
        b.set_u32(48, encode_addr4(MemSpace::Sbuf, 0, 0x800));
        b.set_u16(20, 1);
        b.set_u16(22, 4);
        b.set_u16(24, 4);
    }
    return b;
}

TEST(PoolFirmware, RandomBundlesEitherRunOrRaiseError) {
    // Bad input never crashes: random bundles either decode, copy, load, or raise
    // neuronsim::Error; nothing else escapes and nothing writes outside.
    std::mt19937 rng(11);
    Sbuf s;
    PoolFirmware fw(staged());
    int ran = 0, refused = 0;
    for (int i = 0; i < 3000; ++i) {
        const Bundle b = random_bundle(rng, i);
        try {
            fw.execute(b, 0, s.access());
            ++ran;
        } catch (const Error&) {
            ++refused;
        }
    }
    EXPECT_GT(ran, 50);
    EXPECT_GT(refused, 1000);
}

}  // namespace
}  // namespace neuronsim::test

namespace neuronsim::test {
namespace {

using namespace firmware_model;
using namespace model::isa;

std::string text(const std::vector<model::isa::Region>& rs) {
    std::string t;
    for (const model::isa::Region& r : rs)
        t += std::to_string(static_cast<int>(r.space)) + ":" + std::to_string(r.p0) + "-" + std::to_string(r.p1) + "[" + std::to_string(r.lo) + "," +
             std::to_string(r.hi) + ") ";
    return t;
}

// A bundle of a modelled kernel with random operands, which may or may not pass its checks: a
// CPTC decode (0xe4, or 0xf0 spec 7), an extended copy or a legacy LUT load.
Bundle kernel_bundle(std::mt19937& rng) {
    const unsigned kind = rng() % 4;
    if (kind < 2) {
        static const uint8_t luts[] = {0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f}, outs[] = {0x03, 0x07, 0x0A};
        const ConvLutOp op =
            decode_op(luts[rng() % 7], outs[rng() % 3], 0x3c00, 0, static_cast<uint16_t>(1 + rng() % 128), static_cast<uint16_t>(1 + rng() % 40));
        return bundle_of(kind ? spec7_op(op) : op);
    }
    ConvLutOp op{};
    if (kind == 2) {
        op.header = {kExtended, kInstWordLen, 0, 0};
        op.spec = 1;
        op.in_dtype = 0x05;
        op.num_active_rows = static_cast<uint8_t>(rng() % 129);
        const uint16_t n = static_cast<uint16_t>(1 + rng() % 64);
        op.src = {encode_addr4(MemSpace::Sbuf, 0, static_cast<uint32_t>(rng() % 1024)), {static_cast<int16_t>(1 + rng() % 3), 0}, {n, 1}};
        op.dst = {encode_addr4(MemSpace::Sbuf, 0, static_cast<uint32_t>(1024 + rng() % 1024)), {1, 0, 0}, {n, 1, 1}};
        return bundle_of(op);
    }
    op.header = {kConvLutLoad, kInstWordLen, 0, 0};
    // (a step back from near the end: the entry past the partition comes before the one below 0)
    op.src = {encode_addr4(MemSpace::Sbuf, static_cast<uint32_t>(rng() % 128), static_cast<uint32_t>(rng() % (kPer + 64))),
              {static_cast<int16_t>(static_cast<int>(rng() % 601) - 300), 0},
              {16, 1}};
    op.in_dtype = 0x05;
    return bundle_of(op);
}

// plan() is execute() without the doing (what GpSimd waits for before its firmware runs): over
// random bundles on a core's slice it raises the same errors and describes the same work - the
// kernel, its counts, the regions it reads and writes, the log - while the SBUF bytes and the
// legacy LUT stay as they were; execute() then does the work.
TEST(PoolFirmware, APlanIsTheSameCheckAndWorkWithoutTouchingAnything) {
    std::mt19937 rng(23);
    Sbuf s;
    for (size_t i = 0; i < s.mem.size(); ++i) s.mem[i] = static_cast<uint8_t>(i * 7 + 3);
    PoolFirmware fw(staged());
    int same_work = 0, same_error = 0, wrote = 0, luts = 0;
    for (int i = 0; i < 3000; ++i) {
        const Bundle b = i % 2 ? random_bundle(rng, i) : kernel_bundle(rng);
        const unsigned core = static_cast<unsigned>(i % 8);
        const std::vector<uint8_t> before = s.mem;
        const std::array<uint16_t, 16> lut = fw.conv_lut();
        const bool loaded = fw.conv_lut_loaded();
        std::string planned, done;
        ExecResult p, r;
        try {
            p = fw.plan(b, core, core * 16, 16);
        } catch (const Error& e) {
            planned = e.what();
        }
        EXPECT_EQ(s.mem, before) << i;
        EXPECT_EQ(fw.conv_lut(), lut) << i;
        EXPECT_EQ(fw.conv_lut_loaded(), loaded) << i;
        try {
            r = fw.execute(b, core, s.access(), core * 16, 16);
        } catch (const Error& e) {
            done = e.what();
        }
        if (!planned.empty()) {
            EXPECT_EQ(done, planned) << i;
            ++same_error;
            continue;
        }
        if (!done.empty()) {  // (only the test SBUF's own bound, which a plan does not reach)
            EXPECT_EQ(done, "outside the test SBUF") << i;
            continue;
        }
        EXPECT_EQ(p.kernel, r.kernel) << i;
        EXPECT_EQ(p.elements, r.elements) << i;
        EXPECT_EQ(p.partitions, r.partitions) << i;
        EXPECT_EQ(p.bytes_per_partition, r.bytes_per_partition) << i;
        EXPECT_EQ(p.log, r.log) << i;
        EXPECT_EQ(text(p.reads), text(r.reads)) << i;
        EXPECT_EQ(text(p.writes), text(r.writes)) << i;
        EXPECT_EQ(p.conv_lut.empty(), true) << i;
        same_work += !r.reads.empty();
        wrote += s.mem != before;
        luts += !r.conv_lut.empty();
    }
    // The case that made the legacy LUT load check every entry's place first: entry 0 past the
    // partition's end, entry 7 below offset 0.
    ConvLutOp lut_back{};
    lut_back.header = {kConvLutLoad, kInstWordLen, 0, 0};
    lut_back.src = {encode_addr4(MemSpace::Sbuf, 3, kPer - 1), {-300, 0}, {16, 1}};
    lut_back.in_dtype = 0x05;
    const std::string below = "pool_conv_lut_load: the source pattern reaches below offset 0";
    EXPECT_EQ(error_of(fw, bundle_of(lut_back), s), below);
    try {
        fw.plan(bundle_of(lut_back), 0);
        ADD_FAILURE() << "the plan raised no error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), below);
    }
    EXPECT_GT(same_work, 300);
    EXPECT_GT(wrote, 100) << "execute did write what its plan described";
    EXPECT_GT(luts, 50);
    EXPECT_GT(same_error, 1000);
}

// The eight cores of one instruction applied at once on host threads (as GpSimd runs them)
// write the same SBUF bytes as one after the other, for every decode leg and the copy.
TEST(PoolFirmware, TheCoresOfAnInstructionMayRunAtOnce) {
    std::mt19937 rng(5);
    PoolFirmware fw(staged());
    model::WorkerPool pool(4);
    int compared = 0;
    for (int i = 0; i < 200; ++i) {
        const Bundle b = kernel_bundle(rng);
        Sbuf serial, parallel;
        for (size_t k = 0; k < serial.mem.size(); ++k) serial.mem[k] = parallel.mem[k] = static_cast<uint8_t>(k * 31 + static_cast<size_t>(i) * 7 + (k >> 9));
        std::string serial_error;
        try {
            for (unsigned c = 0; c < 8; ++c) fw.apply(b, c, serial.access(), c * 16, 16);
        } catch (const Error& e) {
            serial_error = e.what();
        }
        if (!serial_error.empty()) continue;
        const SbufAccess access = parallel.access();
        std::vector<int> ok(8, 0);
        pool.run(8, [&](size_t c) {
            try {
                fw.apply(b, static_cast<unsigned>(c), access, static_cast<uint32_t>(c) * 16, 16);
                ok[c] = 1;
            } catch (const Error&) {
            }
        });
        EXPECT_EQ(std::count(ok.begin(), ok.end(), 1), 8) << i;
        EXPECT_TRUE(parallel.mem == serial.mem) << i;
        ++compared;
    }
    EXPECT_GT(compared, 40);
}

// A pathological pattern (step 0, counts of 65535) is refused at once by the per-instruction
// element limit instead of running for minutes; the limit is the config's.
TEST(PoolFirmware, ElementLimitBoundsTheWorkOfOneInstruction) {
    Sbuf s;
    FirmwareConfig c = staged(3);
    PoolFirmware fw(c);
    ConvLutOp op{};
    op.header = {kExtended, kInstWordLen, 0, 0};
    op.spec = 1;
    op.in_dtype = 0x05;
    op.num_active_rows = 1;
    op.src = {encode_addr4(MemSpace::Sbuf, 0, 0x10), {0, 0}, {65535, 65535}};
    op.dst = {encode_addr4(MemSpace::Sbuf, 0, 0x100), {0, 0, 0}, {65535, 65535, 1}};
    EXPECT_NE(
        error_of(fw, bundle_of(op), s).find("P0: ExtendedInstCopy: 4294836225 elements x 1 partitions exceed the per-instruction limit of 268435456 elements"),
        std::string::npos)
        << error_of(fw, bundle_of(op), s);
    // Under a lower limit, a small copy over 128 partitions is refused too.
    c.max_elements = 1000;
    PoolFirmware small(c);
    op.num_active_rows = 128;
    op.src.num_elem[0] = op.dst.num_elem[0] = 8;
    op.src.num_elem[1] = op.dst.num_elem[1] = 1;
    EXPECT_NE(error_of(small, bundle_of(op), s).find("8 elements x 128 partitions exceed the per-instruction limit of 1000"), std::string::npos);
    op.num_active_rows = 100;
    EXPECT_EQ(error_of(small, bundle_of(op), s), "(no error)");
    // The CPTC decode counts its elements the same way.
    ConvLutOp d = decode_op(0x1c, 0x07, 0x3c00, 0, 64, 4);
    c.max_elements = 64 * 127;
    PoolFirmware fw2(c);
    EXPECT_NE(error_of(fw2, bundle_of(d), s).find("cptc_decode_impl<3>: 64 elements x 128 partitions exceed"), std::string::npos)
        << error_of(fw2, bundle_of(d), s);
}

}  // namespace
}  // namespace neuronsim::test
