#pragma once
// instructions.csv: one row per instruction (columns in traces/README.md), with the
// --cost-model columns when asked; written to a temporary name and renamed into place by
// commit(), so the file is complete or absent.
#include <memory>
#include <string>

#include "model/io/text_writer.h"
#include "platform/record/instruction_record.h"

namespace neuronsim::platform::record {

class InstructionCsv {
public:
    InstructionCsv(const std::string& path, bool cost_model);
    void row(const InstructionRecord& r);
    void commit();  // throws naming the file when a write failed

private:
    std::unique_ptr<model::io::TextWriter> out_;
    bool cost_model_;
};

}  // namespace neuronsim::platform::record
