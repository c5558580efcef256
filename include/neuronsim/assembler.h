#pragma once
// neuronsim's public API: one line of the text trace format (traces/README.md) as the 64-byte
// bundle an instruction queue holds, so a host or driver can build its programs. Standard
// C++ only.
#include <array>
#include <cstdint>
#include <string>

namespace neuronsim {

struct AssembledInstruction {
    std::string engine;  // the stream it belongs to: act, pool, dma<E>, dma<E>.<Q>
    std::array<uint8_t, 64> bundle{};
};

// E.g. "dma0 copy src=dram:0x0 dst=sbuf:0:0x0 partitions=128 bytes=64 update=0+1". Throws
// std::runtime_error naming the field and what was expected.
AssembledInstruction assemble_instruction(const std::string& line);

}  // namespace neuronsim
