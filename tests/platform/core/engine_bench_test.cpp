// Each engine alone in a test bench, with no device: the bench is its EngineContext (config,
// semaphores, DMA engines over mock memories, registers), a list of bundles is its
// instruction source, and plain memory targets stand in for DRAM, SBUF and PSUM.
#include <cstring>

#include <gtest/gtest.h>

#include "platform/core/work_budget.h"

#include "model/common/worker_pool.h"
#include "model/cptc/cptc.h"
#include "model/fp/bits.h"
#include "model/fp/dtype.h"
#include "model/trace/trace_reader.h"
#include "neuronsim/act_sets.h"
#include "platform/act/act_engine.h"
#include "platform/core/semaphores.h"
#include "platform/dma/dma_engines.h"
#include "platform/pool/pool_engine.h"
#include "platform/tlm/memory.h"
#include "tests/support/systemc_fixture.h"

namespace neuronsim::test {
namespace {

using namespace platform;

struct ListSource : InstructionSource {
    std::vector<model::isa::Bundle> bundles;
    size_t next_index = 0, completed = 0;
    bool next(uint8_t* b, uint64_t& index) override {
        if (next_index == bundles.size()) return false;
        std::memcpy(b, bundles[next_index].b.data(), 64);
        index = next_index++;
        return true;
    }
    void done(bool) override { ++completed; }
    void add(const std::string& line) { bundles.push_back(model::trace::parse_trace_line(line, "bench", bundles.size() + 1, ".")->instruction.bundle); }
};

std::vector<std::string> with_small_dram(std::vector<std::string> o) {
    o.push_back("memory.dram_bytes=8388608");
    return o;
}

struct Bench : sc_core::sc_module, EngineContext {
    Config cfg;
    Memory dram_mem, sbuf, psum;
    Semaphores sem;
    TlmPort dram_port;
    model::isa::AddressMap map;
    model::WorkerPool pool{cfg.run.host_threads};  // (before the DMA engines, which use it)
    DmaEngines dma_engines;
    DeviceOptions opts;
    ActSetDirectory sets;
    WorkBudget work{cfg.run};
    std::vector<EngineFailure> failures;

