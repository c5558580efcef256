// Where and when the DMA's copies are made (DeviceOptions::dma_copies, docs/timing-model.md
// "DMA copies on the host"): a packet's rows move when its engine takes it up, so an access
// while it is still streaming sees them moved (a read of its destination: the new bytes; a
// write over its source: too late to change what it carries). Inline, Background (on the
// pool's worker beside the simulation) and Deferred (made only when their bytes are needed)
// give the same bytes, stats and records; every kernel of `neuronsim kernel` is run all three
// ways. The SBUF/PSUM windows grant no DMI while copies may be queued.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model/trace/assembler.h"
#include "neuronsim/registers.h"
#include "platform/config.h"
#include "tests/support/device_host.h"
#include "tests/support/platform_run.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

using Copies = DeviceOptions::DmaCopies;

class DmaCopiesTest : public PlatformRunTest {
public:
    // The trace run three ways (two host threads): each run's dumps, or its error.
    std::vector<std::string> each_way(const std::string& trace, const std::vector<std::string>& dumps) {
        std::vector<std::string> got;
        overrides = {"run.host_threads=2"};
        for (Copies c : {Copies::Inline, Copies::Background, Copies::Deferred}) {
            reset_systemc_context();
            dma_copies = c;
            run(trace);
            std::string all;
            for (const std::string& d : dumps) all += out(d);
            got.push_back(all);
        }
        return got;
    }
    std::string pattern(size_t n) {
        std::string s(n, '\0');
        for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(1 + i % 251);
        return s;
    }
};

// dma0 moves 128 KiB (`big`: some 6 us on one engine); a short copy on dma1 releases dma2
// (`racer`) at about 1.3 us, whose copy meets dma0's bytes while dma0 still streams.
std::string racing(const std::string& big, const std::string& racer) {
    return "dma0 copy " + big + " partitions=128 bytes=1024\n" + "dma1 copy src=dram:0x200000 dst=sbuf:0:0x8000 partitions=1 bytes=4 update=3+1\n" +
           "dma2 copy " + racer + " partitions=1 bytes=4 wait=3>=1\n";
}

// dma2 reads the first bytes dma0 writes: they are there.
TEST_F(DmaCopiesTest, AReadWhileAPacketStreamsSeesItsRowsMoved) {
    t.write("src.bin", pattern(128 * 1024));
    const std::string trace = ".data dram:0x0 file=src.bin\n" + racing("src=dram:0x0 dst=sbuf:0:0x0 src_stride=1024", "src=sbuf:0:0x0 dst=dram:0x100000") +
                              ".dump dram:0x100000 bytes=4 file=seen.bin\n";
    for (const std::string& seen : each_way(trace, {"seen.bin"})) EXPECT_EQ(seen, pattern(4));
    EXPECT_LT(csv_field("dma2", 0, 5), csv_field("dma0", 0, 4) + 0.5 * (csv_field("dma0", 0, 5) - csv_field("dma0", 0, 4)))
        << "the premise: dma2 ends in the first half of dma0's time";
}

// dma2 overwrites dma0's source: dma0 carries what was there when it started.
TEST_F(DmaCopiesTest, AWriteOverTheSourceOfAStreamingPacketComesTooLate) {
    t.write("src.bin", pattern(128 * 1024));
    const std::string trace = ".data sbuf:0:0x0 partitions=128 file=src.bin\n.data dram:0x200000 u32 0xdeadbeef\n" +
                              racing("src=sbuf:0:0x0 dst=dram:0x0 dst_stride=1024", "src=dram:0x200000 dst=sbuf:0:0x0") +
                              ".dump dram:0x0 bytes=8 file=carried.bin\n.dump sbuf:0:0x0 bytes=4 file=after.bin\n";
    for (const std::string& got : each_way(trace, {"carried.bin", "after.bin"})) EXPECT_EQ(got, pattern(8) + std::string("\xef\xbe\xad\xde", 4));
}

TEST_F(DmaCopiesTest, TheWindowsGrantNoDmiWhileCopiesMayBeQueued) {
    t.write("x.trace", "act sync\n");
    model::trace::assemble_trace(t.file("x.trace"), t.file("streams"));
    const platform::Config cfg = platform::parse_config(platform::builtin_config_text("mariana"), "m", {"run.host_threads=2"});
    for (Copies c : {Copies::Inline, Copies::Background, Copies::Deferred}) {
        reset_systemc_context();
        platform::RunOptions o;
        o.out_dir = t.file("out");
        o.device.dma_copies = c;
        platform::TraceHost host("host", cfg, model::trace::list_streams(t.file("streams")), t.file("streams/setup.trace"), o);
        sc_core::sc_start(sc_core::SC_ZERO_TIME);
        const uint8_t* p = host.mmio().direct(reg::kSbufWindow, 64);
        EXPECT_EQ(p != nullptr, c == Copies::Inline) << static_cast<int>(c);
        uint8_t bytes[4] = {1, 2, 3, 4}, back[4] = {};
        host.mmio().debug_write(reg::kSbufWindow + 8, bytes, 4);  // (transactions still work)
        host.mmio().debug_read(reg::kSbufWindow + 8, back, 4);
        EXPECT_EQ(std::string(reinterpret_cast<char*>(back), 4), std::string(reinterpret_cast<char*>(bytes), 4));
    }
}

