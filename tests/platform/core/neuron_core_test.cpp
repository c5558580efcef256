// The NeuronCore device as a virtual platform sees it: a host thread of the test's own
// drives the mmio registers, its own DRAM model sits behind `mem`, and `irq` is a signal.
// Registers and their errors, doorbell -> completion -> irq, an error latched with the
// simulation still running, two instances of different generations, DMI granted, used and
// invalidated, a global quantum, and the DRAM model's annotated delay.
#include <cstring>
#include <filesystem>
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/common/error.h"
#include "model/trace/trace_reader.h"
#include "neuronsim/neuron_core.h"
#include "neuronsim/registers.h"
#include "tests/support/device_host.h"
#include "tests/support/systemc_fixture.h"

namespace neuronsim::test {
namespace {

const std::string kCopy = "dma0 copy src=dram:0x1000 dst=sbuf:0:0x0 partitions=2 bytes=64 src_stride=64";

TEST(NeuronCore, IdentificationAndRegisterErrors) {
    bool ran = false;
    run_device("mariana", [&](Host& h, TestDram&, NeuronCore& core) {
        EXPECT_EQ(h.rd(reg::kMagic), reg::kMagicValue);
        EXPECT_EQ(h.rd(reg::kVersion), 0x000200u);
        EXPECT_EQ(h.rd(reg::kNcVersion), 4u);
        EXPECT_EQ(h.rd(reg::kNumQueues), 2u + 16 * 16 + 16 + 2);  // ACT, POOL, 16 x 16 pinned DMA queues, 16 spread, VectorE, TensorE
        EXPECT_EQ(core.num_queues(), 276u);
        EXPECT_EQ(core.queue_index("dve"), 274u);
        EXPECT_EQ(core.queue_name(274), "dve");
        EXPECT_EQ(core.queue_index("pe"), 275u);
        EXPECT_EQ(core.queue_name(275), "pe");
        EXPECT_EQ(core.queue_index("dma.3"), 2u + 256 + 3);
        EXPECT_EQ(core.queue_index("dma"), 2u + 256);
        EXPECT_EQ(core.queue_name(2 + 256 + 3), "dma.3");
        char name[16] = {};
        EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kGenerationName, name, 16), tlm::TLM_OK_RESPONSE);
        EXPECT_STREQ(name, "MARIANA");
        h.wr(reg::kIrqMask, 3);
        EXPECT_EQ(h.rd(reg::kIrqMask), 3u);
        h.wr(reg::kSemaphores + 4 * 7, static_cast<uint32_t>(-5));
        EXPECT_EQ(static_cast<int32_t>(h.rd(reg::kSemaphores + 4 * 7)), -5);
        h.wr(reg::kRegisters + 4 * 200, 0x1234);
        EXPECT_EQ(h.rd(reg::kRegisters + 4 * 200), 0x1234u);
        uint32_t v = 0;
        uint16_t half = 0;
        EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, 0x0300, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);  // a hole in the map
        EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kStatus, &half, 2), tlm::TLM_BURST_ERROR_RESPONSE);  // wrong size
        EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kStatus + 2, &v, 4), tlm::TLM_BURST_ERROR_RESPONSE);  // misaligned
        EXPECT_EQ(h.access(tlm::TLM_WRITE_COMMAND, reg::kMagic, &v, 4), tlm::TLM_COMMAND_ERROR_RESPONSE);  // read-only
        EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kMmioSize, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);  // past the map
        EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kSbufWindow + uint64_t{128} * 262144 - 2, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
        const unsigned char be[4] = {0xff, 0, 0xff, 0};
        EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kStatus, &v, 4, be), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        ran = true;
    });
    EXPECT_TRUE(ran);
}

