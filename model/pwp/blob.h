#pragma once
// The two on-device blobs of a function set (seed 000 §2, §4): 32-byte bucket records
// [d0, d1, d2, d3, x] + 12 zero bytes, and packed uint32 control words
// (extract_size << 16) | (extract_lsb << 11) | bkt_base, padded to the target's stride.
#include <cstdint>
#include <string>
#include <vector>

#include "model/pwp/profile.h"

namespace neuronsim::model::pwp {

inline constexpr size_t kBktRecordBytes = 32;
inline constexpr uint32_t kBktBaseMax = 0x7FF;  // 11-bit field
inline constexpr uint32_t kExtractSizeMax = 15;  // the CONTROL table's 4-bit field (§A.6)

enum class Target { Trainium, WithLn };
size_t ctrl_stride(Target t);  // 32 trainium, 16 with_ln
std::string target_name(Target t);  // "trainium" / "with_ln"
Target parse_target(const std::string& name);  // error names the value

struct CtrlWord {
    uint32_t bkt_base = 0, extract_lsb = 0, extract_size = 0, reserved = 0;
};

uint32_t pack_ctrl(uint32_t bkt_base, uint32_t extract_size);  // lsb derived: 23 - size
uint32_t pack_ctrl_sentinel(uint32_t bkt_base);  // empty octave: lsb = size = 0
CtrlWord unpack_ctrl(uint32_t word);

void append_bkt(std::vector<uint8_t>& blob, const Section& s);
Section read_bkt(const std::vector<uint8_t>& blob, size_t index);
Section read_bkt_record(const uint8_t* record);  // one 32-byte record
bool bkt_pad_is_zero(const std::vector<uint8_t>& blob, size_t index);

void append_ctrl(std::vector<uint8_t>& blob, uint32_t word, size_t stride);
uint32_t read_ctrl(const std::vector<uint8_t>& blob, size_t index, size_t stride);
bool ctrl_pad_is_zero(const std::vector<uint8_t>& blob, size_t index, size_t stride);

uint32_t read_u32le(const uint8_t* p);
void append_u32le(std::vector<uint8_t>& out, uint32_t v);

}  // namespace neuronsim::model::pwp
