// The NeuronCore device as a VP drives it: hostile MMIO traffic (any register, size,
// alignment and annotated delay, sc_max_time included), rings of real and mutated bundles,
// doorbells, RESET at any moment, window and debug accesses, DMI requests, and a DRAM that
// annotates or waits, grants DMI read-write, read-only, per page or not at all, answers
// errors in ranges and invalidates DMI. The function sets sit in DRAM (ACT_SETS_BASE), so a
// ring may load them and then overwrite their images (untrusted table input).
// Invariants: no crash or sanitizer report; no transaction left INCOMPLETE; no exception out
// of the simulation; after a RESET the device reads idle at once (STATUS 0, every queue idle
// with HEAD and DONE 0).
// One simulation serves every input (a SystemC context cannot be rebuilt): each input starts
// with a RESET, cleared semaphores and registers and a restored DRAM.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "model/trace/trace_reader.h"
#include "neuronsim/act_sets.h"
#include "neuronsim/config.h"
#include "neuronsim/neuron_core.h"
#include "neuronsim/registers.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/support/asan.h"

using namespace neuronsim;

namespace {

constexpr uint64_t kDramBytes = 8u << 20;
constexpr uint64_t kScratchBytes = 2u << 20;  // rings and data; restored per input
constexpr uint64_t kSetsTop = kDramBytes;  // the function sets above, restored when written
constexpr size_t kMaxOps = 96;

// Reads the input as a stream of choices; past its end every choice is 0.
struct Bytes {
    const uint8_t* p;
    size_t n, at = 0;
    bool more() const { return at < n; }
    uint8_t u8() { return at < n ? p[at++] : 0; }
    uint32_t u32() {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= uint32_t{u8()} << (8 * i);
        return v;
    }
    uint64_t u64() { return uint64_t{u32()} | uint64_t{u32()} << 32; }
    template <typename T>
    const T& pick(const std::vector<T>& v) {
        return v[u8() % v.size()];
    }
};

// The VP's DRAM, with every behaviour a legal TLM target may have.
struct FuzzDram : sc_core::sc_module {
    tlm_utils::simple_target_socket<FuzzDram> socket;
    std::vector<uint8_t> bytes, pristine;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    bool wait_inside = false;
    int dmi = 1;  // 0 none, 1 read-write whole, 2 read-only whole, 3 read-write per 64 KiB page, 4 whole 2^64 range
    uint64_t error_lo = 0, error_hi = 0;  // [lo, hi): answered with error_kind
    tlm::tlm_response_status error_kind = tlm::TLM_ADDRESS_ERROR_RESPONSE;
    uint64_t sets_lo = kScratchBytes;
    bool sets_dirty = false;

    explicit FuzzDram(sc_core::sc_module_name n) : sc_core::sc_module(n), socket("socket"), bytes(kDramBytes, 0) {
        socket.register_b_transport(this, &FuzzDram::b_transport);
        socket.register_transport_dbg(this, &FuzzDram::transport_dbg);
        socket.register_get_direct_mem_ptr(this, &FuzzDram::get_direct_mem_ptr);
    }
    void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& d) {
        const uint64_t a = t.get_address(), len = t.get_data_length();
        if (len && a < error_hi && a + len > error_lo) {
            t.set_response_status(error_kind);
            return;
        }
        if (!transport_dbg(t)) return;
        if (wait_inside && delay != sc_core::SC_ZERO_TIME) sc_core::wait(delay);
        else d += delay;
        t.set_dmi_allowed(dmi != 0);
    }
    unsigned transport_dbg(tlm::tlm_generic_payload& t) {
        const uint64_t a = t.get_address(), len = t.get_data_length();
        if (a > bytes.size() || len > bytes.size() - a) {
            t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return 0;
        }
        if (t.get_byte_enable_ptr()) {
            t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
            return 0;
        }
        if (t.is_read()) std::memcpy(t.get_data_ptr(), bytes.data() + a, len);
        else if (t.is_write()) {
            std::memcpy(bytes.data() + a, t.get_data_ptr(), len);
            if (a + len > sets_lo) sets_dirty = true;
        }
        t.set_response_status(tlm::TLM_OK_RESPONSE);
        return static_cast<unsigned>(len);
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& d) {
        const uint64_t a = t.get_address();
        if (dmi == 0 || a >= bytes.size() || (error_hi > error_lo && dmi != 3)) return false;
        if (dmi == 2) d.allow_read();
        else d.allow_read_write();
        uint64_t lo = 0, hi = bytes.size() - 1;
        if (dmi == 3) {
            lo = a & ~uint64_t{0xffff};
            hi = std::min<uint64_t>(lo + 0xffff, bytes.size() - 1);
            if (lo < error_hi && hi >= error_lo) return false;
        }
        d.set_dmi_ptr(bytes.data() + lo);
        d.set_start_address(lo);
        d.set_end_address(hi);
        d.set_read_latency(delay);
        d.set_write_latency(delay);
        if (dmi != 2) sets_dirty = true;  // (writes through the pointer are not seen here)
        return true;
    }
    void invalidate() { socket->invalidate_direct_mem_ptr(0, ~uint64_t{0}); }
    void restore() {
        std::memset(bytes.data(), 0, kScratchBytes);
        if (sets_dirty) std::memcpy(bytes.data() + sets_lo, pristine.data() + sets_lo, bytes.size() - sets_lo);
        sets_dirty = false;
    }
};

