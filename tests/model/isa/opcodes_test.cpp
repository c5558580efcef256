// Bundle encoding: header and EVENTS bytes, field offsets, text round trips, errors.
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/isa/address.h"
#include "model/isa/field_names.h"
#include "model/isa/opcodes.h"
#include "platform/config.h"

namespace neuronsim::model::isa {
namespace {

TEST(Isa, HeaderAndEvents) {
    Bundle b = assemble("act", "sync", {"wait=3>=2", "update=5+1"});
    EXPECT_EQ(b.u8(0), 0xA0);
    EXPECT_EQ(b.u8(1), 0x10);
    EXPECT_EQ(b.u8(4), 0x05);  // GE immediate
    EXPECT_EQ(b.u8(5), 3);
    EXPECT_EQ(b.u8(6), 0x13);  // sem-inc
    EXPECT_EQ(b.u8(7), 5);
    EXPECT_EQ(b.u32(8), 2u);
    EXPECT_EQ(check_header_and_events(b), "");
    Bundle s = assemble("dma0", "sync", {"update=7=9"});
    EXPECT_EQ(s.u8(6), 0x16);
    EXPECT_EQ(s.u32(8), 9u);
}

TEST(Isa, ActivateFieldOffsets) {
    Bundle b = assemble("act", "activate",
                        {"func=7", "scale=0.5", "bias=0x3f800000", "src=sbuf:1:0x40", "src.step=1,0,0", "src.num=512,1,1", "dst=psum:2:0x10",
                         "num_active_channels=128", "accumulator_cmd=3", "bias_src_n=1"});
    EXPECT_EQ(b.u8(0), 0x21);
    EXPECT_EQ(b.u8(14), 3);
    EXPECT_EQ(b.u8(15), 1);
    EXPECT_EQ(b.u32(16), (1u << 18) + 0x40);  // SBUF ADDR4
    EXPECT_EQ(b.u16(20), 1);
    EXPECT_EQ(b.u16(26), 512);
    EXPECT_EQ(b.u8(34), 128);
    EXPECT_EQ(b.u8(35), 7);  // activation_func at +0x23
    EXPECT_EQ(b.u32(36), 0x3f000000u);
    EXPECT_EQ(b.u32(40), 0x3f800000u);
    EXPECT_EQ(b.u32(48), 0x2000000u + (2u << 15) + 0x10);  // PSUM window at bit 25
    Bundle l = assemble("act", "load_act_func_set", {"set=20"});
    EXPECT_EQ(l.u8(0x23), 20);
}

TEST(Isa, ConvLutFieldOffsets) {
    // S2_CONVLUT (§F.3): src TENSOR2D at 16, in_dtype 32, rows/cols 38/39, multiplicative_const
    // 40/42, row_grp/col_grp 44/45, block_size 46, lut_dtype 47; neuronsim's out_dtype at 33 and
    // dst TENSOR3D at 48; 0xf0's spec at 12.
    Bundle b = assemble("pool", "ext",
                        {"spec=7", "src=sbuf:2:0x20", "src.num=4,5", "src.step=1,4", "in_dtype=9", "out_dtype=7", "num_active_rows=128", "num_active_cols=127",
                         "mconst0=0x3c00", "mconst1=0x100", "row_grp=15", "col_grp=14", "block_size=64", "lut_dtype=0x1c", "dst=sbuf:3:0x1000",
                         "dst.num=128,1,1", "dst.step=1,0,0"});
    EXPECT_EQ(b.u8(0), 0xf0);
    EXPECT_EQ(b.u8(12), 7);
    EXPECT_EQ(b.u32(16), (2u << 18) + 0x20);
    EXPECT_EQ(b.u16(20), 1);
    EXPECT_EQ(b.u16(22), 4);
    EXPECT_EQ(b.u16(24), 4);
    EXPECT_EQ(b.u16(26), 5);
    EXPECT_EQ(b.u8(32), 9);
    EXPECT_EQ(b.u8(33), 7);
    EXPECT_EQ(b.u8(38), 128);
    EXPECT_EQ(b.u8(39), 127);
    EXPECT_EQ(b.u16(40), 0x3c00);
    EXPECT_EQ(b.u16(42), 0x100);
    EXPECT_EQ(b.u8(44), 15);
    EXPECT_EQ(b.u8(45), 14);
    EXPECT_EQ(b.u8(46), 64);
    EXPECT_EQ(b.u8(47), 0x1c);
    EXPECT_EQ(b.u32(48), (3u << 18) + 0x1000);
    EXPECT_EQ(b.u16(58), 128);
    EXPECT_EQ(assemble("pool", "conv_lut_load", {"lut_dtype=0x19"}).u8(0), 0xe4);
}

TEST(Isa, RoundTripThroughText) {
    std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"act",
         {"activate", "func=5", "scale=-2.5", "bias=1e-07", "imm=0x7fc00001", "src=sbuf:0:0x0", "src.num=64,2,1", "src.step=1,-64,0", "dst=sbuf:127:0x3fffc",
          "dst.num=64,2,1", "in_bias_dtype=10", "out_dtype=2", "num_active_channels=32", "wait=0==4"}},
        {"act", {"read_accumulator", "count=1", "dtype=10", "num_active_channels=128", "dst=psum:0:0x8", "dst.num=1", "update=1-1"}},
        {"act", {"activate2", "op0=6", "op1=4", "reduce_cmd=3", "reduce_op=8", "imm0=2", "imm1=-1", "relu_param=0.25", "func=2"}},
        {"act", {"activate_quantize", "quant_scale=3", "dequant_scale=0.125", "bias_addr=sbuf:5:0x100", "quant_zero=128"}},
        {"dma3.2", {"copy", "src=dram:0x123456789", "dst=psum:4:0x100", "partitions=4", "bytes=64", "src_stride=4096"}},
        {"pool", {"halt", "wait=200>=1"}},
        {"pool",
         {"conv_lut_load", "src=sbuf:0:0x0", "src.num=4,5", "src.step=1,4", "in_dtype=9", "out_dtype=7", "num_active_rows=128", "mconst0=0x3c00",
          "mconst1=0x100", "block_size=64", "lut_dtype=0x1c", "dst=sbuf:0:0x1000", "dst.num=128,1,1", "update=0+1"}},
        {"pool", {"ext", "spec=1", "in_dtype=5", "src=sbuf:1:0x2", "dst=sbuf:1:0x200", "dst.step=1,0,0"}},
    };
    for (const auto& [engine, words] : cases) {
        Bundle b = assemble(engine, words[0], std::vector<std::string>(words.begin() + 1, words.end()));
        std::string text = disassemble(engine, b);
        std::istringstream ss(text);
        std::vector<std::string> w;
        for (std::string x; ss >> x;) w.push_back(x);
        ASSERT_EQ(w[0], engine);
        Bundle again = assemble(w[0], w[1], std::vector<std::string>(w.begin() + 2, w.end()));
        EXPECT_EQ(again.b, b.b) << text;
    }
    // Any 64 bytes survive: unknown opcodes and stray bytes are written raw.
    std::mt19937 rng(2);
    for (int i = 0; i < 200; ++i) {
        Bundle b;
        for (auto& x : b.b) x = static_cast<uint8_t>(rng());
        if (i % 2) {
            b.b[0] = 0x21;
            b.b[1] = 0x10;
            b.b[2] = b.b[3] = 0;
            b.b[4] = 0;
            b.b[6] = 0x13;
        }
        std::string text = disassemble("act", b);
        std::istringstream ss(text);
        std::vector<std::string> w;
        for (std::string x; ss >> x;) w.push_back(x);
        EXPECT_EQ(assemble(w[0], w[1], std::vector<std::string>(w.begin() + 2, w.end())).b, b.b) << text;
    }
}