// A core on mariana whose DRAM holds 1 2 3 4 at 0x1000 and whose copies are made `mode`, its
// drained and error interrupts unmasked; `window(at)` reads 4 bytes of the SBUF window.
using Window = std::function<std::vector<uint8_t>(uint64_t)>;
void with_core(Copies mode, const std::function<void(Host&, TestDram&, NeuronCore&, const Window&)>& body) {
    DeviceOptions o;
    o.dma_copies = mode;
    bool ran = false;
    run_device(
        "mariana",
        [&](Host& h, TestDram& dram, NeuronCore& core) {
            const Window window = [&](uint64_t at) {
                std::vector<uint8_t> got(4);
                EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kSbufWindow + at, got.data(), 4), tlm::TLM_OK_RESPONSE);
                return got;
            };
            h.wr(reg::kIrqMask, reg::kIrqDrained | reg::kIrqError);
            body(h, dram, core, window);
            ran = true;
        },
        [](TestDram& d) {
            const uint8_t first[4] = {1, 2, 3, 4};
            d.put(0x1000, first, 4);
        },
        {}, o);
    EXPECT_TRUE(ran);
}

// GpSimd waits for the queued copies over the bytes its firmware will touch (its plan), no
// others: Deferred, a copy into partition 0, which the firmware's copy reads, has landed when
// it runs; one into partition 5, which it does not touch, stays queued and copies what DRAM
// holds when its bytes are read. (GpSimd waited for every copy into SBUF before: partition 5's
// copy landed then, with the first bytes.)
TEST(DmaCopiesDevice, GpSimdLandsTheCopiesOverWhatItsFirmwareTouchesOnly) {
    with_core(Copies::Deferred, [](Host& h, TestDram& dram, NeuronCore& core, const Window& window) {
        const uint64_t per = core.config().memory.sbuf_bytes_per_partition;
        h.run_queue(dram, core.queue_index("dma0"), 0x10000,
                    {"dma0 copy src=dram:0x1000 dst=sbuf:0:0x0 partitions=1 bytes=4", "dma0 copy src=dram:0x1000 dst=sbuf:5:0x0 partitions=1 bytes=4"});
        EXPECT_EQ(h.wait_irq(reg::kIrqDrained | reg::kIrqError), reg::kIrqDrained);
        h.wr(reg::kIrqStatus, ~0u);
        h.run_queue(dram, core.queue_index("pool"), 0x20000,
                    {"pool ext spec=1 in_dtype=3 num_active_rows=1 src=sbuf:0:0x0 src.num=4,1 src.step=1,0 dst=sbuf:0:0x100 dst.num=4,1,1 "
                     "dst.step=1,0,0"});
        EXPECT_EQ(h.wait_irq(reg::kIrqDrained | reg::kIrqError), reg::kIrqDrained);
        const std::vector<uint8_t> later{9, 9, 9, 9};
        dram.put(0x1000, later.data(), 4);  // (behind the core's back: shows when a copy lands)
        EXPECT_EQ(window(0x100), (std::vector<uint8_t>{1, 2, 3, 4})) << "the copy GpSimd read had landed before it ran";
        EXPECT_EQ(window(5 * per), later) << "the copy it does not touch was still queued";
    });
}

