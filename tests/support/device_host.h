#pragma once
// A virtual platform around one NeuronCore for the device's tests: the VP's DRAM (TestDram), a
// host thread driving the mmio registers (Host) and run_device(), which wires them and runs.
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "model/trace/trace_reader.h"
#include "neuronsim/config.h"
#include "neuronsim/neuron_core.h"
#include "neuronsim/registers.h"

namespace neuronsim::test {

// The VP's DRAM: flat, with a configurable annotated delay per transaction and DMI that can
// be refused or invalidated.
struct TestDram : sc_core::sc_module {
    tlm_utils::simple_target_socket<TestDram> socket;
    std::vector<uint8_t> bytes;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    bool dmi = true;
    bool wait_inside = false;  // the delay is a wait inside b_transport (legal TLM), not annotated
    uint64_t transports = 0, dmi_grants = 0;

    TestDram(sc_core::sc_module_name n, uint64_t size) : sc_core::sc_module(n), socket("socket"), bytes(size, 0) {
        socket.register_b_transport(this, &TestDram::b_transport);
        socket.register_transport_dbg(this, &TestDram::transport_dbg);
        socket.register_get_direct_mem_ptr(this, &TestDram::get_direct_mem_ptr);
    }
    void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& d) {
        ++transports;
        if (!transport_dbg(t)) return;
        if (wait_inside) sc_core::wait(delay);
        else d += delay;
        t.set_dmi_allowed(dmi);
    }
    unsigned transport_dbg(tlm::tlm_generic_payload& t) {
        if (t.get_address() + t.get_data_length() > bytes.size()) {
            t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return 0;
        }
        if (t.is_read()) std::memcpy(t.get_data_ptr(), bytes.data() + t.get_address(), t.get_data_length());
        else std::memcpy(bytes.data() + t.get_address(), t.get_data_ptr(), t.get_data_length());
        t.set_response_status(tlm::TLM_OK_RESPONSE);
        return t.get_data_length();
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& d) {
        if (!dmi) return false;
        ++dmi_grants;
        d.allow_read_write();
        d.set_dmi_ptr(bytes.data());
        d.set_start_address(0);
        d.set_end_address(bytes.size() - 1);
        return true;
    }
    void invalidate() { socket->invalidate_direct_mem_ptr(0, bytes.size() - 1); }
    void put(uint64_t addr, const void* p, size_t n) { std::memcpy(bytes.data() + addr, p, n); }
};

// A host: an initiator onto mmio, the irq signal, and a test body as its thread.
struct Host : sc_core::sc_module {
    SC_HAS_PROCESS(Host);
    tlm_utils::simple_initiator_socket<Host> mmio;
    sc_core::sc_signal<bool> irq;
    std::function<void(Host&)> body;
    tlm_utils::tlm_quantumkeeper* qk = nullptr;  // set: writes are annotated with its local time

    Host(sc_core::sc_module_name n, std::function<void(Host&)> b) : sc_core::sc_module(n), mmio("mmio"), irq("irq"), body(std::move(b)) { SC_THREAD(run); }
    void run() { body(*this); }

    // `dmi_hint`, when given, receives the transaction's DMI-allowed hint.
    tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len, const unsigned char* be = nullptr,
                                    bool* dmi_hint = nullptr) {
        tlm::tlm_generic_payload t;
        t.set_command(cmd);
        t.set_address(addr);
        t.set_data_ptr(static_cast<unsigned char*>(data));
        t.set_data_length(len);
        t.set_streaming_width(len);
        t.set_byte_enable_ptr(const_cast<unsigned char*>(be));
        t.set_byte_enable_length(be ? len : 0);
        t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time d = qk ? qk->get_local_time() : sc_core::SC_ZERO_TIME;
        mmio->b_transport(t, d);
        if (qk) qk->set(d);
        if (dmi_hint) *dmi_hint = t.is_dmi_allowed();
        return t.get_response_status();
    }
    uint32_t rd(uint64_t a) {
        uint32_t v = 0;
        EXPECT_EQ(access(tlm::TLM_READ_COMMAND, a, &v, 4), tlm::TLM_OK_RESPONSE) << std::hex << a;
        return v;
    }
    void wr(uint64_t a, uint32_t v) { EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, a, &v, 4), tlm::TLM_OK_RESPONSE) << std::hex << a; }
    // Waits until IRQ_STATUS has a bit of `mask` (irq is a level: see docs/vp-integration.md).
    uint32_t wait_irq(uint32_t mask) {
        for (;;) {
            const uint32_t s = rd(reg::kIrqStatus);
            if (s & mask) return s;
            if (irq.read()) wait(sc_core::SC_ZERO_TIME);
            else wait(irq.posedge_event());
        }
    }
    // Writes `program` (trace lines of one engine) as queue q's ring at `ring` and rings it.
    void run_queue(TestDram& dram, uint32_t q, uint64_t ring, const std::vector<std::string>& program, uint32_t size = 16) {
        for (size_t i = 0; i < program.size(); ++i) {
            auto r = model::trace::parse_trace_line(program[i], "test", i + 1, ".");
            dram.put(ring + 64 * i, r->instruction.bundle.b.data(), 64);
        }
        const uint64_t qr = reg::kQueues + uint64_t{q} * reg::kQueueStride;
        wr(qr + reg::kQueueBaseLo, static_cast<uint32_t>(ring));
        wr(qr + reg::kQueueBaseHi, static_cast<uint32_t>(ring >> 32));
        wr(qr + reg::kQueueSize, size);
        wr(qr + reg::kQueueTail, static_cast<uint32_t>(program.size()));
    }
};

Config cfg_of(const std::string& gen, std::vector<std::string> overrides = {});

// One core (`gen` with `overrides`, DRAM 4 MiB), its DRAM and a host running `body`; returns
// the core's stats.
nlohmann::json run_device(const std::string& gen, std::function<void(Host&, TestDram&, NeuronCore&)> body, std::function<void(TestDram&)> setup = {},
                          std::vector<std::string> overrides = {}, const DeviceOptions& options = {});

}  // namespace neuronsim::test