std::string err(const std::string& engine, const std::string& m, const std::vector<std::string>& f) {
    try {
        assemble(engine, m, f);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Isa, Errors) {
    EXPECT_NE(err("vector", "sync", {}).find("unknown engine 'vector'"), std::string::npos);
    EXPECT_NE(err("act", "activat", {}).find("unknown mnemonic 'activat'"), std::string::npos);
    EXPECT_NE(err("dma0", "activate", {}).find("'activate' does not run on engine dma0"), std::string::npos);
    EXPECT_NE(err("act", "activate", {"fnc=3"}).find("'activate' has no field 'fnc' (fields: imm_src"), std::string::npos);
    EXPECT_NE(err("act", "activate", {"func=300"}).find("func=300: expected an integer in [0, 255]"), std::string::npos);
    EXPECT_NE(err("act", "activate", {"scale=fast"}).find("scale=fast: expected a float32 (0.5), a bit pattern"), std::string::npos);
    EXPECT_NE(err("act", "activate", {"src=sbuf:0:0x40000"}).find("does not fit the 262144-byte partition window"), std::string::npos);
    EXPECT_NE(err("act", "activate", {"src=dram:0x0"}).find("addresses SBUF or PSUM, not DRAM"), std::string::npos);
    EXPECT_NE(err("act", "activate", {"src.num=1,2"}).find("expected 3 comma-separated values"), std::string::npos);
    EXPECT_NE(err("act", "activate", {"src.step=1,40000,0"}).find("must be an int16"), std::string::npos);
    EXPECT_NE(err("act", "sync", {"wait=3>2"}).find("expected SEM>=VALUE or SEM==VALUE"), std::string::npos);
    EXPECT_NE(err("act", "sync", {"wait=300>=2"}).find("expected an integer in [0, 255]"), std::string::npos);
    EXPECT_NE(err("act", "sync", {"wait=1>=2", "update=3=4"}).find("shares the EVENTS value"), std::string::npos);
    EXPECT_NE(err("act", "sync", {"func=1"}).find("'sync' has no field 'func'"), std::string::npos);
    EXPECT_NE(err("act", "sync", {"wait=1>=1", "wait=1>=2"}).find("field 'wait' given twice"), std::string::npos);
    EXPECT_NE(err("act", "raw", {"raw=00"}).find("expected 128 hex digits"), std::string::npos);
    EXPECT_NE(err("dma1", "copy", {"src=hbm:0"}).find("expected dram:ADDR, sbuf:PARTITION:OFFSET or psum:PARTITION:OFFSET"), std::string::npos);
}

TEST(Isa, Addr4) {
    Location l = decode_addr4(encode_addr4(MemSpace::Psum, 127, 0x7fff));
    EXPECT_EQ(l.space, MemSpace::Psum);
    EXPECT_EQ(l.partition, 127u);
    EXPECT_EQ(l.offset, 0x7fffu);
    EXPECT_EQ(encode_addr4(MemSpace::Sbuf, 127, 0x3ffff), 0x1ffffffu);  // SBUF fills the window below bit 25
    EXPECT_THROW(encode_addr4(MemSpace::Psum, 0, 0x8000), Error);
}

}  // namespace
}  // namespace neuronsim::model::isa