// A bad queue value is refused when written (docs/vp-integration.md): a TLM error, the REFUSED_WRITE_*
// registers say which and why, nothing changes and the core does not halt.
TEST(NeuronCore, BadQueueValuesAreRefusedWhenWritten) {
    bool ran = false;
    run_device("mariana", [&](Host& h, TestDram&, NeuronCore&) {
        auto refused_message = [&] {
            std::string m(h.rd(reg::kRefusedWriteMessageLength), '\0');
            EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kRefusedWriteMessage, m.data(), static_cast<unsigned>(m.size())), tlm::TLM_OK_RESPONSE);
            return m;
        };
        const uint64_t q = reg::kQueues + 2 * reg::kQueueStride;  // dma0
        uint32_t v = 1;
        EXPECT_EQ(h.access(tlm::TLM_WRITE_COMMAND, q + reg::kQueueTail, &v, 4), tlm::TLM_COMMAND_ERROR_RESPONSE);  // no ring yet
        EXPECT_EQ(h.rd(reg::kRefusedWrites), 1u);
        EXPECT_EQ(h.rd(reg::kRefusedWriteAddress), q + reg::kQueueTail);
        EXPECT_EQ(h.rd(reg::kRefusedWriteValue), 1u);
        EXPECT_NE(refused_message().find("program BASE and SIZE first"), std::string::npos) << refused_message();
        v = 1;
        EXPECT_EQ(h.access(tlm::TLM_WRITE_COMMAND, q + reg::kQueueSize, &v, 4), tlm::TLM_COMMAND_ERROR_RESPONSE);
        EXPECT_EQ(h.rd(q + reg::kQueueSize), 0u);  // unchanged
        EXPECT_NE(refused_message().find("SIZE 1 is outside 2..16777216"), std::string::npos) << refused_message();
        v = 0x1020;
        EXPECT_EQ(h.access(tlm::TLM_WRITE_COMMAND, q + reg::kQueueBaseLo, &v, 4), tlm::TLM_COMMAND_ERROR_RESPONSE);
        EXPECT_EQ(h.rd(q + reg::kQueueBaseLo), 0u);
        EXPECT_NE(refused_message().find("BASE 0x1020 is not 64-byte aligned"), std::string::npos) << refused_message();
        h.wr(q + reg::kQueueSize, 8);
        v = 8;
        EXPECT_EQ(h.access(tlm::TLM_WRITE_COMMAND, q + reg::kQueueTail, &v, 4), tlm::TLM_COMMAND_ERROR_RESPONSE);
        EXPECT_NE(refused_message().find("TAIL 8 is not below SIZE 8"), std::string::npos) << refused_message();
        EXPECT_EQ(h.access(tlm::TLM_WRITE_COMMAND, 0x0300, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_EQ(refused_message(), "no register at 0x300");
        EXPECT_EQ(h.access(tlm::TLM_WRITE_COMMAND, reg::kMagic, &v, 4), tlm::TLM_COMMAND_ERROR_RESPONSE);
        EXPECT_EQ(refused_message(), "0x0 is a read-only register");
        EXPECT_EQ(h.rd(reg::kRefusedWrites), 6u);
        // None of it halted the core or latched an error.
        EXPECT_EQ(h.rd(reg::kErrorCode), reg::kErrorNone);
        EXPECT_EQ(h.rd(reg::kStatus) & reg::kStatusError, 0u);
        h.wr(reg::kControl, reg::kControlReset);
        EXPECT_EQ(h.rd(reg::kRefusedWrites), 0u);
        EXPECT_EQ(h.rd(reg::kRefusedWriteMessageLength), 0u);
        ran = true;
    });
    EXPECT_TRUE(ran);
}