// The VP's processor: runs one input's operations from its thread, then waits for the next.
struct FuzzHost : sc_core::sc_module {
    SC_HAS_PROCESS(FuzzHost);
    tlm_utils::simple_initiator_socket<FuzzHost> mmio;
    sc_core::sc_signal<bool> irq;
    sc_core::sc_event go;
    FuzzDram* dram = nullptr;
    Bytes* in = nullptr;
    bool done = true;
    uint32_t queues = 0;
    std::vector<std::vector<uint8_t>> templates;  // 64-byte bundles of real instructions
    ActSetRegion sets;

    explicit FuzzHost(sc_core::sc_module_name n) : sc_core::sc_module(n), mmio("mmio"), irq("irq") { SC_THREAD(run); }

    tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len, sc_core::sc_time d = sc_core::SC_ZERO_TIME,
                                    const uint8_t* be = nullptr, unsigned be_len = 0, unsigned width = 0) {
        tlm::tlm_generic_payload t;
        t.set_command(cmd);
        t.set_address(addr);
        t.set_data_ptr(static_cast<unsigned char*>(data));
        t.set_data_length(len);
        t.set_streaming_width(width ? width : len);
        t.set_byte_enable_ptr(const_cast<uint8_t*>(be));
        t.set_byte_enable_length(be ? be_len : 0);
        t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        mmio->b_transport(t, d);
        if (t.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE) fuzz::fuzz_fail("b_transport left the response INCOMPLETE at " + std::to_string(addr));
        return t.get_response_status();
    }
    uint32_t rd(uint64_t a) {
        uint32_t v = 0;
        if (access(tlm::TLM_READ_COMMAND, a, &v, 4) != tlm::TLM_OK_RESPONSE) fuzz::fuzz_fail("register " + std::to_string(a) + " cannot be read");
        return v;
    }
    tlm::tlm_response_status wr(uint64_t a, uint32_t v, sc_core::sc_time d = sc_core::SC_ZERO_TIME) { return access(tlm::TLM_WRITE_COMMAND, a, &v, 4, d); }
    static uint64_t queue_reg(uint32_t q, uint64_t r) { return reg::kQueues + uint64_t{q} * reg::kQueueStride + r; }

    // NEURONSIM_FUZZ_VERBOSE=1: what each RESET ends (for writing seeds that reach far).
    void describe() {
        std::string text = "fuzz_device: at " + sc_core::sc_time_stamp().to_string() + ": STATUS " + std::to_string(rd(reg::kStatus));
        for (uint32_t q = 0; q < queues; ++q)
            if (const uint32_t d = rd(queue_reg(q, reg::kQueueDoneLo))) text += ", queue " + std::to_string(q) + " done " + std::to_string(d);
        if (rd(reg::kStatus) & reg::kStatusError) {
            char msg[reg::kErrorMessageBytes] = {};
            for (uint64_t i = 0; i + 4 <= sizeof msg - 4; i += 4) {
                const uint32_t v = rd(reg::kErrorMessage + i);
                std::memcpy(msg + i, &v, 4);
            }
            text += ", error: " + std::string(msg);
        }
        std::fprintf(stderr, "%s\n", text.c_str());
    }
    bool verbose = std::getenv("NEURONSIM_FUZZ_VERBOSE") != nullptr;

    void reset_and_check() {
        if (verbose) describe();
        if (wr(reg::kControl, reg::kControlReset) != tlm::TLM_OK_RESPONSE) fuzz::fuzz_fail("RESET was refused");
        if (const uint32_t s = rd(reg::kStatus)) fuzz::fuzz_fail("STATUS is " + std::to_string(s) + " right after RESET");
        for (uint32_t q = 0; q < queues; ++q) {
            const uint32_t st = rd(queue_reg(q, reg::kQueueStatus)), head = rd(queue_reg(q, reg::kQueueHead));
            const uint32_t done_lo = rd(queue_reg(q, reg::kQueueDoneLo)), done_hi = rd(queue_reg(q, reg::kQueueDoneHi));
            if (st || head || done_lo || done_hi)
                fuzz::fuzz_fail("queue " + std::to_string(q) + " after RESET: STATUS " + std::to_string(st) + " HEAD " + std::to_string(head) + " DONE " +
                                std::to_string(done_lo));
        }
    }

    uint64_t pick_reg(Bytes& b) {
        const uint8_t k = b.u8();
        const uint32_t q = std::vector<uint32_t>{0, 1, 2, 3, queues - 1, queues, 511, b.u32() % 600}[b.u8() % 8];
        switch (k % 12) {
            case 0: return reg::kStatus + 4 * (b.u8() % 40);
            case 1: return reg::kControl;
            case 2: return std::vector<uint64_t>{reg::kIrqStatus, reg::kIrqMask, reg::kActSetsBaseLo, reg::kActSetsBaseHi, reg::kActSetsCount}[b.u8() % 5];
            case 3: return reg::kDrained + 4 * (b.u8() % 16);
            case 4: return reg::kSemaphores + 4 * b.u8();
            case 5: return reg::kRegisters + 4 * b.u8();
            case 6: return reg::kErrorMessage + 4 * (b.u8() % 256);
            case 7:
            case 8:
            case 9: return queue_reg(q, 4 * (b.u8() % 8));
            case 10: return reg::kQueues + 4 * (b.u32() % 0x8000);
            default: return b.u32() % reg::kMmioSize;
        }
    }
    uint32_t pick_value(Bytes& b) {
        switch (b.u8() % 6) {
            case 0: return b.u8();
            case 1: return 0;
            case 2: return 0xffffffffu;
            case 3: return 1u << (b.u8() % 32);
            case 4: return b.u8() * 64u;  // a ring address or a small count
            default: return b.u32();
        }
    }
    sc_core::sc_time pick_delay(Bytes& b) {
        switch (b.u8() % 8) {
            case 0: return sc_core::sc_time(b.u8(), sc_core::SC_NS);
            case 1: return sc_core::sc_time(b.u8(), sc_core::SC_US);
            case 2: return sc_core::sc_max_time();
            case 3: return sc_core::sc_max_time() - sc_core::sc_time_stamp();
            case 4: return sc_core::sc_time::from_value(b.u64());
            default: return sc_core::SC_ZERO_TIME;
        }
    }
    sc_core::sc_time pick_wait(Bytes& b) {
        return std::vector<sc_core::sc_time>{sc_core::SC_ZERO_TIME, sc_core::sc_time(10, sc_core::SC_NS), sc_core::sc_time(1, sc_core::SC_US),
                                             sc_core::sc_time(20, sc_core::SC_US), sc_core::sc_time(100, sc_core::SC_US)}[b.u8() % 5];
    }
    // An address in DRAM: mostly the scratch rings and data, sometimes the sets or past the end.
    uint64_t pick_dram(Bytes& b) {
        switch (b.u8() % 6) {
            case 0: return sets.base + b.u32() % std::max<size_t>(sets.bytes.size(), 1);
            case 1: return b.u64();
            default: return (b.u32() % kScratchBytes) & ~uint64_t(b.u8() % 2 ? 63 : 0);
        }
    }

    void one_op(Bytes& b) {
        switch (b.u8() % 14) {
            case 0: {  // a register write, with an annotated delay
                const uint64_t a = pick_reg(b);
                const uint32_t v = pick_value(b);
                wr(a, v, pick_delay(b));
                break;
            }
            case 1: {  // a read or write of any size and alignment, byte enables, streaming width
                const uint64_t a = b.u8() % 2 ? pick_reg(b) + b.u8() % 4 : b.u32();
                uint8_t buf[16] = {}, be[16];
                const unsigned len = 1 + b.u8() % 16;
                for (unsigned i = 0; i < 16; ++i) be[i] = b.u8() % 2 ? 0xff : 0;
                const bool use_be = b.u8() % 4 == 0;
                access(b.u8() % 2 ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND, a, buf, len, pick_delay(b), use_be ? be : nullptr,
                       use_be ? 1 + b.u8() % 16 : 0, b.u8() % 4 == 0 ? 1 + b.u8() % len : 0);
                break;
            }
            case 2: {  // a real instruction into the DRAM, perhaps with one byte changed
                const uint64_t at = pick_dram(b) & ~uint64_t{63};
                std::vector<uint8_t> x = b.pick(templates);
                if (b.u8() % 2) x[b.u8() % 64] ^= static_cast<uint8_t>(1u << (b.u8() % 8));
                if (b.u8() % 4 == 0) x[b.u8() % 64] = b.u8();
                put(at, x.data(), x.size());
                break;
            }
            case 3: {  // raw bytes into the DRAM
                const uint64_t at = pick_dram(b);
                std::vector<uint8_t> x(1 + b.u8() % 64);
                for (auto& c : x) c = b.u8();
                put(at, x.data(), x.size());
                break;
            }
            case 4: {  // a queue set up and rung
                const uint32_t q = std::vector<uint32_t>{0, 1, 2, 3, queues - 1, b.u32() % (queues + 2)}[b.u8() % 6];
                const uint64_t base = (b.u8() % 16) * 0x1000;
                wr(queue_reg(q, reg::kQueueBaseLo), static_cast<uint32_t>(base));
                wr(queue_reg(q, reg::kQueueBaseHi), b.u8() % 8 == 0 ? b.u32() : 0);
                wr(queue_reg(q, reg::kQueueSize), b.u8() % 8 == 0 ? pick_value(b) : 2 + b.u8() % 32);
                for (unsigned i = 0, n = b.u8() % 8; i < n; ++i) put(base + 64 * i, b.pick(templates).data(), 64);
                wr(queue_reg(q, reg::kQueueTail), b.u8() % 8 == 0 ? pick_value(b) : b.u8() % 34, pick_delay(b));
                break;
            }
            case 5: sc_core::wait(pick_wait(b)); break;
            case 6: {  // the windows, through b_transport, transport_dbg and DMI
                const uint64_t base = std::vector<uint64_t>{reg::kActTablesWindow, reg::kPsumWindow, reg::kSbufWindow}[b.u8() % 3];
                const uint64_t a = base + (b.u8() % 8 == 0 ? b.u32() : b.u32() % 0x10000);
                std::vector<uint8_t> buf(1 + (b.u8() % 8 == 0 ? b.u32() % 70000 : b.u8()));
                for (size_t i = 0; i < std::min<size_t>(buf.size(), 8); ++i) buf[i] = b.u8();
                const uint8_t how = b.u8() % 4;
                const tlm::tlm_command cmd = b.u8() % 2 ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND;
                if (how == 0 || how == 1) access(cmd, a, buf.data(), static_cast<unsigned>(buf.size()), pick_delay(b));
                tlm::tlm_generic_payload t;
                t.set_command(cmd);
                t.set_address(a);
                t.set_data_ptr(buf.data());
                t.set_data_length(static_cast<unsigned>(buf.size()));
                t.set_streaming_width(static_cast<unsigned>(buf.size()));
                if (how == 2) {
                    const unsigned got = mmio->transport_dbg(t);
                    if (got > buf.size()) fuzz::fuzz_fail("transport_dbg reported more bytes than asked");
                } else if (how == 3) {
                    tlm::tlm_dmi d;
                    if (mmio->get_direct_mem_ptr(t, d)) {
                        if (d.get_start_address() > a || d.get_end_address() < a) fuzz::fuzz_fail("a DMI grant does not cover the address asked for");
                        volatile uint8_t probe = d.get_dmi_ptr()[a - d.get_start_address()];
                        (void)probe;
                        if (d.is_write_allowed()) d.get_dmi_ptr()[a - d.get_start_address()] = buf[0];
                    }
                }
                break;
            }
            case 7: reset_and_check(); break;
            case 8: {  // the DRAM changes its manners
                const uint8_t k = b.u8() % 6;
                if (k == 0) dram->delay = sc_core::sc_time(b.u8(), sc_core::SC_NS);
                else if (k == 1) dram->wait_inside = !dram->wait_inside;
                else if (k == 2) dram->dmi = b.u8() % 5;
                else if (k == 3) {
                    dram->error_lo = pick_dram(b);
                    dram->error_hi = dram->error_lo + b.u32() % 0x20000;
                    dram->error_kind = std::vector<tlm::tlm_response_status>{tlm::TLM_ADDRESS_ERROR_RESPONSE, tlm::TLM_GENERIC_ERROR_RESPONSE,
                                                                             tlm::TLM_COMMAND_ERROR_RESPONSE, tlm::TLM_BURST_ERROR_RESPONSE}[b.u8() % 4];
                } else if (k == 4) dram->error_lo = dram->error_hi = 0;
                if (b.u8() % 2) dram->invalidate();
                break;
            }
            case 9: {  // wait for an interrupt, for a while at most
                wr(reg::kIrqMask, b.u8() % 4);
                sc_core::wait(sc_core::sc_time(50, sc_core::SC_US), irq.posedge_event());
                if (b.u8() % 2) wr(reg::kIrqStatus, 0xffffffffu);
                break;
            }
            case 10: {  // the sets directory overwritten: counts and indexes past the tables
                const uint64_t at = sets.base + (b.u8() % std::max<uint32_t>(sets.count, 1)) * 64 + b.u8() % 64;
                const uint32_t v = pick_value(b);
                put(at & ~uint64_t{3}, &v, 4);
                break;
            }
            case 11: {  // a semaphore or an engine register set
                wr((b.u8() % 2 ? reg::kSemaphores : reg::kRegisters) + 4 * b.u8(), pick_value(b));
                break;
            }
            case 12: {  // every register read: none may fail or crash
                for (uint64_t a = 0; a < 0x100; a += 4) {
                    uint32_t v;
                    access(tlm::TLM_READ_COMMAND, a, &v, 4);
                }
                break;
            }
            default: {  // a whole program on one queue, rung at once
                const uint32_t q = b.u8() % std::min<uint32_t>(queues, 4);
                const uint64_t ring = 0x10000 * (1 + b.u8() % 8);
                const unsigned n = 1 + b.u8() % 12;
                for (unsigned i = 0; i < n; ++i) put(ring + 64 * i, b.pick(templates).data(), 64);
                wr(queue_reg(q, reg::kQueueBaseLo), static_cast<uint32_t>(ring));
                wr(queue_reg(q, reg::kQueueBaseHi), 0);
                wr(queue_reg(q, reg::kQueueSize), 16);
                wr(queue_reg(q, reg::kQueueTail), n);
                break;
            }
        }
    }
    void put(uint64_t at, const void* p, size_t n) {
        if (at >= kDramBytes) return;
        n = std::min<uint64_t>(n, kDramBytes - at);
        std::memcpy(dram->bytes.data() + at, p, n);
        if (at + n > dram->sets_lo) dram->sets_dirty = true;
    }

    void run() {
        for (;;) {
            while (done) wait(go);  // (the first input may come before the thread has started)
            dram->restore();
            dram->delay = sc_core::SC_ZERO_TIME;
            dram->wait_inside = false;
            dram->dmi = 1;
            dram->error_lo = dram->error_hi = 0;
            dram->invalidate();
            reset_and_check();
            for (unsigned i = 0; i < 256; ++i) {
                wr(reg::kSemaphores + 4 * i, 0);
                wr(reg::kRegisters + 4 * i, 0);
            }
            wr(reg::kActSetsBaseLo, static_cast<uint32_t>(sets.base));
            wr(reg::kActSetsBaseHi, static_cast<uint32_t>(sets.base >> 32));
            wr(reg::kActSetsCount, sets.count);
            wr(reg::kIrqStatus, 0xffffffffu);
            for (size_t k = 0; k < kMaxOps && in->more(); ++k) one_op(*in);
            done = true;
        }
    }
};