// A VP host that owns its DRAM may queue the copies (Deferred here, so that when a copy lands
// shows): a window read of another partition leaves dma0's copy queued, and it then copies what
// DRAM holds when it lands; a read of its own bytes lands it. An invalidate_direct_mem_ptr
// from DRAM lands the copies over its range first (their pointers go with it).
TEST(DmaCopiesDevice, AWindowReadOrAnInvalidationLandsTheCopiesOverItsBytesOnly) {
    for (const DeviceOptions::DmaCopies mode : {Copies::Deferred, Copies::Inline}) {
        const bool deferred = mode == Copies::Deferred;
        with_core(mode, [&](Host& h, TestDram& dram, NeuronCore& core, const Window& window) {
            const uint64_t per = core.config().memory.sbuf_bytes_per_partition;
            const std::vector<uint8_t> later{9, 9, 9, 9};
            const uint32_t q = core.queue_index("dma0");
            h.run_queue(dram, q, 0x10000,
                        {"dma0 copy src=dram:0x1000 dst=sbuf:0:0x0 partitions=1 bytes=4", "dma0 copy src=dram:0x1000 dst=sbuf:1:0x0 partitions=1 bytes=4"});
            EXPECT_EQ(h.wait_irq(reg::kIrqDrained | reg::kIrqError), reg::kIrqDrained);
            EXPECT_EQ(window(5 * per), std::vector<uint8_t>(4, 0));  // another partition
            dram.invalidate();  // lands both
            dram.put(0x1000, later.data(), 4);  // (behind the core's back: shows when a copy lands)
            EXPECT_EQ(window(0), (std::vector<uint8_t>{1, 2, 3, 4}));
            EXPECT_EQ(window(per), (std::vector<uint8_t>{1, 2, 3, 4}));
            h.wr(reg::kIrqStatus, ~0u);
            h.run_queue(dram, q, 0x20000, {"dma0 copy src=dram:0x1000 dst=sbuf:2:0x0 partitions=1 bytes=4"});
            EXPECT_EQ(h.wait_irq(reg::kIrqDrained | reg::kIrqError), reg::kIrqDrained);
            EXPECT_EQ(window(5 * per), std::vector<uint8_t>(4, 0));
            const std::vector<uint8_t> last{7, 7, 7, 7};
            dram.put(0x1000, last.data(), 4);
            EXPECT_EQ(window(2 * per), deferred ? last : later) << "queued until its bytes were read";
        });
    }
}

// Every kernel, `neuronsim run --dma-copies` inline, background and deferred on two threads:
// the same dumps, stats.json and instructions.csv.
TEST(DmaCopiesCli, EveryKernelGivesTheSameBytesEachWay) {
    struct K {
        const char* name;
        const char* args;
        const char* gen;
        const char* run;
    };
    const K kernels[] = {
        {"softmax", "--shape 300x64 --seed 3", "mariana", ""},
        {"rmsnorm", "--shape 130x96", "mariana", ""},
        {"layernorm", "--shape 140x80 --dtype bf16", "cayman", ""},
        {"mlp-act", "--shape 256x40 --act silu", "sunda", ""},
        {"mlp", "--shape 300x160 --intermediate 200 --dtype bf16", "cayman", ""},
        {"linear", "--shape 300x200 --features 100 --dtype bf16", "mariana", ""},
        {"attention", "--shape 200x128 --heads 2 --dtype bf16", "mariana", ""},
        {"cptc-dequant-act", "--shape 256x200 --bits 4", "mariana", "-p gpsimd.cptc_flag=true"},
    };
    for (const K& k : kernels) {
        TempDir t;
        const CliResult g = run_cli(std::string("kernel ") + k.name + " " + k.args + " --gen " + k.gen + " -o " + t.file("k.trace"));
        ASSERT_EQ(g.status, 0) << k.name << ": " << g.err;
        std::vector<std::map<std::string, std::string>> outputs;  // file -> bytes, per way
        for (const char* mode : {"inline", "background", "deferred"}) {
            const std::string dir = t.file(std::string("run_") + mode);
            const CliResult r = run_cli(std::string("run --gen ") + k.gen + " --trace " + t.file("k.trace") + " --out " + dir + " --no-progress --threads 2 " +
                                        "--dma-copies " + mode + " " + k.run);
            ASSERT_EQ(r.status, 0) << k.name << " " << mode << ": " << r.err;
            std::map<std::string, std::string> files;
            for (const auto& e : std::filesystem::directory_iterator(dir)) {
                const std::string name = e.path().filename().string();
                if (e.path().extension() == ".bin" || name == "stats.json" || name == "instructions.csv") files[name] = read_file(e.path().string());
            }
            EXPECT_GE(files.size(), 3u) << k.name << " " << mode << ": a dump or more, stats.json, instructions.csv";
            outputs.push_back(std::move(files));
        }
        for (size_t w = 1; w < outputs.size(); ++w) {
            ASSERT_EQ(outputs[w].size(), outputs[0].size()) << k.name;
            for (const auto& [name, bytes] : outputs[0])
                EXPECT_TRUE(outputs[w].at(name) == bytes)
                    << k.name << ": " << name << " differs, " << (w == 1 ? "background" : "deferred") << " against inline";
        }
    }
}

TEST(DmaCopiesCli, AnUnknownModeIsAUsageErrorNamingTheModes) {
    TempDir t;
    const CliResult r = run_cli("run --dma-copies sideways --out " + t.file("run") + " --no-progress");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("--dma-copies: expected background, inline or deferred, got \"sideways\""), std::string::npos) << r.err;
}

}  // namespace
}  // namespace neuronsim::test
