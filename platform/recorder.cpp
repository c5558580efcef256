#include "platform/recorder.h"

#include <cerrno>
#include <cmath>
#include <cstring>

#include "model/common/error.h"

namespace neuronsim::platform {

std::string json_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
            continue;
        }
        o += c;
    }
    return o;
}

namespace {

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_text(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string o = "\"";
    for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
    return o + "\"";
}

double ns(const sc_core::sc_time& t) { return t.to_seconds() * 1e9; }

}  // namespace

Recorder::Recorder(const std::string& out_dir, uint64_t total, const RecorderOptions& options) : opt_(options), total_(total) {
    if (opt_.csv) {
        csv_path_ = out_dir + "/instructions.csv";
        csv_ = std::fopen(csv_path_.c_str(), "w");
        if (!csv_) throw Error(csv_path_ + ": cannot create: " + std::strerror(errno));
        std::fputs("engine,index,opcode,mnemonic,start_ns,end_ns,start_cycle,end_cycle,ready_ns,stall_ns,stall_cause,released_by,source,"
                   "function,n,elements,bytes",
                   csv_);
        std::fputs(opt_.cost_model ? ",model_ns,model_formula,sim_minus_model_ns\n" : "\n", csv_);
    }
    if (opt_.timeline) {
        timeline_path_ = out_dir + "/timeline.json";
        timeline_ = std::fopen(timeline_path_.c_str(), "w");
        if (!timeline_) throw Error(timeline_path_ + ": cannot create: " + std::strerror(errno));
        std::fprintf(timeline_, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, "
                                "\"args\": {\"name\": \"%s\"}}",
                     json_escape(opt_.process_name).c_str());
    }
    start_wall_ = last_draw_ = std::chrono::steady_clock::now();
}

Recorder::~Recorder() {
    try {
        finish();
    } catch (const Error&) {  // a destructor cannot report; run() calls finish() and does
    }
}

int Recorder::track_id(const std::string& track) {
    auto it = tracks_.find(track);
    if (it != tracks_.end()) return it->second;
    int id = static_cast<int>(tracks_.size()) + 1;
    tracks_[track] = id;
    std::fprintf(timeline_, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"args\": {\"name\": \"%s\"}}", id,
                 json_escape(track).c_str());
    return id;
}

bool Recorder::in_window(const sc_core::sc_time& start, const sc_core::sc_time& end) const {
    return end >= opt_.window_start && start <= opt_.window_end;
}

void Recorder::event(const std::string& track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end,
                     const std::string& args) {
    if (!timeline_ || !in_window(start, end)) return;
    int id = track_id(track);
    // Microseconds with picosecond digits: exact for the 1 ps time resolution.
    const double ts = start.to_seconds() * 1e6, dur = (end - start).to_seconds() * 1e6;
    std::fprintf(timeline_, ",\n{\"name\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"ts\": %.6f, \"dur\": %.6f%s%s}",
                 json_escape(name).c_str(), id, ts, dur, args.empty() ? "" : ", \"args\": ", args.c_str());
}