TEST(NeuronCore, DoorbellCompletionInterruptAndWindows) {
    sc_core::sc_time done;
    nlohmann::json stats = run_device(
        "mariana",
        [&](Host& h, TestDram& dram, NeuronCore& core) {
            h.wr(reg::kIrqMask, reg::kIrqDrained | reg::kIrqError);
            const uint32_t q = core.queue_index("dma0");
            EXPECT_EQ(q, 2u);
            h.run_queue(dram, q, 0x10000, {kCopy});
            EXPECT_TRUE(h.rd(reg::kStatus) & reg::kStatusBusy);
            const uint32_t s = h.wait_irq(reg::kIrqDrained | reg::kIrqError);
            done = sc_core::sc_time_stamp();
            EXPECT_EQ(s, reg::kIrqDrained);
            EXPECT_EQ(h.rd(reg::kDrained), 1u << q);
            const uint64_t qr = reg::kQueues + q * reg::kQueueStride;
            EXPECT_EQ(h.rd(qr + reg::kQueueDoneLo), 1u);
            EXPECT_EQ(h.rd(qr + reg::kQueueHead), 1u);
            EXPECT_EQ(h.rd(reg::kStatus) & reg::kStatusBusy, 0u);
            h.wr(reg::kIrqStatus, s);
            h.wr(reg::kDrained, 1u << q);
            EXPECT_EQ(h.rd(reg::kIrqStatus), 0u);
            // The copy landed: read it through the SBUF window (partition 1 is at 256 KiB).
            uint8_t row[64];
            EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kSbufWindow + 262144, row, 64), tlm::TLM_OK_RESPONSE);
            EXPECT_EQ(0, std::memcmp(row, dram.bytes.data() + 0x1040, 64));
        },
        [](TestDram& d) {
            for (int i = 0; i < 128; ++i) d.bytes[0x1000 + i] = static_cast<uint8_t>(i * 3 + 1);
        });
    // The bundle fetched 250 ns after the doorbell, 1300 ns from the trigger to data, then
    // engine 0 takes 2 descriptors x 8 ns and 128 B / 33 B/ns.
    EXPECT_EQ(done, sc_core::sc_time(250 + 1300 + 2 * 8 + 128.0 / 33, sc_core::SC_NS));
    EXPECT_EQ(stats["instructions"], 1);
    EXPECT_EQ(stats["simulated_ps"], done.value());
}

// A host that names its queues (DeviceOptions::queues, as neuronsim run does) gets the same
// results; the queues it left out refuse a doorbell instead of running it, and an unknown
// name is an error naming it.
TEST(NeuronCore, QueuesLeftOutOfTheOptionsRefuseTheirDoorbell) {
    auto body = [](bool named) {
        return [named](Host& h, TestDram& dram, NeuronCore& core) {
            h.wr(reg::kIrqMask, reg::kIrqDrained | reg::kIrqError);
            h.run_queue(dram, core.queue_index("dma0"), 0x10000, {kCopy});
            EXPECT_EQ(h.wait_irq(reg::kIrqDrained | reg::kIrqError), reg::kIrqDrained);
            if (!named) return;
            const uint64_t q1 = reg::kQueues + core.queue_index("dma1") * reg::kQueueStride;
            h.wr(q1 + reg::kQueueSize, 8);
            uint32_t v = 1;
            EXPECT_EQ(h.access(tlm::TLM_WRITE_COMMAND, q1 + reg::kQueueTail, &v, 4), tlm::TLM_COMMAND_ERROR_RESPONSE);
            std::string m(h.rd(reg::kRefusedWriteMessageLength), '\0');
            EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kRefusedWriteMessage, m.data(), static_cast<unsigned>(m.size())), tlm::TLM_OK_RESPONSE);
            EXPECT_EQ(m, "queue dma1 does not run on this device: DeviceOptions::queues leaves it out");
            EXPECT_EQ(h.rd(reg::kStatus) & reg::kStatusBusy, 0u);
        };
    };
    DeviceOptions only;
    only.queues = {"act", "dma0"};
    const nlohmann::json named = run_device("mariana", body(true), {}, {}, only);
    const nlohmann::json all = run_device("mariana", body(false));
    EXPECT_EQ(named.dump(), all.dump());
    EXPECT_EQ(named["instructions"], 1);
    reset_systemc_context();
    only.queues = {"dma99"};
    try {
        NeuronCore core("core", cfg_of("mariana"), only);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()).rfind("DeviceOptions::queues: stream dma99 names DMA engine 99 queue 0, but MARIANA has 16 engines x 16 queues", 0), 0u)
            << e.what();
    }
}

