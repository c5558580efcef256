// disasm -> asm gives back the same 64 bytes for every bundle the decoder accepts, written
// with fields (not raw) whenever only fields are set: ADDR4 partitions past 127, DMA
// endpoints SPACE:P:OFF cannot say, EVENTS modes "none" with semaphore bytes, values no mode
// uses. Over 10^5 random valid bundles per run.
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/isa/address.h"
#include "model/isa/opcodes.h"

namespace neuronsim::model::isa {
namespace {

std::vector<std::string> words(const std::string& s) {
    std::istringstream ss(s);
    std::vector<std::string> w;
    for (std::string x; ss >> x;) w.push_back(x);
    return w;
}

Bundle reassemble(const std::string& text) {
    const auto w = words(text);
    return assemble(w.at(0), w.at(1), std::vector<std::string>(w.begin() + 2, w.end()));
}

int width(const Field& f) {
    switch (f.kind) {
        case FieldKind::U8:
        case FieldKind::SpaceAddr: return 1;
        case FieldKind::U16: return 2;
        case FieldKind::U64: return 8;
        case FieldKind::I16x:
        case FieldKind::U16x: return 2 * f.count;
        default: return 4;
    }
}

bool covered(const OpcodeInfo& info, int byte) {
    for (const Field& f : info.fields) {
        if (byte >= f.offset && byte < f.offset + width(f)) return true;
        if (f.kind == FieldKind::SpaceAddr && byte >= f.offset2 && byte < f.offset2 + 8) return true;
    }
    return false;
}

const char* engine_for(uint32_t engines) {
    if (engines & kOnAct) return "act";
    if (engines & kOnPool) return "pool";
    if (engines & kOnDve) return "dve";
    if (engines & kOnPe) return "pe";
    return "dma2.1";
}

TEST(DisasmRoundTrip, Addr4PartitionsPast127) {
    Bundle b = assemble("act", "activate", {"src=sbuf:1:0x40"});
    b.set_u32(16, 0x2000000u + (576u << 15));  // psum partition 576, as the decoder reads it
    const std::string t = disassemble("act", b);
    EXPECT_EQ(t, "act activate src=0x3200000") << t;
    EXPECT_EQ(reassemble(t).b, b.b);
    b.set_u32(16, 0xfc000004u);  // sbuf bits, partition 1008
    EXPECT_EQ(reassemble(disassemble("act", b)).b, b.b);
}

TEST(DisasmRoundTrip, DmaEndpointsAsSpaceAtAddress) {
    Bundle b = assemble("dma0", "copy", {"src=dram:0x10", "dst=sbuf:3:0x20", "bytes=4"});
    b.set_u64(24, 0x2000000u + (200u << 15));  // dst: psum window, partition 200, space byte sbuf
    std::string t = disassemble("dma0", b);
    EXPECT_NE(t.find(" dst=sbuf@0x2640000"), std::string::npos) << t;
    EXPECT_EQ(reassemble(t).b, b.b);
    b.set_u64(24, 0x123456789ull);  // past 32 bits
    EXPECT_EQ(reassemble(disassemble("dma0", b)).b, b.b);
    b.set_u8(13, 9);  // a space byte no MemSpace names
    t = disassemble("dma0", b);
    EXPECT_NE(t.find(" dst=9@0x123456789"), std::string::npos) << t;
    EXPECT_EQ(reassemble(t).b, b.b);
}

TEST(DisasmRoundTrip, EventsTheModesCannotSay) {
    Bundle b = assemble("pool", "sync", {});
    b.set_u8(5, 7);  // wait mode none, semaphore 7
    std::string t = disassemble("pool", b);
    EXPECT_EQ(t, "pool sync events=0007000000000000");
    EXPECT_EQ(reassemble(t).b, b.b);
    b = assemble("act", "halt", {"update=3+1"});
    b.set_u32(8, 5);  // a value neither a wait nor a set update uses
    t = disassemble("act", b);
    EXPECT_EQ(t, "act halt events=0000130305000000");
    EXPECT_EQ(reassemble(t).b, b.b);
    // What wait=/update= say exactly stays readable.
    b = assemble("act", "sync", {"wait=1>=2", "update=4=2"});
    EXPECT_EQ(disassemble("act", b), "act sync wait=1>=2 update=4=2");
    EXPECT_THROW(assemble("act", "sync", {"events=0001", "wait=1>=1"}), Error);
    EXPECT_THROW(assemble("act", "sync", {"events=00010000000000zz"}), Error);
    EXPECT_THROW(assemble("act", "sync", {"events=0001000000000000", "wait=1>=1"}), Error);
}

TEST(DisasmRoundTrip, AnOpcodeOnTheWrongEngineIsRaw) {
    const Bundle b = assemble("pool", "ext", {"spec=1"});
    const std::string t = disassemble("act", b);
    EXPECT_EQ(t.rfind("act raw raw=", 0), 0u) << t;
    EXPECT_EQ(reassemble(t).b, b.b);
}

// Random bundles the decoder accepts: a known opcode, a good header, known EVENTS modes with
// random semaphore bytes and value, random bytes in every field and zeros elsewhere (so each
// must print as fields); every tenth also a stray byte outside the fields (printed raw).
TEST(DisasmRoundTrip, RandomValidBundles) {
    std::mt19937_64 rng(20240611);
    const auto& table = opcode_table();
    const uint8_t waits[] = {0x00, 0x01, 0x05}, updates[] = {0x00, 0x12, 0x13, 0x16};
    const int kBundles = 100000;
    int as_fields = 0;
    for (int i = 0; i < kBundles; ++i) {
        const OpcodeInfo& info = table[rng() % table.size()];
        Bundle b = make_bundle(info.opcode);
        b.set_u8(4, waits[rng() % 3]);
        b.set_u8(5, rng() % 4 ? static_cast<uint8_t>(rng()) : 0);
        b.set_u8(6, updates[rng() % 4]);
        b.set_u8(7, rng() % 4 ? static_cast<uint8_t>(rng()) : 0);
        b.set_u32(8, rng() % 3 ? static_cast<uint32_t>(rng()) : 0);
        for (const Field& f : info.fields) {
            const int n = width(f);
            if (rng() % 4 == 0) continue;  // left zero
            for (int k = 0; k < n; ++k) b.b[f.offset + k] = static_cast<uint8_t>(rng());
            if (f.kind == FieldKind::SpaceAddr) {
                b.b[f.offset] = static_cast<uint8_t>(rng() % 8 ? rng() % 3 : rng());
                const uint64_t a = rng();
                b.set_u64(f.offset2, rng() % 2 ? a & 0xffffffff : rng() % 2 ? a & 0x3ffffff : a);
            }
        }
        // Every tenth: a stray byte no field covers, where the opcode has one.
        std::vector<int> free_bytes;
        for (int k = 12; k < 64; ++k)
            if (!covered(info, k)) free_bytes.push_back(k);
        const bool stray = i % 10 == 9 && !free_bytes.empty();
        if (stray) b.b[free_bytes[rng() % free_bytes.size()]] = static_cast<uint8_t>(1 + rng() % 255);
        ASSERT_EQ(check_header_and_events(b), "");
        const std::string text = disassemble(engine_for(info.engines), b);
        Bundle again;
        try {
            again = reassemble(text);
        } catch (const Error& e) {
            FAIL() << "does not assemble: " << text << ": " << e.what();
        }
        ASSERT_EQ(again.b, b.b) << text;
        if (!stray) {
            ASSERT_EQ(text.find(" raw="), std::string::npos) << "only fields are set, yet written raw: " << text;
            ++as_fields;
        }
    }
    EXPECT_GT(as_fields, kBundles * 8 / 10);
}

}  // namespace
}  // namespace neuronsim::model::isa
