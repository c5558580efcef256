#include "model/pwp/blob.h"

#include "model/common/error.h"
#include "model/fp/bits.h"

namespace neuronsim::model::pwp {

size_t ctrl_stride(Target t) { return t == Target::Trainium ? 32 : 16; }
std::string target_name(Target t) { return t == Target::Trainium ? "trainium" : "with_ln"; }

Target parse_target(const std::string& name) {
    if (name == "trainium") return Target::Trainium;
    if (name == "with_ln") return Target::WithLn;
    throw Error("target: expected trainium or with_ln, got \"" + name + "\"");
}

uint32_t pack_ctrl(uint32_t bkt_base, uint32_t extract_size) { return (extract_size << 16) | ((23 - extract_size) << 11) | (bkt_base & kBktBaseMax); }

uint32_t pack_ctrl_sentinel(uint32_t bkt_base) { return bkt_base & kBktBaseMax; }

CtrlWord unpack_ctrl(uint32_t word) { return CtrlWord{word & kBktBaseMax, (word >> 11) & 0x1F, (word >> 16) & 0xFF, word >> 24}; }

uint32_t read_u32le(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }

void append_u32le(std::vector<uint8_t>& out, uint32_t v) {
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<uint8_t>(v >> (8 * b)));
}

void append_bkt(std::vector<uint8_t>& blob, const Section& s) {
    for (float f : {s.d0, s.d1, s.d2, s.d3, s.x}) append_u32le(blob, fp::bits_of(f));
    blob.insert(blob.end(), kBktRecordBytes - 20, 0);
}

Section read_bkt(const std::vector<uint8_t>& blob, size_t index) { return read_bkt_record(blob.data() + index * kBktRecordBytes); }

Section read_bkt_record(const uint8_t* r) {
    Section s;
    s.d0 = fp::float_of(read_u32le(r + 0));
    s.d1 = fp::float_of(read_u32le(r + 4));
    s.d2 = fp::float_of(read_u32le(r + 8));
    s.d3 = fp::float_of(read_u32le(r + 12));
    s.x = fp::float_of(read_u32le(r + 16));  // x is LAST on disk
    return s;
}

bool bkt_pad_is_zero(const std::vector<uint8_t>& blob, size_t index) {
    for (size_t b = 20; b < kBktRecordBytes; ++b)
        if (blob[index * kBktRecordBytes + b] != 0) return false;
    return true;
}

void append_ctrl(std::vector<uint8_t>& blob, uint32_t word, size_t stride) {
    append_u32le(blob, word);
    blob.insert(blob.end(), stride - 4, 0);
}

uint32_t read_ctrl(const std::vector<uint8_t>& blob, size_t index, size_t stride) { return read_u32le(blob.data() + index * stride); }

bool ctrl_pad_is_zero(const std::vector<uint8_t>& blob, size_t index, size_t stride) {
    for (size_t b = 4; b < stride; ++b)
        if (blob[index * stride + b] != 0) return false;
    return true;
}

}  // namespace neuronsim::model::pwp