void Recorder::instruction(const InstructionRecord& r) {
    const std::string& engine = *r.engine;
    const bool shown = in_window(r.ready, r.end);
    const std::string released = r.released_by ? *r.released_by + "#" + std::to_string(r.released_index) : "";
    if (csv_ && shown) {
        const double s = ns(r.start), e = ns(r.end);
        std::fprintf(csv_, "%s,%llu,0x%02x,%s,%.3f,%.3f,%llu,%llu,%.3f,%.3f,%s,%s,%s,%s,%llu,%llu,%llu", engine.c_str(),
                     static_cast<unsigned long long>(r.index), r.opcode, r.mnemonic.c_str(), s, e,
                     static_cast<unsigned long long>(std::llround(s * r.clock_ghz)), static_cast<unsigned long long>(std::llround(e * r.clock_ghz)),
                     ns(r.ready), ns(r.start - r.ready), csv_text(r.stall_cause).c_str(), released.c_str(), csv_text(r.source).c_str(),
                     csv_text(r.function).c_str(), static_cast<unsigned long long>(r.n), static_cast<unsigned long long>(r.elements),
                     static_cast<unsigned long long>(r.bytes));
        if (opt_.cost_model) {
            if (r.model_ns >= 0) std::fprintf(csv_, ",%.3f,%s,%.3f\n", r.model_ns, csv_text(r.model_formula).c_str(), e - s - r.model_ns);
            else std::fputs(",,,\n", csv_);
        }
        else std::fputc('\n', csv_);
    }
    if (timeline_ && shown) {
        const int id = track_id(engine);
        if (r.start > r.ready) {
            event(engine, "stall: " + r.stall_cause, r.ready, r.start,
                  released.empty() ? "" : "{\"released_by\": \"" + json_escape(released) + "\"}");
            if (r.released_by && tracks_.count(*r.released_by)) {  // a flow arrow from the releasing update
                ++flows_;
                std::fprintf(timeline_, ",\n{\"name\": \"release\", \"cat\": \"semaphore\", \"ph\": \"s\", \"id\": %llu, \"pid\": 1, \"tid\": %d, \"ts\": %.6f}",
                             static_cast<unsigned long long>(flows_), tracks_[*r.released_by], r.released_at.to_seconds() * 1e6);
                std::fprintf(timeline_, ",\n{\"name\": \"release\", \"cat\": \"semaphore\", \"ph\": \"f\", \"bp\": \"e\", \"id\": %llu, \"pid\": 1, \"tid\": %d, \"ts\": %.6f}",
                             static_cast<unsigned long long>(flows_), id, r.start.to_seconds() * 1e6);
            }
        }
        std::string name = r.mnemonic;
        if (!r.function.empty()) name += " " + r.function;
        if (r.n) name += " N=" + std::to_string(r.n);
        std::string args = "{\"index\": " + std::to_string(r.index) + ", \"opcode\": \"0x";
        char op[4];
        std::snprintf(op, sizeof op, "%02x", r.opcode);
        args += std::string(op) + "\"";
        if (!r.source.empty()) args += ", \"source\": \"" + json_escape(r.source) + "\"";
        if (r.elements) args += ", \"elements\": " + std::to_string(r.elements);
        if (r.bytes) args += ", \"bytes\": " + std::to_string(r.bytes);
        event(engine, name, r.start, r.end, args + "}");
    }
    if (opt_.cost_model && r.model_ns >= 0) {
        const double sim = ns(r.end - r.start), diff = std::fabs(sim - r.model_ns);
        if (top_.size() < 5 || diff > std::fabs(top_.back().simulated_ns - top_.back().model_ns)) {
            Divergence d{engine + "#" + std::to_string(r.index), r.mnemonic, r.source, r.model_formula, sim, r.model_ns};
            auto at = top_.begin();
            while (at != top_.end() && std::fabs(at->simulated_ns - at->model_ns) >= diff) ++at;  // ties: the earlier first
            top_.insert(at, std::move(d));
            if (top_.size() > 5) top_.pop_back();
        }
    }
    ++completed_;
    if (opt_.progress) progress();
}

void Recorder::slice(const std::string& track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end,
                     const std::string& args) {
    event(track, name, start, end, args);
}

void Recorder::counter(const std::string& name, const sc_core::sc_time& at, double value) {
    if (!timeline_ || at < opt_.window_start || at > opt_.window_end) return;
    std::fprintf(timeline_, ",\n{\"name\": \"%s\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.6f, \"args\": {\"value\": %.17g}}", json_escape(name).c_str(),
                 at.to_seconds() * 1e6, value);
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
    std::string failed;
    if (csv_) {
        if (std::ferror(csv_) | std::fclose(csv_)) failed = csv_path_;
        csv_ = nullptr;
    }
    if (timeline_) {
        std::fputs("\n]}\n", timeline_);
        if (std::ferror(timeline_) | std::fclose(timeline_)) failed = timeline_path_;
        timeline_ = nullptr;
    }
    if (opt_.progress) {
        std::fprintf(stderr, "\r%90s\r", "");
        opt_.progress = false;
    }
    if (!failed.empty()) throw Error(failed + ": write error (disk full or file size limit?): the file is incomplete");
}

}  // namespace neuronsim::platform
