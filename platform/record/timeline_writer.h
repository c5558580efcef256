#pragma once
// timeline.json in the Chrome/Perfetto trace-event format: a track per engine and per DMA
// engine, an instruction's slice showing its exclusive share of its engine's time, stall
// slices with flow arrows from the releasing instruction, other slices (transfers, table
// loads) and counter tracks. Written to a temporary name; commit() closes the JSON and renames
// it into place, so the file is complete or absent.
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include <systemc>

#include "model/io/text_writer.h"
#include "platform/record/instruction_record.h"

namespace neuronsim::platform::record {

class TimelineWriter {
public:
    TimelineWriter(const std::string& path, const std::string& process_name);
    void instruction(const InstructionRecord& r);
    void slice(const std::string& track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end, const std::string& args_json);
    void counter(const std::string& name, const sc_core::sc_time& at, double value);
    void commit();  // throws naming the file when a write failed

private:
    int track_id(const std::string& track);
    int engine_track(const std::string* engine);  // by the engine's long-lived label: no string compare
    void event_head(int track, const sc_core::sc_time& start, const sc_core::sc_time& end);  // after the name: ph, pid, tid, ts, dur

    std::unique_ptr<model::io::TextWriter> out_;
    std::map<std::string, int> tracks_;
    std::unordered_map<const std::string*, int> engine_tracks_;
    // Each engine track's last slice end: an instruction's slice starts no earlier, so that a
    // track shows each instruction's exclusive share of the engine's time (pipelined
    // instructions overlap); its args give its own start and end.
    std::unordered_map<int, sc_core::sc_time> track_end_;
    uint64_t flows_ = 0;
};

}  // namespace neuronsim::platform::record
