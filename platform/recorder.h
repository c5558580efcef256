#pragma once
// Per-instruction records of a run, written as they complete: instructions.csv (one row per
// instruction: times, the stall and its cause, where it came from, what it moved; the
// columns are documented in traces/README.md) and timeline.json in the Chrome/Perfetto
// trace-event format (a track per engine and per DMA engine, stall slices, flow arrows from
// a releasing instruction to the one it released, counter tracks). Both are deterministic and
// optional; a simulated-time window limits them for long runs. A progress bar with an ETA is
// drawn on stderr when it is a terminal.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>

#include "model/common/progress_line.h"
#include "model/io/text_writer.h"
#include "neuronsim/device_options.h"
#include "model/isa/bundle.h"
#include "model/trace/assembler.h"

namespace neuronsim::platform {


// What one instruction did, as the engine that ran it saw it. Strings are pointers to
// long-lived names and text is formatted only when written: this runs once per instruction.
struct InstructionRecord {
    const std::string* engine = nullptr;
    uint64_t index = 0;
    uint8_t opcode = 0;
    const std::string* mnemonic = nullptr;
    sc_core::sc_time ready, start, end;  // reached by its engine, issued, done
    double clock_ghz = 1;
    bool sem_wait = false;               // it waited for `wait` (a semaphore condition)
    model::isa::Events wait;
    const std::string* busy_resource = nullptr;  // it queued behind this busy resource ("queue dma.0")
    bool dependency = false;                     // it waited for a result of released_by#released_index (its own engine)
    const std::string* released_by = nullptr;    // engine of the instruction whose update (or result) released the wait
    uint64_t released_index = 0;
    sc_core::sc_time released_at;
    const std::string* source_file = nullptr;    // the trace line it came from, when known
    uint64_t line = 0;
    const std::string* function = nullptr;       // ACT: the activation function (or set, kernel)
    uint64_t n = 0;                      // ACT/POOL: elements per partition
    uint64_t elements = 0, bytes = 0;    // elements computed, bytes moved
    double model_ns = -1;                // --cost-model: the estimate, or -1
    std::string model_formula;
    std::string model_why;               // ... why the simulation differs (cost_model.h divergence_reason)

    // "semaphore 3 >= 2", "busy queue dma.0", "data from act", "semaphore 3 >= 2, then data
    // from act", or "".
    std::string stall_cause() const;
    std::string source() const;          // "FILE:LINE" or ""
};

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

    // --cost-model: the instructions whose simulated time differs most from the estimate.
    struct Divergence {
        std::string instruction, mnemonic, source, formula;  // "act#3"
        double simulated_ns = 0, model_ns = 0;
        std::string why;
    };
    const std::vector<Divergence>& top_divergences() const { return top_; }

private:
    int track_id(const std::string& track);
    int engine_track(const std::string* engine);  // by the engine's long-lived label: no string compare
    void event_on(int track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end, const std::string& args_json);
    void event_head(int track, const sc_core::sc_time& start, const sc_core::sc_time& end);  // after the name: ph, pid, tid, ts, dur
    void csv_row(const InstructionRecord& r);
    void timeline_events(const InstructionRecord& r, int track);
    bool in_window(const sc_core::sc_time& start, const sc_core::sc_time& end) const;
    void event(const std::string& track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end,
               const std::string& args_json);

    std::unique_ptr<model::io::TextWriter> csv_, timeline_;  // null when not recorded (or finished)
    DeviceOptions opt_;
    std::map<std::string, int> tracks_;
    std::unordered_map<const std::string*, int> engine_tracks_;
    // Each engine track's last slice end: an instruction's slice starts no earlier, so that a
    // track shows each instruction's exclusive share of the engine's time (pipelined
    // instructions overlap); its args give its own start and end.
    std::unordered_map<int, sc_core::sc_time> track_end_;
    std::unordered_map<const std::string*, std::unique_ptr<model::trace::SourceLines>> sources_;
    uint64_t total_, completed_ = 0, flows_ = 0;
    std::vector<Divergence> top_;  // largest |simulated - model| first, at most 5
    std::string cause_buf_;  // reused: the rare stall causes that need quoting
    ProgressLine progress_;
};

std::string json_escape(const std::string& s);

}  // namespace neuronsim::platform
