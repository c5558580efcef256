#include "platform/record/instruction_csv.h"

#include <cmath>
#include <cstdio>

#include "platform/record/record_text.h"

namespace neuronsim::platform::record {

InstructionCsv::InstructionCsv(const std::string& path, bool cost_model) : out_(std::make_unique<TextWriter>(path)), cost_model_(cost_model) {
    out_->lit(
        "engine,index,opcode,mnemonic,start_ns,end_ns,start_cycle,end_cycle,ready_ns,stall_ns,stall_cause,released_by,source,"
        "function,n,elements,bytes");
    if (cost_model_) out_->lit(",model_ns,model_formula,sim_minus_model_ns\n");
    else out_->put('\n');
}

void InstructionCsv::row(const InstructionRecord& r) {
    TextWriter& o = *out_;
    o.put(*r.engine);
    o.put(',');
    o.u64(r.index);
    o.put(',');
    put_hex2(o, r.opcode);
    o.put(',');
    o.put(*r.mnemonic);
    o.put(',');
    put_ns(o, r.start);
    o.put(',');
    put_ns(o, r.end);
    o.put(',');
    o.u64(static_cast<uint64_t>(std::llround(ns(r.start) * r.clock_ghz)));
    o.put(',');
    o.u64(static_cast<uint64_t>(std::llround(ns(r.end) * r.clock_ghz)));
    o.put(',');
    put_ns(o, r.ready);
    o.put(',');
    put_ns(o, r.start - r.ready);
    o.put(',');
    if (r.sem_wait && !r.busy_resource && !r.dependency) put_semaphore(o, r.wait);
    else if (r.start > r.ready && (r.busy_resource || r.dependency)) put_csv(o, r.stall_cause());  // "..., then busy X" holds a comma
    o.put(',');
    if (r.released_by) {
        o.put(*r.released_by);
        o.put('#');
        o.u64(r.released_index);
    }
    o.put(',');
    if (r.source_file && r.line) {
        if (csv_plain(*r.source_file)) {
            o.put(*r.source_file);
            o.put(':');
            o.u64(r.line);
        } else {
            put_csv(o, r.source());
        }
    }
    o.put(',');
    if (r.function) put_csv(o, *r.function);
    o.put(',');
    o.u64(r.n);
    o.put(',');
    o.u64(r.elements);
    o.put(',');
    o.u64(r.bytes);
    if (cost_model_) {
        if (r.model_ns >= 0) {
            char b[64];
            o.put(b, static_cast<size_t>(std::snprintf(b, sizeof b, ",%.3f,", r.model_ns)));
            put_csv(o, r.model_formula);
            o.put(b, static_cast<size_t>(std::snprintf(b, sizeof b, ",%.3f", ns(r.end - r.start) - r.model_ns)));
        } else {
            o.lit(",,,");
        }
    }
    o.put('\n');
}

void InstructionCsv::commit() { out_->commit(); }

}  // namespace neuronsim::platform::record