TEST(NeuronCore, AnErrorLatchesRaisesIrqAndTheSimulationGoesOn) {
    bool ran = false;
    run_device("cayman", [&](Host& h, TestDram& dram, NeuronCore& core) {
        h.wr(reg::kIrqMask, reg::kIrqDrained | reg::kIrqError);
        h.run_queue(
            dram, core.queue_index("pool"), 0x10000,
            {"pool sync",
             "pool raw raw=47100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"});
        EXPECT_TRUE(h.wait_irq(reg::kIrqError) & reg::kIrqError);
        EXPECT_TRUE(h.rd(reg::kStatus) & reg::kStatusError);
        EXPECT_EQ(h.rd(reg::kErrorCode), reg::kErrorInstruction);
        EXPECT_EQ(h.rd(reg::kErrorQueue), 1u);
        EXPECT_EQ(h.rd(reg::kErrorIndexLo), 1u);
        EXPECT_EQ(h.rd(reg::kErrorOpcode), 0x47u);
        const uint32_t n = h.rd(reg::kErrorMessageLength);
        std::string msg(n, '\0');
        EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kErrorMessage, msg.data(), n), tlm::TLM_OK_RESPONSE);
        EXPECT_NE(msg.find("engine pool, instruction 1 (opcode 0x47): opcode 0x47 is not modelled on engine pool"), std::string::npos) << msg;
        // The simulation is still running: time passes for the host.
        const sc_core::sc_time t = sc_core::sc_time_stamp();
        wait(1, sc_core::SC_US);
        EXPECT_EQ(sc_core::sc_time_stamp(), t + sc_core::sc_time(1, sc_core::SC_US));
        // Reset clears the error; the core runs again.
        h.wr(reg::kControl, reg::kControlReset);
        EXPECT_EQ(h.rd(reg::kStatus) & reg::kStatusError, 0u);
        h.run_queue(dram, core.queue_index("dma0"), 0x20000, {kCopy});
        EXPECT_EQ(h.wait_irq(reg::kIrqDrained | reg::kIrqError), reg::kIrqDrained);
        ran = true;
    });
    EXPECT_TRUE(ran);
}

TEST(NeuronCore, TwoInstancesOfDifferentGenerationsShareNothing) {
    reset_systemc_context();
    TestDram d1("dram1", 1 << 22), d2("dram2", 1 << 22);
    NeuronCore sunda("sunda", cfg_of("sunda", {"memory.dram_bytes=4194304"})), mariana("mariana", cfg_of("mariana", {"memory.dram_bytes=4194304"}));
    sc_core::sc_time end[2];
    auto body = [&](int i, TestDram& d, NeuronCore& c) {
        return [&, i](Host& h) {
            h.wr(reg::kIrqMask, reg::kIrqDrained);
            h.wr(reg::kSemaphores + 4, 7 + i);
            h.run_queue(d, c.queue_index("dma0"), 0x10000, {kCopy});
            h.wait_irq(reg::kIrqDrained);
            end[i] = sc_core::sc_time_stamp();
            EXPECT_EQ(h.rd(reg::kSemaphores + 4), 7u + i);  // each its own semaphores
        };
    };
    Host h1("h1", body(0, d1, sunda)), h2("h2", body(1, d2, mariana));
    sunda.mem.bind(d1.socket);
    mariana.mem.bind(d2.socket);
    h1.mmio.bind(sunda.mmio);
    h2.mmio.bind(mariana.mmio);
    sunda.irq.bind(h1.irq);
    mariana.irq.bind(h2.irq);
    sc_core::sc_start();
    EXPECT_EQ(end[0], sc_core::sc_time(250 + 1300 + 2 * 15 + 128.0 / 17, sc_core::SC_NS));  // NC-v2: 15 ns descriptors, 17 B/ns
    EXPECT_EQ(end[1], sc_core::sc_time(250 + 1300 + 2 * 8 + 128.0 / 33, sc_core::SC_NS));  // NC-v4: 8 ns, 33 B/ns
    EXPECT_EQ(nlohmann::json::parse(sunda.stats_json())["generation"], "SUNDA");
    EXPECT_EQ(nlohmann::json::parse(mariana.stats_json())["instructions"], 1);
}