const char* const kTemplates[] = {
    "act load_act_func_set set=0",
    "act load_act_func_set set=10",
    "act load_act_func_set set=13",
    "act load_act_func_set set=2 wait=0>=1",
    "act activate func=7 in_bias_dtype=10 out_dtype=10 num_active_channels=128 scale=1.0 bias_src_n=1 src=sbuf:0:0x0 src.num=16,1,1 src.step=1,0,0 "
    "dst=sbuf:0:0x1000 dst.num=16,1,1 dst.step=1,0,0",
    "act activate func=23 in_bias_dtype=0xa7 out_dtype=10 num_active_channels=128 scale=1.0 bias=0 bias_src_n=1 src=sbuf:0:0x1000 src.step=1,0,0 "
    "src.num=128,1,1 dst=sbuf:0:0x2000 dst.step=1,0,0 dst.num=128,1,1 update=2+1",
    "act activate func=1 in_bias_dtype=10 out_dtype=10 num_active_channels=128 scale_src=1 scale=sbuf:0:0x2004 bias=0 bias_src_n=1 src=sbuf:0:0x1000 "
    "src.step=1,0,0 src.num=16,1,1 dst=sbuf:0:0x3000 dst.step=1,0,0 dst.num=16,1,1 update=1+1",
    "act activate func=7 in_bias_dtype=10 out_dtype=10 num_active_channels=128 scale=1.0 bias=0 bias_src_n=1 accumulator_cmd=3 src=sbuf:0:0x0 "
    "src.step=1,0,0 src.num=16,1,1 dst=sbuf:0:0x1000 dst.step=1,0,0 dst.num=16,1,1",
    "pool conv_lut_load src=sbuf:0:0x0 src.num=4,5 src.step=1,4 in_dtype=9 out_dtype=7 num_active_rows=128 num_active_cols=128 mconst0=0x3c00 "
    "mconst1=0x100 row_grp=15 col_grp=15 block_size=64 lut_dtype=0x1c dst=sbuf:0:0x1000 dst.num=128,1,1 dst.step=1,0,0 update=0+1",
    "dma0 copy src=dram:0x10000 dst=sbuf:0:0x0 partitions=128 bytes=256 src_stride=256 update=0+1",
    "dma0 copy src=sbuf:0:0x2000 dst=dram:0x20000 partitions=128 bytes=512 dst_stride=512 wait=2>=1",
    "dma0 copy src=dram:0x200000 dst=dram:0x30000 partitions=4 bytes=4096 src_stride=4096 dst_stride=4096",
    "dma0 copy src=sbuf:0:0x0 dst=psum:0:0x0 partitions=128 bytes=64",
    "act halt",
    "pool halt",
};

