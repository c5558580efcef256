#pragma once
// The 64-byte instruction bundle (hardware-facts §J.1): header {opcode, 0x10, 0, 0}, the
// 8-byte EVENTS field at 4..11, and the opcode's operand layout in the rest. Little-endian.
#include <array>
#include <cstdint>
#include <cstring>
#include <string>

namespace neuronsim::model::isa {

inline constexpr size_t kBundleBytes = 64;
inline constexpr uint8_t kInstWordLen = 0x10;  // 16 dwords

struct Bundle {
    std::array<uint8_t, kBundleBytes> b{};

    uint8_t opcode() const { return b[0]; }
    uint8_t u8(size_t off) const { return b[off]; }
    uint16_t u16(size_t off) const { return static_cast<uint16_t>(b[off] | b[off + 1] << 8); }
    uint32_t u32(size_t off) const { return uint32_t(b[off]) | uint32_t(b[off + 1]) << 8 | uint32_t(b[off + 2]) << 16 | uint32_t(b[off + 3]) << 24; }
    uint64_t u64(size_t off) const { return uint64_t(u32(off)) | uint64_t(u32(off + 4)) << 32; }
    void set_u8(size_t off, uint8_t v) { b[off] = v; }
    void set_u16(size_t off, uint16_t v) {
        b[off] = v & 0xFF;
        b[off + 1] = v >> 8;
    }
    void set_u32(size_t off, uint32_t v) {
        for (int i = 0; i < 4; ++i) b[off + i] = (v >> (8 * i)) & 0xFF;
    }
    void set_u64(size_t off, uint64_t v) {
        set_u32(off, static_cast<uint32_t>(v));
        set_u32(off + 4, static_cast<uint32_t>(v >> 32));
    }
};

// EVENTS (bytes 4..11): one semaphore wait and one update per bundle. The engine stalls before
// the instruction while the wait does not hold, and applies the update when it completes.
// Wire values follow §J.2 where it names them (0x01 EQ, 0x05 GE immediate, 0x13 sem-inc);
// the others are this project's (traces/README.md).
enum class WaitMode : uint8_t { None = 0x00, Eq = 0x01, Ge = 0x05 };
enum class UpdateMode : uint8_t { None = 0x00, Dec = 0x12, Inc = 0x13, Set = 0x16 };

struct Events {
    WaitMode wait = WaitMode::None;
    uint8_t wait_idx = 0;
    UpdateMode update = UpdateMode::None;
    uint8_t update_idx = 0;
    uint32_t value = 0;  // the wait's operand; also the value of a Set update
};

inline constexpr size_t kEventsOffset = 4;

Bundle make_bundle(uint8_t opcode);
Events read_events(const Bundle& b);
void write_events(Bundle& b, const Events& e);

// Header and EVENTS well-formed: inst_word_len 0x10, bytes 2..3 zero, known wait/update modes.
// Returns an empty string when valid, else what is wrong.
std::string check_header_and_events(const Bundle& b);

std::string wait_mode_name(WaitMode m);
std::string update_mode_name(UpdateMode m);

}  // namespace neuronsim::model::isa
