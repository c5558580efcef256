#pragma once
// A run's per-instruction records, as instructions complete: it names each instruction's
// trace line, limits the recordings to a simulated-time window, and passes each record to what
// the device's options ask for: instructions.csv (record/instruction_csv.h), timeline.json
// (record/timeline_writer.h), the --cost-model ranking (record/divergence_ranking.h), and the
// progress line on stderr when it is a terminal. Both files are deterministic and optional.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>

#include "model/common/progress_line.h"
#include "model/trace/assembler.h"
#include "neuronsim/device_options.h"
#include "platform/record/divergence_ranking.h"
#include "platform/record/instruction_record.h"

namespace neuronsim::platform {

namespace record {
class InstructionCsv;
class TimelineWriter;
}  // namespace record

class Recorder {
public:
    // What it records and where: the device's options (record_dir, record_csv/_timeline,
    // cost_model, window_*, progress over progress_total); the timeline names `process_name`.
    Recorder(const DeviceOptions& options, const std::string& process_name);
    ~Recorder();

    void instruction(InstructionRecord& r);  // fills in the source line when it has one
    // An instruction of `engine` that will not be recorded (it failed): its trace line is passed.
    void skip(const std::string* engine);
    // The trace lines of an engine's instructions (an <engine>.lines file, read in order).
    void set_source_lines(const std::string* engine, const std::string& lines_path);
    // Any other slice on a named track (DMA transfers, table loads).
    void slice(const std::string& track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end,
               const std::string& args_json = "");
    // A counter track's value from time `at` on.
    void counter(const std::string& name, const sc_core::sc_time& at, double value);
    // Closes the files; throws naming the file when a write failed. Idempotent.
    void finish();

    uint64_t completed() const { return completed_; }
    bool cost_model() const { return opt_.cost_model; }

    using Divergence = record::Divergence;
    const std::vector<Divergence>& top_divergences() const { return divergences_.top(); }

private:
    bool in_window(const sc_core::sc_time& start, const sc_core::sc_time& end) const;

    std::unique_ptr<record::InstructionCsv> csv_;  // null when not recorded (or finished)
    std::unique_ptr<record::TimelineWriter> timeline_;  // null when not recorded (or finished)
    DeviceOptions opt_;
    std::unordered_map<const std::string*, std::unique_ptr<model::trace::SourceLines>> sources_;
    uint64_t total_, completed_ = 0;
    record::DivergenceRanking divergences_;
    ProgressLine progress_;
};

}  // namespace neuronsim::platform
