#pragma once
// The instruction set the trace assembler and disassembler know: per opcode its mnemonic,
// the engines that execute it, and its operand fields with their bundle offsets (taken from
// the layouts of layouts.h). Text form of an instruction:
//   ENGINE MNEMONIC [field=value]... [wait=S>=V|S==V] [update=S+1|S-1|S=V]
// Fields left out are zero. `raw=<128 hex digits>` gives a whole bundle, `events=<16 hex
// digits>` the EVENTS bytes 4..11 when wait=/update= cannot say them (a mode "none" with a
// semaphore index). A DMA endpoint is SPACE:P:OFF, dram:ADDR or SPACE@ADDR (the space byte
// and 64-bit address as they are); an ADDR4 operand also takes its raw number.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/isa/bundle.h"

namespace neuronsim::model::isa {

enum class FieldKind {
    U8,
    U16,
    U32,
    U64,
    F32,  // 4 bytes: a float (decimal or 0x bit pattern)
    Addr4,  // SBUF/PSUM address: sbuf:P:OFF / psum:P:OFF / raw number
    I16x,  // `count` int16 values, comma-separated
    U16x,  // `count` uint16 values
    SpaceAddr,  // DMA endpoint: space byte at `offset`, 64-bit address at `offset2`
};

struct Field {
    std::string name;
    uint16_t offset;
    FieldKind kind;
    uint8_t count = 1;
    uint16_t offset2 = 0;
};

enum EngineMask : uint32_t { kOnAct = 1, kOnPool = 2, kOnDma = 4, kOnDve = 8, kOnPe = 16, kOnAll = 31 };

struct OpcodeInfo {
    uint8_t opcode;
    std::string mnemonic;
    uint32_t engines;
    std::string summary;
    std::vector<Field> fields;
};

const std::vector<OpcodeInfo>& opcode_table();
const OpcodeInfo* find_opcode(uint8_t opcode);
const OpcodeInfo* find_mnemonic(const std::string& mnemonic);

// Reading a bundle's operands by the table, so that code which only needs what an operand is
// (the advisor's dependencies, the cost model's instruction class) serves every instruction the
// table lists without a case of its own.
const Field* find_field(const OpcodeInfo& op, const std::string& name);
// A U8/U16/U32/U64/Addr4 field's value; nullopt when the opcode has no such field.
std::optional<uint64_t> field_value(const OpcodeInfo& op, const Bundle& b, const std::string& name);
// A tensor operand (the fields NAME, NAME.step, NAME.num): its ADDR4, steps and counts in
// elements, `dims` of them (the rest 0 and 1); nullopt when the opcode has none.
struct TensorOperand {
    uint32_t addr4 = 0;
    int16_t step[3] = {0, 0, 0};
    uint16_t num[3] = {1, 1, 1};
    int dims = 0;
};
std::optional<TensorOperand> tensor_operand(const OpcodeInfo& op, const Bundle& b, const std::string& name);
// An activation of the ACT engine: an ACT instruction with a src and a dst tensor and a
// function (Activate, ActivateQuantize, Activate2, and any later one of the kind).
bool is_activation(const OpcodeInfo& op);

// Engine stream names: "act", "pool", "dve", "pe", "dma<E>", "dma<E>.<Q>", "dma" or "dma.<Q>". Returns the
// mask class or 0.
uint32_t engine_class(const std::string& engine);

// A stream's name: "act", "pool", "dve", "pe", "dma<E>" (queue 0) or "dma<E>.<Q>" (every transfer on DMA
// engine E), "dma" (queue 0) or "dma.<Q>" (transfers spread over the engines by partition);
// cls 0 when it is none.
struct StreamName {
    uint32_t cls = 0;
    uint32_t dma_engine = 0, dma_queue = 0;
    bool spread = false;
};
StreamName parse_stream_name(const std::string& engine);

// Encodes one instruction from its text fields (already split: "key=value"). Errors are
// plain messages; the caller adds file:line.
Bundle assemble(const std::string& engine, const std::string& mnemonic, const std::vector<std::string>& fields);

// The text form; re-assembling it gives the same 64 bytes, for any 64 bytes (what fields
// cannot say exactly is written raw).
std::string disassemble(const std::string& engine, const Bundle& b);

}  // namespace neuronsim::model::isa