size_t os_threads() {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) n += e.is_directory();
    return n;
}

// The datapath engines (ACT, VectorE, TensorE) share the core's one pool of host threads
// (EngineContext::host_pool): a core with run.host_threads = N starts N - 1 threads, not N - 1
// for each engine, whose idle workers would watch for work on the cores another engine's job
// needs. They end with the core.
TEST(NeuronCore, ItsEnginesShareOnePoolOfHostThreads) {
    reset_systemc_context();
    const size_t before = os_threads();
    {
        NeuronCore core("core", cfg_of("mariana", {"memory.dram_bytes=4194304", "run.host_threads=4"}));
        EXPECT_EQ(os_threads(), before + 3);
    }
    EXPECT_EQ(os_threads(), before);
}

// Where get_direct_mem_ptr grants DMI (the SBUF and PSUM windows) a transaction says so
// (TLM-2.0's DMI hint), so that an initiator that asks only when hinted does; registers and
// the table memory's window give no hint.
TEST(NeuronCore, TheWindowsThatGrantDmiHintIt) {
    bool ran = false;
    run_device("mariana", [&](Host& h, TestDram&, NeuronCore&) {
        uint8_t row[64] = {};
        bool hint = false;
        EXPECT_EQ(h.access(tlm::TLM_WRITE_COMMAND, reg::kSbufWindow + 64, row, 64, nullptr, &hint), tlm::TLM_OK_RESPONSE);
        EXPECT_TRUE(hint);
        hint = false;
        EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kPsumWindow, row, 64, nullptr, &hint), tlm::TLM_OK_RESPONSE);
        EXPECT_TRUE(hint);
        uint32_t v = 0;
        hint = true;
        EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kMagic, &v, 4, nullptr, &hint), tlm::TLM_OK_RESPONSE);
        EXPECT_FALSE(hint);
        hint = true;
        EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kActTablesWindow, &v, 4, nullptr, &hint), tlm::TLM_OK_RESPONSE);
        EXPECT_FALSE(hint);
        ran = true;
    });
    EXPECT_TRUE(ran);
}

TEST(NeuronCore, DmiIsGrantedUsedAndDroppedOnInvalidation) {
    TestDram* seen = nullptr;
    nlohmann::json stats = run_device("mariana", [&](Host& h, TestDram& dram, NeuronCore& core) {
        seen = &dram;
        h.wr(reg::kIrqMask, reg::kIrqDrained);
        const uint32_t q = core.queue_index("dma0");
        h.run_queue(dram, q, 0x10000, {kCopy});
        h.wait_irq(reg::kIrqDrained);
        const uint64_t grants = dram.dmi_grants;
        EXPECT_GE(grants, 1u);
        dram.invalidate();  // mid-run: the device must ask again
        h.wr(reg::kIrqStatus, reg::kIrqDrained);
        h.wr(reg::kDrained, 1u << q);
        for (int i = 0; i < 64; ++i) dram.bytes[0x1000 + i] = 0xA5;
        dram.put(0x10000 + 64, model::trace::parse_trace_line(kCopy, "t", 1, ".")->instruction.bundle.b.data(), 64);
        h.wr(reg::kQueues + q * reg::kQueueStride + reg::kQueueTail, 2);
        h.wait_irq(reg::kIrqDrained);
        EXPECT_GT(dram.dmi_grants, grants);
        uint8_t row[64];
        h.access(tlm::TLM_READ_COMMAND, reg::kSbufWindow, row, 64);
        EXPECT_EQ(row[0], 0xA5) << "the second copy read the new data";
    });
    EXPECT_EQ(stats["mem"]["dmi_invalidations"], 1);
    EXPECT_GT(stats["mem"]["dmi_accesses"].get<uint64_t>(), 0u);
    ASSERT_NE(seen, nullptr);
}

