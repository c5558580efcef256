#include "platform/recorder.h"

#include <cerrno>
#include <cmath>
#include <cstring>

#include "model/common/error.h"

namespace neuronsim::platform {

static std::string json_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        o += c;
    }
    return o;
}

Recorder::Recorder(const std::string& out_dir, uint64_t total, bool progress) : total_(total), progress_(progress) {
    csv_ = std::fopen((out_dir + "/instructions.csv").c_str(), "w");
    timeline_ = std::fopen((out_dir + "/timeline.json").c_str(), "w");
    if (!csv_ || !timeline_) throw Error(out_dir + ": cannot create instructions.csv / timeline.json: " + std::strerror(errno));
    std::fputs("engine,index,opcode,mnemonic,start_ns,end_ns,start_cycle,end_cycle\n", csv_);
    std::fputs("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n", timeline_);
    start_wall_ = last_draw_ = std::chrono::steady_clock::now();
}

Recorder::~Recorder() { finish(); }

int Recorder::track_id(const std::string& track) {
    auto it = tracks_.find(track);
    if (it != tracks_.end()) return it->second;
    int id = static_cast<int>(tracks_.size()) + 1;
    tracks_[track] = id;
    std::fprintf(timeline_, "%s{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"args\": {\"name\": \"%s\"}}",
                 first_event_ ? "" : ",\n", id, json_escape(track).c_str());
    first_event_ = false;
    return id;
}

void Recorder::event(const std::string& track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end,
                     const std::string& args) {
    int id = track_id(track);
    // Microseconds with picosecond digits: exact for the 1 ps time resolution.
    const double ts = start.to_seconds() * 1e6, dur = (end - start).to_seconds() * 1e6;
    std::fprintf(timeline_, ",\n{\"name\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"ts\": %.6f, \"dur\": %.6f%s%s}",
                 json_escape(name).c_str(), id, ts, dur, args.empty() ? "" : ", \"args\": ", args.c_str());
}

void Recorder::instruction(const std::string& engine, uint64_t index, uint8_t opcode, const std::string& mnemonic,
                           const sc_core::sc_time& start, const sc_core::sc_time& end, double ghz) {
    const double s = start.to_seconds() * 1e9, e = end.to_seconds() * 1e9;
    std::fprintf(csv_, "%s,%llu,0x%02x,%s,%.3f,%.3f,%llu,%llu\n", engine.c_str(), static_cast<unsigned long long>(index), opcode,
                 mnemonic.c_str(), s, e, static_cast<unsigned long long>(std::llround(s * ghz)),
                 static_cast<unsigned long long>(std::llround(e * ghz)));
    char args[96];
    std::snprintf(args, sizeof args, "{\"index\": %llu, \"opcode\": \"0x%02x\"}", static_cast<unsigned long long>(index), opcode);
    event(engine, mnemonic, start, end, args);
    ++completed_;
    if (progress_) progress();
}

void Recorder::slice(const std::string& track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end,
                     const std::string& args) {
    event(track, name, start, end, args);
}

void Recorder::progress() {
    auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ < std::chrono::milliseconds(200) && completed_ != total_) return;
    last_draw_ = now;
    const double frac = total_ ? static_cast<double>(completed_) / static_cast<double>(total_) : 1.0;
    const double el = std::chrono::duration<double>(now - start_wall_).count();
    const int width = 30, filled = static_cast<int>(frac * width);
    std::fprintf(stderr, "\r[%.*s%*s] %5.1f%%  %llu/%llu instructions  ETA %.0f s ", filled, "==============================",
                 width - filled, "", 100 * frac, static_cast<unsigned long long>(completed_), static_cast<unsigned long long>(total_),
                 frac > 0 ? el / frac - el : 0.0);
}

void Recorder::finish() {
    if (csv_) std::fclose(csv_), csv_ = nullptr;
    if (timeline_) {
        std::fputs("\n]}\n", timeline_);
        std::fclose(timeline_);
        timeline_ = nullptr;
    }
    if (progress_) {
        std::fprintf(stderr, "\r%90s\r", "");
        progress_ = false;
    }
}

}  // namespace neuronsim::platform
