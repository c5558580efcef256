#include "model/isa/bundle.h"

namespace neuronsim::model::isa {

Bundle make_bundle(uint8_t opcode) {
    Bundle b;
    b.b[0] = opcode;
    b.b[1] = kInstWordLen;
    return b;
}

Events read_events(const Bundle& b) {
    Events e;
    e.wait = static_cast<WaitMode>(b.u8(4));
    e.wait_idx = b.u8(5);
    e.update = static_cast<UpdateMode>(b.u8(6));
    e.update_idx = b.u8(7);
    e.value = b.u32(8);
    return e;
}

void write_events(Bundle& b, const Events& e) {
    b.set_u8(4, static_cast<uint8_t>(e.wait));
    b.set_u8(5, e.wait_idx);
    b.set_u8(6, static_cast<uint8_t>(e.update));
    b.set_u8(7, e.update_idx);
    b.set_u32(8, e.value);
}

std::string wait_mode_name(WaitMode m) {
    switch (m) {
        case WaitMode::None: return "none";
        case WaitMode::Eq: return "==";
        case WaitMode::Ge: return ">=";
    }
    return "?";
}

std::string update_mode_name(UpdateMode m) {
    switch (m) {
        case UpdateMode::None: return "none";
        case UpdateMode::Dec: return "-1";
        case UpdateMode::Inc: return "+1";
        case UpdateMode::Set: return "=";
    }
    return "?";
}

std::string check_header_and_events(const Bundle& b) {
    if (b.u8(1) != kInstWordLen) return "inst_word_len (byte 1) is " + std::to_string(b.u8(1)) + ", expected 16";
    if (b.u8(2) != 0 || b.u8(3) != 0) return "header bytes 2..3 are not zero";
    const uint8_t w = b.u8(4), u = b.u8(6);
    if (w != 0x00 && w != 0x01 && w != 0x05) return "unknown wait mode " + std::to_string(w) + " (byte 4)";
    if (u != 0x00 && u != 0x12 && u != 0x13 && u != 0x16) return "unknown update mode " + std::to_string(u) + " (byte 6)";
    return "";
}

}  // namespace neuronsim::model::isa