    Bench(sc_core::sc_module_name name, const std::string& gen, std::vector<std::string> overrides = {})
        : sc_core::sc_module(name),
          cfg(parse_config(builtin_config_text(gen), gen, with_small_dram(std::move(overrides)))),
          dram_mem("dram", cfg.memory.dram_bytes),
          sbuf("sbuf", uint64_t{cfg.memory.partitions} * cfg.memory.sbuf_bytes_per_partition, cfg.memory.partitions),
          psum("psum", uint64_t{cfg.memory.partitions} * cfg.memory.psum_bytes_per_partition(), cfg.memory.partitions),
          sem("sem", 256),
          dram_port("dram_port", "DRAM"),
          map(cfg.memory),
          dma_engines("dma", cfg, map, dram_port, nullptr, pool, CopiesInFlight::Mode::Inline) {
        dram_port.socket().bind(dram_mem.socket);
        dma_engines.sbuf.socket().bind(sbuf.socket);
        dma_engines.psum.socket().bind(psum.socket);
    }
    const Config& config() const override { return cfg; }
    const model::isa::AddressMap& address_map() const override { return map; }
    Semaphores& semaphores() override { return sem; }
    DmaEngines& dma() override { return dma_engines; }
    TlmPort& dram() override { return dram_port; }
    Recorder* recorder() override { return nullptr; }
    uint32_t reg(uint32_t) const override { return 0; }
    const DeviceOptions& options() const override { return opts; }
    ActSetDirectory act_sets() const override { return sets; }
    WorkBudget& budget() override { return work; }
    model::WorkerPool& host_pool() override { return pool; }
    bool halted() const override { return false; }
    void fail(const EngineFailure& f) override { failures.push_back(f); }
};

class EngineBench : public SystemCTest {};

TEST_F(EngineBench, DmaQueueEngineCopiesInItsTimeAndUpdatesTheSemaphore) {
    Bench b("bench", "cayman");
    const uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    b.dram_mem.write(0x100, data, 8);
    ListSource src;
    src.add("dma2 copy src=dram:0x100 dst=sbuf:3:0x40 partitions=1 bytes=8 update=5+1");
    DmaQueueEngine e("dma2", "dma2", b, src, 2, 0);
    sc_core::sc_start();
    // CAYMAN: 1300 ns from trigger to data, one 11 ns descriptor, 8 bytes at 23 B/ns; then the
    // 100-cycle trigger instruction has long ended.
    EXPECT_EQ(sc_core::sc_time_stamp(), sc_core::sc_time(1300 + 11 + 8.0 / 23, sc_core::SC_NS));
    uint8_t got[8];
    b.sbuf.read(3 * b.cfg.memory.sbuf_bytes_per_partition + 0x40, got, 8);
    EXPECT_EQ(0, std::memcmp(got, data, 8));
    EXPECT_EQ(b.sem.value(5), 1);
    EXPECT_EQ(src.completed, 1u);
    EXPECT_TRUE(b.failures.empty());
}

TEST_F(EngineBench, ActEngineLoadsASetFromDramAndActivates) {
    Bench b("bench", "mariana");
    const ActSetRegion sets = build_act_set_region(b.cfg, "", b.cfg.memory.dram_bytes);
    b.dram_mem.write(sets.base, sets.bytes.data(), sets.bytes.size());
    b.sets = {sets.base, sets.count};
    ASSERT_EQ(sets.names[4], "small");
    const float in[4] = {-2.0f, 0.5f, 3.0f, -0.0f};
    ListSource src;
    src.add("act load_act_func_set set=4");
    src.add(
        "act activate func=2 in_bias_dtype=10 out_dtype=10 num_active_channels=1 bias_src_n=1 scale=1.0 src=sbuf:0:0 src.num=4,1,1 src.step=1,0,0 "
        "dst=sbuf:0:0x40 dst.num=4,1,1 dst.step=1,0,0");
    ActEngine act("act", b, src);
    CoreMemories mems{b.sbuf, b.psum, b.dma_engines};
    act.bind(mems);
    b.sbuf.write(0, reinterpret_cast<const uint8_t*>(in), 16);
    sc_core::sc_start();
    ASSERT_TRUE(b.failures.empty()) << b.failures[0].summary();
    float out[4];
    b.sbuf.read(0x40, reinterpret_cast<uint8_t*>(out), 16);
    EXPECT_EQ(model::fp::bits_of(out[0]), model::fp::bits_of(0.0f));  // relu from the tables
    EXPECT_EQ(model::fp::bits_of(out[1]), model::fp::bits_of(0.5f));
    EXPECT_EQ(model::fp::bits_of(out[2]), model::fp::bits_of(3.0f));
    EXPECT_EQ(act.tables().resident(), "small");
    EXPECT_EQ(src.completed, 2u);
}

TEST_F(EngineBench, PoolEngineDecodesCptcAndReportsAFailure) {
    Bench b("bench", "mariana", {"gpsimd.cptc_flag=true"});
    // 128 values of CPTC4 with two fp16 block scales (the demo's row), in partitions 0..127.
    const uint8_t row[80] = {51,  51,  204, 204, 51, 51, 204, 204, 0,   0,  51, 51,  255, 255, 204, 204, 170, 170, 170, 170, 170, 170, 153, 153, 51,  51,  51,
                             51,  51,  51,  17,  17, 51, 51,  204, 204, 51, 51, 204, 204, 0,   0,   51,  51,  255, 255, 204, 204, 170, 170, 170, 170, 170, 170,
                             153, 153, 51,  51,  51, 51, 51,  51,  17,  17, 73, 52,  73,  52,  0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0};
    for (uint32_t p = 0; p < 128; ++p) b.sbuf.write(p * b.cfg.memory.sbuf_bytes_per_partition, row, 80);
    ListSource src;
    src.add(
        "pool conv_lut_load src=sbuf:0:0x0 src.num=4,5 src.step=1,4 in_dtype=9 out_dtype=7 num_active_rows=128 num_active_cols=128 mconst0=0x3c00 "
        "mconst1=0x100 row_grp=15 col_grp=15 block_size=64 lut_dtype=0x1c dst=sbuf:0:0x1000 dst.num=128,1,1 dst.step=1,0,0");
    src.add("pool raw raw=47100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000");
    PoolEngine pool("pool", b, src);
    CoreMemories mems{b.sbuf, b.psum, b.dma_engines};
    pool.bind(mems);
    sc_core::sc_start();
    // Each output is code x 1.0 x the block's scale, as fp16 (docs/cptc-format.md).
    const std::vector<int32_t> codes = model::cptc::unpack_codes(row, 128, 4, true);
    uint16_t out[128];
    b.sbuf.read(127 * b.cfg.memory.sbuf_bytes_per_partition + 0x1000, reinterpret_cast<uint8_t*>(out), 256);
    for (int i = 0; i < 128; ++i) {
        const float scale = model::cptc::block_scale(row, 4, 128, 64, 0x100, static_cast<uint64_t>(i));
        ASSERT_EQ(out[i], model::fp::f32_to_fp16(static_cast<float>(codes[i]) * 1.0f * scale)) << i;
    }
    // 319 GPSIMD cycles at 1.2 GHz (the cptc_gelu decode), then the unknown opcode fails.
    ASSERT_EQ(b.failures.size(), 1u);
    EXPECT_EQ(b.failures[0].index, 1u);
    EXPECT_NE(b.failures[0].summary().find("engine pool, instruction 1 (opcode 0x47): opcode 0x47 is not modelled on engine pool"), std::string::npos)
        << b.failures[0].summary();
    EXPECT_EQ(src.completed, 1u);
    EXPECT_EQ(sc_core::sc_time_stamp(), sc_core::sc_time(319 / 1.2, sc_core::SC_NS));
}

}  // namespace
}  // namespace neuronsim::test
