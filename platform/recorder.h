#pragma once
// Per-instruction records of a run, written as they complete: instructions.csv (engine,
// index, opcode, mnemonic, start/end in ns and in the engine's cycles) and timeline.json in
// the Chrome/Perfetto trace-event format (one track per engine and per DMA engine). Both are
// deterministic. A progress bar with an ETA is drawn on stderr when it is a terminal.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include <systemc>

namespace neuronsim::platform {

class Recorder {
public:
    Recorder(const std::string& out_dir, uint64_t total_instructions, bool progress);
    ~Recorder();

    void instruction(const std::string& engine, uint64_t index, uint8_t opcode, const std::string& mnemonic,
                     const sc_core::sc_time& start, const sc_core::sc_time& end, double clock_ghz);
    // Any other slice on a named track (DMA transfers, table loads).
    void slice(const std::string& track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end,
               const std::string& args_json = "");
    void finish();  // closes the files; idempotent

    uint64_t completed() const { return completed_; }

private:
    int track_id(const std::string& track);
    void event(const std::string& track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end,
               const std::string& args_json);
    void progress();

    std::FILE* csv_ = nullptr;
    std::FILE* timeline_ = nullptr;
    bool first_event_ = true;
    std::map<std::string, int> tracks_;
    uint64_t total_, completed_ = 0;
    bool progress_;
    std::chrono::steady_clock::time_point start_wall_, last_draw_;
};

}  // namespace neuronsim::platform