struct World {
    std::unique_ptr<FuzzDram> dram;
    std::unique_ptr<NeuronCore> core;
    std::unique_ptr<FuzzHost> host;
    Bytes* in = nullptr;
    World() {
        const Config cfg = compose_config_text("mariana", {},
                                               {"memory.dram_bytes=" + std::to_string(kDramBytes), "run.max_elements_per_instruction=65536",
                                                "run.max_dma_bytes_per_instruction=1048576", "gpsimd.cptc_flag=true"});
        dram = std::make_unique<FuzzDram>("dram");
        core = std::make_unique<NeuronCore>("core", cfg);
        host = std::make_unique<FuzzHost>("host");
        host->dram = dram.get();
        core->mem.bind(dram->socket);
        host->mmio.bind(core->mmio);
        core->irq.bind(host->irq);
        host->queues = core->num_queues();
        for (const char* line : kTemplates) {
            auto r = model::trace::parse_trace_line(line, "fuzz", 1, ".");
            host->templates.emplace_back(r->instruction.bundle.b.begin(), r->instruction.bundle.b.end());
        }
        host->sets = build_act_set_region(cfg, "", kSetsTop);
        if (host->sets.base < kScratchBytes) {
            std::fprintf(stderr, "fuzz_device: the function sets (%zu bytes) do not fit above the scratch DRAM\n", host->sets.bytes.size());
            std::abort();
        }
        dram->sets_lo = host->sets.base;
        std::memcpy(dram->bytes.data() + host->sets.base, host->sets.bytes.data(), host->sets.bytes.size());
        dram->pristine = dram->bytes;
    }
};

World& world() {
    static World* w = new World;  // never destroyed: SystemC's context outlives any exit order
    return *w;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    World& w = world();
    Bytes in{data, size};
    w.host->in = &in;
    w.host->done = false;
    w.host->go.notify(sc_core::SC_ZERO_TIME);
    try {
        // The host's operations take a few milliseconds of simulated time at most; the
        // device's own events may lie anywhere ahead and are simply not reached.
        for (int slice = 0; !w.host->done; ++slice) {
            if (slice == 1000) fuzz::fuzz_fail("the host's operations did not end within 1 s of simulated time");
            sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS));
            neuronsim::test::restore_thread_stack_for_asan();  // (else LeakSanitizer misses libFuzzer's own stack)
        }
    } catch (const sc_core::sc_report& r) {
        fuzz::fuzz_fail(std::string("a SystemC error escaped the simulation: ") + r.what());
    } catch (const std::exception& e) {
        fuzz::fuzz_fail(std::string("an exception escaped the simulation: ") + e.what());
    }
    return 0;
}