// A host that writes its registers 10 ns apart: synchronised, or with a 1 us global quantum
// (temporal decoupling: the writes carry their local time as annotated delay).
std::string quantum_run(bool decoupled) {
    reset_systemc_context();
    tlm_utils::tlm_quantumkeeper::set_global_quantum(decoupled ? sc_core::sc_time(1, sc_core::SC_US) : sc_core::SC_ZERO_TIME);
    tlm_utils::tlm_quantumkeeper qk;
    qk.reset();
    std::string times;
    TestDram dram("dram", 1 << 22);
    NeuronCore core("core", cfg_of("mariana", {"memory.dram_bytes=4194304"}));
    Host host("host", [&](Host& h) {
        if (decoupled) h.qk = &qk;
        auto step = [&](double ns = 10) {
            if (decoupled) {
                qk.inc(sc_core::sc_time(ns, sc_core::SC_NS));
                if (qk.need_sync()) qk.sync();
            } else {
                wait(ns, sc_core::SC_NS);
            }
        };
        h.wr(reg::kIrqMask, reg::kIrqDrained);
        step();
        for (uint32_t e = 0; e < 3; ++e) {
            const uint32_t q = core.queue_index("dma" + std::to_string(e));
            std::string line =
                "dma" + std::to_string(e) + " copy src=dram:0x1000 dst=sbuf:" + std::to_string(e) + ":0x0 partitions=1 bytes=" + std::to_string(256 * (e + 1));
            dram.put(0x10000 + 0x1000 * e, model::trace::parse_trace_line(line, "t", 1, ".")->instruction.bundle.b.data(), 64);
            const uint64_t qr = reg::kQueues + q * reg::kQueueStride;
            h.wr(qr + reg::kQueueBaseLo, 0x10000 + 0x1000 * e);
            step();
            h.wr(qr + reg::kQueueSize, 4);
            step();
            h.wr(qr + reg::kQueueTail, 1);  // the doorbell takes effect at the write's (local) time
            step();
        }
        // A second doorbell on dma0 at 1.9 us, after its first copy (1300 ns + 8 ns) ended: the
        // engine must not see it before its annotated time, though it is idle earlier.
        step(900);
        step(900);
        const std::string second = "dma0 copy src=dram:0x1000 dst=sbuf:3:0x0 partitions=1 bytes=1024";
        dram.put(0x10000 + 64, model::trace::parse_trace_line(second, "t", 1, ".")->instruction.bundle.b.data(), 64);
        h.wr(reg::kQueues + core.queue_index("dma0") * reg::kQueueStride + reg::kQueueTail, 2);
        if (decoupled) qk.sync();
        // dma1 and dma2 drain once; dma0's first drain is taken back by its second doorbell.
        for (int n = 0; n < 3;) {
            const uint32_t s = h.wait_irq(reg::kIrqDrained);
            h.wr(reg::kIrqStatus, s);
            for (uint32_t w = 0; w < (core.num_queues() + 31) / 32; ++w) {
                const uint32_t bits = h.rd(reg::kDrained + 4 * w);
                h.wr(reg::kDrained + 4 * w, bits);
                for (uint32_t b = 0; b < 32; ++b)
                    if (bits & (1u << b)) times += "queue " + std::to_string(32 * w + b) + " drained at " + sc_core::sc_time_stamp().to_string() + "\n", ++n;
            }
        }
        times += "host done\n";
    });
    core.mem.bind(dram.socket);
    host.mmio.bind(core.mmio);
    core.irq.bind(host.irq);
    sc_core::sc_start();
    tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_core::SC_ZERO_TIME);
    return times + core.stats_json();
}

TEST(NeuronCore, AGlobalQuantumChangesNothing) {
    const std::string plain = quantum_run(false), decoupled = quantum_run(true);
    EXPECT_NE(plain.find("queue 2 drained at"), std::string::npos) << plain;
    EXPECT_NE(plain.find("host done"), std::string::npos) << plain;
    // The second copy: doorbell at 1900, fetched 250 ns later, 1300 ns to data, one 8 ns
    // descriptor and 1024/33 ns.
    EXPECT_NE(plain.find("queue 2 drained at 3489030 ps"), std::string::npos) << plain;
    EXPECT_EQ(plain, decoupled);
}

