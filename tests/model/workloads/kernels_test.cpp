// The kernel generator without simulating: limits refused with the limit named, the schedule's
// table loads, the ring of inputs at model sizes, every generation's refusal of CPTC.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/common/error.h"
#include "model/cptc/cptc.h"
#include "model/workloads/kernels.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {
namespace {

namespace wl = model::workloads;

wl::GenLimits sunda() {
    wl::GenLimits g;
    g.name = "SUNDA", g.nc_version = 2, g.sbuf_bytes = 196608, g.cptc_decode = false;
    return g;
}

std::string error_of(const wl::KernelRequest& r, const wl::GenLimits& g, const std::string& path) {
    try {
        wl::write_kernel(r, g, path);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

std::string text_of(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TEST(KernelGenerator, RefusesARowOverTheFreeSizeLimit) {
    TempDir t;
    wl::KernelRequest r;
    r.kernel = "softmax", r.rows = 128, r.cols = 70000;
    const std::string e = error_of(r, wl::GenLimits{}, t.file("k.trace"));
    EXPECT_NE(e.find("free-size limit of 65535"), std::string::npos) << e;
    EXPECT_FALSE(std::filesystem::exists(t.file("k.trace")));
}

TEST(KernelGenerator, RefusesShapesThatDoNotFitSbufNamingTheGenerationAndField) {
    TempDir t;
    wl::KernelRequest r;
    r.kernel = "rmsnorm", r.rows = 128, r.cols = 20000;  // fp32: 2 slots of 80000 B, gamma and a scratch row > SUNDA's 192 KiB
    const std::string e = error_of(r, sunda(), t.file("k.trace"));
    EXPECT_NE(e.find("SUNDA's SBUF has 196608 (memory.sbuf_bytes_per_partition)"), std::string::npos) << e;
    r.dtype = model::fp::Dtype::Bfloat16;  // half the bytes fit
    EXPECT_EQ(error_of(r, sunda(), t.file("k.trace")), "(no error)");
}

TEST(KernelGenerator, CptcOnlyWhereTheGenerationStagesItAndOnWholeTiles) {
    TempDir t;
    wl::KernelRequest r;
    r.kernel = "cptc-dequant-act", r.rows = 256, r.cols = 128;
    const std::string e = error_of(r, sunda(), t.file("k.trace"));
    EXPECT_NE(e.find("SUNDA cannot decode CPTC"), std::string::npos) << e;
    r.rows = 200;
    const std::string rows = error_of(r, wl::GenLimits{}, t.file("k.trace"));
    EXPECT_NE(rows.find("rows must be a multiple of 128"), std::string::npos) << rows;
}

TEST(KernelGenerator, UnknownKernelsAndBadParametersAreNamed) {
    TempDir t;
    wl::KernelRequest r;
    r.kernel = "softmx";
    EXPECT_NE(error_of(r, wl::GenLimits{}, t.file("k.trace")).find("unknown kernel 'softmx'"), std::string::npos);
    r.kernel = "mlp-act", r.act = "tanh";
    EXPECT_NE(error_of(r, wl::GenLimits{}, t.file("k.trace")).find("mlp-act takes gelu or silu"), std::string::npos);
    r = {};
    r.model = "llama2-7b", r.layer = 32, r.seq = 128;
    EXPECT_NE(error_of(r, wl::GenLimits{}, t.file("k.trace")).find("layers 0..31"), std::string::npos);
}

TEST(KernelGenerator, RefusesWhatDoesNotFitDramOrOneTrace) {
    TempDir t;
    wl::KernelRequest r;
    r.kernel = "mlp-act", r.rows = 128, r.cols = 1024;
    wl::GenLimits small;
    small.dram_bytes = uint64_t{256} << 20;  // all of it kept for the queues and sets
    const std::string e = error_of(r, small, t.file("k.trace"));
    EXPECT_NE(e.find("(memory.dram_bytes)"), std::string::npos) << e;
    r.rows = (uint64_t{1} << 20) * 128 + 1;  // one tile more than a trace holds
    const std::string tiles = error_of(r, wl::GenLimits{}, t.file("k.trace"));
    EXPECT_NE(tiles.find("1048577 tiles"), std::string::npos) << tiles;
    // A preset whose later phase breaks a limit leaves neither the trace nor the earlier inputs.
    r = {};
    r.model = "llama2-7b", r.seq = 4096;  // attention's scores of 4096 keys do not fit its PSUM banks
    EXPECT_NE(error_of(r, wl::GenLimits{}, t.file("l.trace")).find("at most 2048 keys"), std::string::npos);
    EXPECT_TRUE(std::filesystem::is_empty(t.path())) << "files left in " << t.path();
    r = {};
    r.model = "bert-base", r.seq = 128, r.act = "silu";
    EXPECT_NE(error_of(r, wl::GenLimits{}, t.file("k.trace")).find("--act, --bits, --intermediate, --heads and --features do not apply to --model"),
              std::string::npos);
    r = {};
    r.model = "bert-base", r.seq = 128, r.intermediate = 1024;
    EXPECT_NE(error_of(r, wl::GenLimits{}, t.file("k.trace")).find("do not apply to --model"), std::string::npos);
    r = {};
    r.kernel = "softmax", r.intermediate = 1024;
    EXPECT_NE(error_of(r, wl::GenLimits{}, t.file("k.trace")).find("--intermediate applies to mlp only"), std::string::npos);
}

// The max, 1/sum and the scale are on VectorE, so exp_and_others stays resident: one table
// load, however many tiles; each tile is one reduce, one exp, one read-out, one reciprocal and
// one scale.
TEST(KernelGenerator, SoftmaxKeepsOneSetResidentWithVectorE) {
    TempDir t;
    wl::KernelRequest r;
    r.kernel = "softmax", r.rows = 128 * 40, r.cols = 256;
    const wl::KernelSummary s = wl::write_kernel(r, wl::GenLimits{}, t.file("k.trace"));
    EXPECT_EQ(s.tiles, 40u);
    EXPECT_EQ(s.table_loads, 1u);
    const std::string text = text_of(t.file("k.trace"));
    EXPECT_EQ(count(text, "load_act_func_set set=0"), 1u);
    EXPECT_EQ(count(text, "dve tensor_reduce reduce_op=max negate=1"), 40u);
    EXPECT_EQ(count(text, "dve reciprocal"), 40u);
    EXPECT_EQ(count(text, "dve tensor_scalar op0=mult"), 40u);
    EXPECT_EQ(count(text, "act activate"), 40u);
    EXPECT_TRUE(s.notes.empty());
}

// VectorE issues the next tile's max before this tile's 1/sum (it runs one tile behind), except
// with one buffer, where the next load waits for this tile's store.
TEST(KernelGenerator, SoftmaxVectorEngineRunsOneTileBehind) {
    TempDir t;
    wl::KernelRequest r;
    r.kernel = "softmax", r.rows = 128 * 3, r.cols = 64;
    auto dve_ops = [&](const std::string& file) {
        std::string ops;
        std::istringstream in(text_of(file));
        for (std::string line; std::getline(in, line);)
            if (line.rfind("dve ", 0) == 0) {
                const std::string m = line.substr(4, line.find(' ', 4) - 4);
                ops += m == "sync" ? 's' : m == "tensor_reduce" ? 'm' : m == "reciprocal" ? 'r' : m == "tensor_scalar" ? 'x' : '?';
            }
        return ops;
    };
    wl::write_kernel(r, wl::GenLimits{}, t.file("a.trace"));
    EXPECT_EQ(dve_ops(t.file("a.trace")), "smsmrxsmrxrx");
    r.buffers = 1;
    wl::write_kernel(r, wl::GenLimits{}, t.file("b.trace"));
    EXPECT_EQ(dve_ops(t.file("b.trace")), "smrxsmrxsmrx");
}

TEST(KernelGenerator, NormsNeedOneTableLoad) {
    TempDir t;
    wl::KernelRequest r;
    r.kernel = "layernorm", r.rows = 1000, r.cols = 768;
    wl::KernelSummary s = wl::write_kernel(r, wl::GenLimits{}, t.file("k.trace"));
    EXPECT_EQ(s.table_loads, 1u);
    // gamma and beta: loaded once (a broadcast into every partition), applied per tile on VectorE.
    std::string text = text_of(t.file("k.trace"));
    EXPECT_EQ(s.files.size(), 3u);  // x, gamma, beta
    EXPECT_EQ(count(text, "partitions=128 bytes=3072 update=44+1"), 2u);
    EXPECT_EQ(count(text, "dve tensor_tensor op=mult"), 8u);
    EXPECT_EQ(count(text, "dve tensor_tensor op=add"), 8u);
    r.kernel = "rmsnorm";
    s = wl::write_kernel(r, wl::GenLimits{}, t.file("k.trace"));
    EXPECT_EQ(s.table_loads, 1u);
    text = text_of(t.file("k.trace"));
    EXPECT_EQ(s.files.size(), 2u);  // x, gamma
    EXPECT_EQ(count(text, "dve tensor_tensor op=mult"), 8u);
    EXPECT_EQ(count(text, "dve tensor_tensor op=add"), 0u);
}

TEST(KernelGenerator, ModelSizedInputsAreARingOfWholeTiles) {
    TempDir t;
    wl::KernelRequest r;
    r.model = "llama2-7b", r.seq = 2048;
    r.max_data_bytes = uint64_t{8} << 20;  // every tensor here has tiles of at most 8 MiB
    const wl::KernelSummary s = wl::write_kernel(r, wl::GenLimits{}, t.file("l.trace"));
    EXPECT_TRUE(s.ringed);
    EXPECT_EQ(s.phases.size(), 6u);  // rmsnorm, QKV, attention, out, rmsnorm, mlp
    EXPECT_EQ(s.elements, 6ull * 2048 * 4096);  // each phase's [tokens x hidden]
    for (const auto& f : s.files) {
        EXPECT_LE(f.bytes, uint64_t{8} << 20) << f.path;
        EXPECT_EQ(std::filesystem::file_size(f.path), f.bytes) << f.path;
    }
    // 16 per norm; QKV: 4 token blocks of 512 x 96 output blocks; attention: 32 heads x 16
    // q-tiles; out: 4 x 32; mlp: x's and a's fp32 tiles fit SBUF for blocks of 384 tokens (6 of
    // them) x 32 output blocks.
    EXPECT_EQ(s.tiles, 16u + 4 * 96 + 32 * 16 + 4 * 32 + 16 + 6 * 32);
}

// An output with wider rows than its input's (cptc-dequant-act decodes 4-bit rows to fp32)
// shares the input's ring, and the ring is as long as the budget holds for the output: neither
// the input file nor the .dump passes --max-data-mib.
TEST(KernelGenerator, ARingOfNarrowInputsHoldsTheirWiderOutputsWithinTheBudget) {
    TempDir t;
    wl::KernelRequest r;
    r.kernel = "cptc-dequant-act", r.rows = 2048, r.cols = 4096;
    r.max_data_bytes = uint64_t{8} << 20;  // the input (about 2 KiB a row) is 4.3 MB, the output 32 MiB
    const wl::KernelSummary s = wl::write_kernel(r, wl::GenLimits{}, t.file("c.trace"));
    EXPECT_TRUE(s.ringed);
    ASSERT_EQ(s.files.size(), 1u);
    const std::string text = text_of(t.file("c.trace"));
    const size_t dump = text.find(".dump ");
    ASSERT_NE(dump, std::string::npos) << text;
    const uint64_t dumped = std::stoull(text.substr(text.find("bytes=", dump) + 6));
    EXPECT_EQ(dumped, uint64_t{8} << 20);  // 4 tiles of 128 rows of 4096 fp32
    EXPECT_LT(s.files[0].bytes, dumped);
    const auto target = model::cptc::route_target(4, model::cptc::default_routing());
    EXPECT_EQ(s.files[0].bytes, 512 * model::cptc::stream_bytes(4, 4096, 64, !target.integer));  // the same 512 rows, compressed
    EXPECT_EQ(std::filesystem::file_size(s.files[0].path), s.files[0].bytes);
}

TEST(KernelGenerator, TheSameSeedWritesTheSameBytes) {
    TempDir t;
    wl::KernelRequest r;
    r.kernel = "mlp-act", r.rows = 256, r.cols = 100, r.seed = 7;
    const auto a = wl::write_kernel(r, wl::GenLimits{}, t.file("a.trace"));
    const auto b = wl::write_kernel(r, wl::GenLimits{}, t.file("b.trace"));
    EXPECT_EQ(text_of(a.files[0].path), text_of(b.files[0].path));
    r.seed = 8;
    const auto c = wl::write_kernel(r, wl::GenLimits{}, t.file("c.trace"));
    EXPECT_NE(text_of(a.files[0].path), text_of(c.files[0].path));
}

}  // namespace
}  // namespace neuronsim::test
