// neuronsim/assembler.h: the trace format's instruction lines, through the model's reader.
#include <cstring>

#include "model/common/error.h"
#include "model/trace/trace_reader.h"
#include "neuronsim/assembler.h"

namespace neuronsim {

AssembledInstruction assemble_instruction(const std::string& line) {
    auto r = model::trace::parse_trace_line(line, "instruction", 1, ".");
    if (!r || r->kind != model::trace::Record::Kind::Instruction) throw Error("\"" + line + "\" is not an instruction line");
    AssembledInstruction a;
    a.engine = r->instruction.engine;
    std::memcpy(a.bundle.data(), r->instruction.bundle.b.data(), 64);
    return a;
}

}  // namespace neuronsim
