// The device's initiator port against DMI grants a real target may give:
// the whole 64-bit range (tlm_dmi's default), read-only DMI, and many small regions.
#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include <tlm_utils/simple_target_socket.h>

#include "platform/tlm/tlm_port.h"
#include "platform/tlm/whole_write.h"
#include "tests/support/systemc_fixture.h"

namespace neuronsim::test {
namespace {

using platform::TlmPort;

// A flat memory at address 0 that grants DMI the way it is told: over [0, 2^64 - 1], read-only,
// or one `page` at a time.
struct GrantingTarget : sc_core::sc_module {
    tlm_utils::simple_target_socket<GrantingTarget> socket;
    std::vector<uint8_t> bytes;
    bool whole_range = false, read_only = false;
    uint64_t page = 0;  // 0: one region over `bytes`
    uint64_t asked = 0;
    bool promised = false;  // the last request's WholeWrite
    uint64_t promise_at = 0, promise_bytes = 0;

    GrantingTarget(sc_core::sc_module_name n, uint64_t size) : sc_core::sc_module(n), socket("socket"), bytes(size, 0) {
        socket.register_b_transport(this, &GrantingTarget::b_transport);
        socket.register_get_direct_mem_ptr(this, &GrantingTarget::get_direct_mem_ptr);
    }
    void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time&) {
        if (t.get_address() + t.get_data_length() > bytes.size()) {
            t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        uint8_t* p = bytes.data() + t.get_address();
        if (t.is_read()) std::memcpy(t.get_data_ptr(), p, t.get_data_length());
        else std::memcpy(p, t.get_data_ptr(), t.get_data_length());
        t.set_dmi_allowed(true);
        t.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& d) {
        ++asked;
        const platform::WholeWrite* w = nullptr;
        t.get_extension(w);
        promised = w != nullptr;
        if (w) promise_at = t.get_address(), promise_bytes = w->bytes;
        if (read_only) d.allow_read();
        else d.allow_read_write();
        if (whole_range) {  // (the region's pointer is address 0's: the initiator stays in `bytes`)
            d.set_dmi_ptr(bytes.data());
            d.set_start_address(0);
            d.set_end_address(~uint64_t{0});
        } else if (page) {
            const uint64_t start = t.get_address() / page * page;
            d.set_dmi_ptr(bytes.data() + start);
            d.set_start_address(start);
            d.set_end_address(start + page - 1);
        } else {
            d.set_dmi_ptr(bytes.data());
            d.set_start_address(0);
            d.set_end_address(bytes.size() - 1);
        }
        return true;
    }
};

struct Bench : sc_core::sc_module {  // (a port belongs to a module)
    GrantingTarget target;
    TlmPort port;
    Bench(sc_core::sc_module_name n, uint64_t size) : sc_core::sc_module(n), target("target", size), port("port", "DRAM") { port.socket().bind(target.socket); }
};

void elaborate() { sc_core::sc_start(sc_core::SC_ZERO_TIME); }

class TlmPortTest : public SystemCTest {};

TEST_F(TlmPortTest, DmiOverTheWhole64BitRangeIsUsed) {
    Bench b("bench", 4096);
    elaborate();
    b.target.whole_range = true;
    ASSERT_NE(b.port.direct(0, 1), nullptr);
    const uint8_t w[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    b.port.write(0, w, 16);  // (looped forever at address 0: the length computed to 0)
    uint8_t r[16] = {};
    b.port.read(0, r, 16);
    EXPECT_EQ(0, std::memcmp(r, w, 16));
    EXPECT_EQ(0, std::memcmp(b.target.bytes.data(), w, 16));
    EXPECT_EQ(b.port.counters().dmi_accesses, 2u);
    EXPECT_EQ(b.port.counters().transports, 0u);
}

TEST_F(TlmPortTest, ReadOnlyDmiIsAskedForOnceAndWritesStayTransactions) {
    Bench b("bench", 64 * 30720);
    elaborate();
    b.target.read_only = true;
    uint8_t row[64];
    for (uint32_t i = 0; i < 30720; ++i) {
        std::memset(row, static_cast<int>(i), 64);
        b.port.write(uint64_t{i} * 64, row, 64);
    }
    for (uint32_t i = 0; i < 30720; i += 997) {
        b.port.read(uint64_t{i} * 64, row, 64);
        EXPECT_EQ(row[63], static_cast<uint8_t>(i));
    }
    // The first write's DMI hint asks once; the read-only grant serves the reads, the writes
    // stay transactions without asking again (it asked and kept a region per row).
    EXPECT_EQ(b.target.asked, 1u);
    EXPECT_EQ(b.port.regions(), 1u);
    EXPECT_EQ(b.port.counters().transports, 30720u);
    EXPECT_EQ(b.port.counters().dmi_accesses, 31u);
}

// span_or_request(..., whole) tells the target, on a request to write, that [addr, +len) is
// written in full first (WholeWrite); a read, or a write not said to be whole, promises nothing.
TEST_F(TlmPortTest, AWholeWritePromisesItsRangeToTheTarget) {
    Bench b("bench", 8 * 4096);
    elaborate();
    b.target.page = 4096;
    b.port.write(0, b.target.bytes.data(), 1);  // (a transaction first: the DMI hint)
    const uint64_t asked = b.target.asked;
    TlmPort::Span sp;
    uint64_t room = 0;
    ASSERT_TRUE(b.port.span_or_request(4096 + 8, 2 * 4096, true, sp, room, true));
    EXPECT_EQ(b.target.asked, asked + 1);
    EXPECT_TRUE(b.target.promised);
    EXPECT_EQ(b.target.promise_at, 4096u + 8);
    EXPECT_EQ(b.target.promise_bytes, 2u * 4096);
    EXPECT_EQ(room, 4096u - 8);
    ASSERT_TRUE(b.port.span_or_request(3 * 4096, 100, true, sp, room));
    EXPECT_EQ(b.target.asked, asked + 2);
    EXPECT_FALSE(b.target.promised);
    ASSERT_TRUE(b.port.span_or_request(5 * 4096, 100, false, sp, room, true));
    EXPECT_EQ(b.target.asked, asked + 3);
    EXPECT_FALSE(b.target.promised);
}

TEST_F(TlmPortTest, ManySmallRegionsAreBounded) {
    const uint64_t page = 4096, pages = 1000;
    Bench b("bench", page * pages);
    elaborate();
    b.target.page = page;
    for (uint64_t p = 0; p < pages; ++p) {
        const uint8_t v = static_cast<uint8_t>(p * 7);
        b.port.write(p * page + 5, &v, 1);
    }
    EXPECT_LE(b.port.regions(), TlmPort::kMaxRegions);
    EXPECT_EQ(b.target.asked, pages);  // one grant per page, once
    for (uint64_t p = 0; p < pages; ++p) {
        uint8_t v = 0;
        b.port.read(p * page + 5, &v, 1);
        ASSERT_EQ(v, static_cast<uint8_t>(p * 7)) << "page " << p;
    }
    EXPECT_LE(b.port.regions(), TlmPort::kMaxRegions);
    // An access spanning two pages uses both regions.
    const uint8_t w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    b.port.write(page - 4, w, 8);
    EXPECT_EQ(0, std::memcmp(b.target.bytes.data() + page - 4, w, 8));
}

}  // namespace
}  // namespace neuronsim::test
