// The memories as TLM-2.0 targets: b_transport, transport_dbg, DMI, address errors.
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "model/common/error.h"
#include "platform/tlm/memory.h"
#include "tests/support/systemc_fixture.h"

namespace neuronsim::test {
namespace {

struct Initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Initiator> socket;
    explicit Initiator(sc_core::sc_module_name n) : sc_core::sc_module(n), socket("socket") {}
    tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned len, bool dbg = false) {
        tlm::tlm_generic_payload t;
        t.set_command(cmd);
        t.set_address(addr);
        t.set_data_ptr(data);
        t.set_data_length(len);
        t.set_streaming_width(len);
        t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        if (dbg) {
            socket->transport_dbg(t);
        } else {
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            socket->b_transport(t, d);
        }
        return t.get_response_status();
    }
};

class MemoryTest : public SystemCTest {};

TEST_F(MemoryTest, SparseDramThroughTheSocket) {
    Initiator ini("ini");
    platform::Memory dram("dram", uint64_t{1} << 40);
    ini.socket.bind(dram.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // the target's multi-socket completes its binding at elaboration
    uint8_t w[4] = {1, 2, 3, 4}, r[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    const uint64_t far = (uint64_t{1} << 39) + 65534;  // straddles two 64 KiB pages
    EXPECT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, far, w, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(ini.access(tlm::TLM_READ_COMMAND, far - 2, r, 8, true), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(std::vector<uint8_t>(r, r + 8), (std::vector<uint8_t>{0, 0, 1, 2, 3, 4, 0, 0}));
    EXPECT_EQ(ini.access(tlm::TLM_READ_COMMAND, (uint64_t{1} << 40) - 2, r, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    tlm::tlm_generic_payload t;
    t.set_address(far);
    tlm::tlm_dmi dmi;
    ASSERT_TRUE(ini.socket->get_direct_mem_ptr(t, dmi));
    EXPECT_EQ(dmi.get_dmi_ptr()[far - dmi.get_start_address()], 1);
    EXPECT_EQ(dmi.get_end_address() - dmi.get_start_address(), 65535u);
}

TEST_F(MemoryTest, DensePartitionsAndDirectAccess) {
    Initiator ini("ini");
    platform::Memory sbuf("sbuf", 128 * 1024, 128);
    ini.socket.bind(sbuf.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    EXPECT_EQ(sbuf.bytes_per_partition(), 1024u);
    uint8_t v = 7;
    sbuf.write(5 * 1024 + 3, &v, 1);
    uint8_t r = 0;
    EXPECT_EQ(ini.access(tlm::TLM_READ_COMMAND, 5 * 1024 + 3, &r, 1), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(r, 7);
    tlm::tlm_generic_payload t;
    tlm::tlm_dmi dmi;
    t.set_address(0);
    ASSERT_TRUE(ini.socket->get_direct_mem_ptr(t, dmi));
    EXPECT_EQ(dmi.get_end_address(), 128u * 1024 - 1);
    EXPECT_EQ(dmi.get_dmi_ptr()[5 * 1024 + 3], 7);
    EXPECT_THROW(sbuf.write(128 * 1024 - 1, &v, 2), Error);
}

}  // namespace
}  // namespace neuronsim::test