TEST(NeuronCore, TheMemorysAnnotatedDelayIsChargedToTheTransfer) {
    auto run = [](sc_core::sc_time delay) {
        sc_core::sc_time end;
        run_device("mariana", [&](Host& h, TestDram& dram, NeuronCore& core) {
            dram.dmi = false;  // every access a transaction that annotates `delay`
            dram.delay = delay;
            h.wr(reg::kIrqMask, reg::kIrqDrained);
            h.run_queue(dram, core.queue_index("dma0"), 0x10000, {kCopy});
            h.wait_irq(reg::kIrqDrained);
            end = sc_core::sc_time_stamp();
        });
        return end;
    };
    const sc_core::sc_time base = run(sc_core::SC_ZERO_TIME), slow = run(sc_core::sc_time(7, sc_core::SC_NS));
    // The bundle's fetch and the two rows read from DRAM: 3 x 7 ns more.
    EXPECT_EQ(slow - base, sc_core::sc_time(21, sc_core::SC_NS));
}

// Times past the end of simulated time: sc_time would wrap to the past.
TEST(NeuronCore, ADoorbellAnnotatedPastTheEndOfTimeIsRefused) {
    bool ran = false;
    run_device("mariana", [&](Host& h, TestDram& dram, NeuronCore& core) {
        const uint32_t q = core.queue_index("dma0");
        h.run_queue(dram, q, 0x10000, {});  // the ring, no bundles yet
        dram.put(0x10000, model::trace::parse_trace_line(kCopy, "t", 1, ".")->instruction.bundle.b.data(), 64);
        tlm::tlm_generic_payload t;
        uint32_t tail = 1;
        t.set_command(tlm::TLM_WRITE_COMMAND);
        t.set_address(reg::kQueues + q * reg::kQueueStride + reg::kQueueTail);
        t.set_data_ptr(reinterpret_cast<unsigned char*>(&tail));
        t.set_data_length(4);
        t.set_streaming_width(4);
        sc_core::sc_time d = sc_core::sc_max_time();
        h.mmio->b_transport(t, d);
        EXPECT_EQ(t.get_response_status(), tlm::TLM_COMMAND_ERROR_RESPONSE);  // (took effect at once)
        sc_core::wait(10, sc_core::SC_US);
        EXPECT_EQ(h.rd(reg::kQueues + q * reg::kQueueStride + reg::kQueueDoneLo), 0u);
        EXPECT_EQ(h.rd(reg::kStatus), 0u);
        ran = true;
    });
    EXPECT_TRUE(ran);
}

TEST(NeuronCore, MemoryDelaysSummingPastTheEndOfTimeFailTheInstruction) {
    std::string msg;
    run_device("mariana", [&](Host& h, TestDram& dram, NeuronCore& core) {
        dram.dmi = false;
        dram.delay = sc_core::sc_time::from_value(sc_core::sc_max_time().value() / 2 + 1);  // the fetch's fits, two rows' do not
        h.wr(reg::kIrqMask, reg::kIrqDrained | reg::kIrqError);
        h.run_queue(dram, core.queue_index("dma0"), 0x10000, {kCopy});
        EXPECT_EQ(h.wait_irq(reg::kIrqDrained | reg::kIrqError), reg::kIrqError);
        EXPECT_EQ(h.rd(reg::kErrorCode), reg::kErrorInstruction);
        msg.resize(h.rd(reg::kErrorMessageLength));
        h.access(tlm::TLM_READ_COMMAND, reg::kErrorMessage, msg.data(), static_cast<unsigned>(msg.size()));
    });
    EXPECT_NE(msg.find("engine dma0, instruction 0 (opcode 0xd1 (copy)): the memories' annotated delays"), std::string::npos) << msg;
    EXPECT_NE(msg.find("passes the end of simulated time"), std::string::npos) << msg;
}