namespace neuronsim::test {
namespace {

// Enumerated fields take names (model/isa/field_names.h) as well as codes, and disasm prints
// the names; the bytes are the same either way.
TEST(FieldNames, NamesAssembleToTheirCodesAndDisasmPrintsThem) {
    using namespace model::isa;
    const Bundle named = assemble("act", "activate",
                                  {"func=gelu", "in_bias_dtype=bf16:fp32", "out_dtype=fp32", "accumulator_cmd=zero_accumulate", "bias_src_n=immediate",
                                   "scale_src=pointer", "num_active_channels=4"});
    const Bundle coded = assemble("act", "activate",
                                  {"func=" + std::to_string(field_code("func", "gelu").value()), "in_bias_dtype=0xa6", "out_dtype=10", "accumulator_cmd=3",
                                   "bias_src_n=1", "scale_src=1", "num_active_channels=4"});
    EXPECT_EQ(named.b, coded.b);
    const std::string text = disassemble("act", named);
    for (const char* f :
         {"func=gelu", "in_bias_dtype=bfloat16:fp32", "out_dtype=fp32", "accumulator_cmd=zero_accumulate", "bias_src_n=immediate", "scale_src=pointer"})
        EXPECT_NE(text.find(f), std::string::npos) << f << " in " << text;
    EXPECT_EQ(assemble("act", "load_act_func_set", {"set=gelu_and_others"}).b, assemble("act", "load_act_func_set", {"set=10"}).b);
    const Bundle a2 = assemble("act", "activate2", {"op0=MULT", "op1=add", "reduce_cmd=reset_reduce", "reduce_op=abs_max"});
    EXPECT_EQ(field_name("op0", a2.u8(29)), "mult");
    EXPECT_EQ(a2.u8(29), 0x06);
    EXPECT_EQ(a2.u8(31), 0x0A);
    try {
        assemble("act", "activate", {"out_dtype=fp33"});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("out_dtype=fp33: expected an integer in [0, 255] or one of"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("bf16"), std::string::npos) << e.what();
    }
    EXPECT_EQ(field_name("out_dtype", 0x30), "") << "a code without a name prints as its number";
}

TEST(FieldNames, GenerationAliasesAreTheInstanceFamilies) {
    EXPECT_EQ(canonical_generation("trn1"), "sunda");
    EXPECT_EQ(canonical_generation("Inf2"), "sunda");
    EXPECT_EQ(canonical_generation("TRN2"), "cayman");
    EXPECT_EQ(canonical_generation("trn3"), "mariana");
    EXPECT_EQ(platform::compose_config("trn2", {}, {}).generation.name, "CAYMAN");
}

}  // namespace
}  // namespace neuronsim::test