TEST(NeuronCore, AFetchDelayPastTheEndOfTimeLatchesAFetchError) {
    std::string msg;
    run_device("mariana", [&](Host& h, TestDram& dram, NeuronCore& core) {
        dram.dmi = false;
        dram.delay = sc_core::sc_max_time();
        h.wr(reg::kIrqMask, reg::kIrqError);
        h.run_queue(dram, core.queue_index("dma0"), 0x10000, {kCopy});
        h.wait_irq(reg::kIrqError);
        EXPECT_EQ(h.rd(reg::kErrorCode), reg::kErrorFetch);
        msg.resize(h.rd(reg::kErrorMessageLength));
        h.access(tlm::TLM_READ_COMMAND, reg::kErrorMessage, msg.data(), static_cast<unsigned>(msg.size()));
        EXPECT_LT(sc_core::sc_time_stamp(), sc_core::sc_time(1, sc_core::SC_MS));
    });
    EXPECT_NE(msg.find("queue dma0: instruction fetch"), std::string::npos) << msg;
    EXPECT_NE(msg.find("passes the end of simulated time"), std::string::npos) << msg;
}

// In a VP the device's hazards (DeviceOptions::hazards, Warn by default) are SystemC warnings
// of type neuronsim/hazard, and NeuronCoreDevice::hazards() lists them. dma0 loads partitions 0-1
// while dma1 stores partitions 1-2 with no semaphore; partition 2 the host wrote through the
// SBUF window, so every hazard is in partition 1. A warning is made when the hazard is found,
// before the earlier instruction's completion may be known: the list says the rest.
std::vector<std::string> hazard_reports;
void capture_hazards(const sc_core::sc_report& r, const sc_core::sc_actions&) {
    if (std::string(r.get_msg_type()) == "neuronsim/hazard") hazard_reports.push_back(std::to_string(r.get_severity()) + "|" + r.get_msg());
}

TEST(NeuronCore, HazardsAreWarningsThroughTheReportHandlerAndListed) {
    const auto previous = sc_core::sc_report_handler::set_handler(capture_hazards);
    std::vector<Hazard> found;
    nlohmann::json stats = run_device("mariana", [&](Host& h, TestDram& dram, NeuronCore& core) {
        uint8_t row[64] = {1};
        EXPECT_EQ(h.access(tlm::TLM_WRITE_COMMAND, reg::kSbufWindow + 2 * 262144, row, 64), tlm::TLM_OK_RESPONSE);
        h.run_queue(dram, core.queue_index("dma0"), 0x10000, {kCopy});
        h.run_queue(dram, core.queue_index("dma1"), 0x20000, {"dma1 copy src=sbuf:1:0x0 dst=dram:0x3000 partitions=2 bytes=64 dst_stride=64"});
        sc_core::wait(sc_core::sc_time(100, sc_core::SC_US));
        found = core.hazards();
    });
    sc_core::sc_report_handler::set_handler(previous);
    // Both copies issue at 250 ns; which one the kernel runs first decides the kind: a read of
    // partition 1 before dma0 wrote it (unwritten, then write after read) or after (read after write).
    ASSERT_FALSE(found.empty());
    ASSERT_EQ(hazard_reports.size(), found.size());
    for (size_t i = 0; i < found.size(); ++i) {
        const std::string text = found[i].describe();
        const std::string head = text.substr(0, text.find("; "));
        EXPECT_EQ(hazard_reports[i].substr(0, hazard_reports[i].find("; ")), std::to_string(sc_core::SC_WARNING) + "|" + head);
    }
    bool race = false;
    for (const Hazard& x : found) {
        EXPECT_EQ(x.memory, "sbuf");
        EXPECT_EQ(x.partition_first, 1u) << x.describe();  // partition 2 the host wrote; 0 only dma0 touches
        EXPECT_EQ(x.partition_last, 1u) << x.describe();
        if (x.kind != "read of unwritten bytes") {
            race = true;
            EXPECT_TRUE(x.kind == "read after write" || x.kind == "write after read") << x.kind;
        }
    }
    EXPECT_TRUE(race);
    EXPECT_EQ(stats["hazards"]["checked"], true);
}

}  // namespace
}  // namespace neuronsim::test
