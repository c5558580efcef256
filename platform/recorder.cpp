#include "platform/recorder.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include "model/common/error.h"
#include "model/isa/opcodes.h"

namespace neuronsim::platform {

// Appends s to o, escaped for a JSON string; most names need no escaping.
static void json_escape_into(std::string& o, const std::string& s) {
    bool plain = true;
    for (char c : s) plain = plain && c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20;
    if (plain) {
        o += s;
        return;
    }
    o += json_escape(s);
}

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

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. Appended in
// place: the per-instruction rows allocate nothing.
void put_csv(std::string& o, const std::string& s) {
    bool plain = true;
    for (char c : s) plain = plain && c != ',' && c != '"' && c != '\r' && c != '\n';
    if (plain) {
        o += s;
        return;
    }
    o += '"';
    for (char c : s) {
        if (c == '"') o += '"';
        o += c;
    }
    o += '"';
}

// "0x" and two lowercase hex digits, as printf's 0x%02x of a byte.
void put_hex2(std::string& o, uint8_t v) {
    static const char digits[] = "0123456789abcdef";
    const char b[4] = {'0', 'x', digits[v >> 4], digits[v & 15]};
    o.append(b, 4);
}

double ns(const sc_core::sc_time& t) { return t.to_seconds() * 1e9; }

// Fast, exact text for the per-instruction rows (printf's float formatting dominated them):
// times are integer picoseconds, so ns with 3 decimals and us with 6 are integer arithmetic.
void put_u(std::string& o, uint64_t v) {
    char b[24];
    auto r = std::to_chars(b, b + sizeof b, v);
    o.append(b, r.ptr);
}
void put_fixed(std::string& o, uint64_t ps, uint64_t unit, int digits) {
    // Integer part, '.', then exactly `digits` fraction digits, built right to left in one
    // buffer and appended once.
    char b[48];
    char* end = b + sizeof b;
    char* p = end;
    uint64_t frac = ps % unit;
    for (int d = 0; d < digits; ++d, frac /= 10) *--p = static_cast<char>('0' + frac % 10);
    *--p = '.';
    uint64_t whole = ps / unit;
    do {
        *--p = static_cast<char>('0' + whole % 10);
        whole /= 10;
    } while (whole);
    o.append(p, end);
}
void put_ns(std::string& o, const sc_core::sc_time& t) { put_fixed(o, t.value(), 1000, 3); }
void put_us(std::string& o, const sc_core::sc_time& t) { put_fixed(o, t.value(), 1000000, 6); }

void write(std::FILE* f, const std::string& s) { std::fwrite(s.data(), 1, s.size(), f); }

}  // namespace

std::string InstructionRecord::stall_cause() const {
    std::string c;
    stall_cause_into(c);
    return c;
}

void InstructionRecord::stall_cause_into(std::string& c) const {
    c.clear();
    if (sem_wait) {
        c = "semaphore ";
        put_u(c, wait.wait_idx);
        c += wait.wait == model::isa::WaitMode::Eq ? " == " : " >= ";
        const int32_t v = static_cast<int32_t>(wait.value);
        if (v < 0) c += '-';
        put_u(c, v < 0 ? 0ull - static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v));
    }
    if (busy_resource) {
        c += c.empty() ? "busy " : ", then busy ";
        c += *busy_resource;
    }
}

std::string InstructionRecord::source() const { return source_file && line ? *source_file + ":" + std::to_string(line) : ""; }

Recorder::Recorder(const std::string& out_dir, uint64_t total, const RecorderOptions& options) : opt_(options), total_(total) {
    if (opt_.csv) {
        csv_path_ = out_dir + "/instructions.csv";
        csv_ = std::fopen((csv_path_ + ".tmp").c_str(), "w");  // renamed into place when complete
        if (!csv_) throw Error(csv_path_ + ": cannot create: " + std::strerror(errno));
        std::setvbuf(csv_, nullptr, _IOFBF, 1 << 20);
        std::fputs("engine,index,opcode,mnemonic,start_ns,end_ns,start_cycle,end_cycle,ready_ns,stall_ns,stall_cause,released_by,source,"
                   "function,n,elements,bytes",
                   csv_);
        std::fputs(opt_.cost_model ? ",model_ns,model_formula,sim_minus_model_ns\n" : "\n", csv_);
    }
    if (opt_.timeline) {
        timeline_path_ = out_dir + "/timeline.json";
        timeline_ = std::fopen((timeline_path_ + ".tmp").c_str(), "w");
        if (!timeline_) throw Error(timeline_path_ + ": cannot create: " + std::strerror(errno));
        std::setvbuf(timeline_, nullptr, _IOFBF, 1 << 20);
        std::fprintf(timeline_, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, "
                                "\"args\": {\"name\": \"%s\"}}",
                     json_escape(opt_.process_name).c_str());
    }
    start_wall_ = last_draw_ = std::chrono::steady_clock::now();
}

Recorder::~Recorder() {
    // Not finished (the run failed): the partial files are not outputs.
    for (std::FILE** f : {&csv_, &timeline_})
        if (*f) std::fclose(*f), *f = nullptr;
    if (!csv_path_.empty()) std::remove((csv_path_ + ".tmp").c_str());
    if (!timeline_path_.empty()) std::remove((timeline_path_ + ".tmp").c_str());
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

int Recorder::engine_track(const std::string* engine) {
    auto it = engine_tracks_.find(engine);
    if (it != engine_tracks_.end()) return it->second;
    return engine_tracks_[engine] = track_id(*engine);
}

void Recorder::event(const std::string& track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end,
                     const std::string& args) {
    if (!timeline_ || !in_window(start, end)) return;
    event_on(track_id(track), name, start, end, args);
}

void Recorder::event_on(int id, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end, const std::string& args) {
    std::string& o = event_buf_;  // reused: no allocation per event
    o.assign(",\n{\"name\": \"");
    json_escape_into(o, name);
    o += "\", \"ph\": \"X\", \"pid\": 1, \"tid\": ";
    put_u(o, static_cast<uint64_t>(id));
    o += ", \"ts\": ";
    put_us(o, start);  // microseconds with picosecond digits: exact
    o += ", \"dur\": ";
    put_us(o, end - start);
    if (!args.empty()) {
        o += ", \"args\": ";
        o += args;
    }
    o += '}';
    write(timeline_, o);
}

void Recorder::set_source_lines(const std::string* engine, const std::string& lines_path) {
    sources_[engine] = std::make_unique<model::trace::SourceLines>(lines_path, true);
}

void Recorder::instruction(InstructionRecord& r) {
    if (!r.source_file) {
        auto it = sources_.find(r.engine);
        if (it != sources_.end()) {
            r.line = it->second->next();
            r.source_file = &it->second->source();
        }
    }
    const std::string& engine = *r.engine;
    const bool shown = in_window(r.ready, r.end);
    std::string& released = released_buf_;
    released.clear();
    if (r.released_by) {
        released.assign(*r.released_by);
        released += '#';
        put_u(released, r.released_index);
    }
    const bool stalled = r.start > r.ready;
    std::string& cause = cause_buf_;
    r.stall_cause_into(cause);
    std::string& o = row_buf_;
    o.clear();
    if (csv_ && shown) {
        o += engine;
        o += ',';
        put_u(o, r.index);
        o += ',';
        put_hex2(o, r.opcode);
        o += ',';
        o += *r.mnemonic;
        o += ',';
        put_ns(o, r.start);
        o += ',';
        put_ns(o, r.end);
        o += ',';
        put_u(o, static_cast<uint64_t>(std::llround(ns(r.start) * r.clock_ghz)));
        o += ',';
        put_u(o, static_cast<uint64_t>(std::llround(ns(r.end) * r.clock_ghz)));
        o += ',';
        put_ns(o, r.ready);
        o += ',';
        put_ns(o, r.start - r.ready);
        o += ',';
        put_csv(o, cause);
        o += ',';
        o += released;
        o += ',';
        if (r.source_file && r.line) {
            if (r.source_file->find_first_of(",\"\r\n") == std::string::npos) {
                o += *r.source_file;
                o += ':';
                put_u(o, r.line);
            } else {
                put_csv(o, r.source());
            }
        }
        o += ',';
        if (r.function) put_csv(o, *r.function);
        o += ',';
        put_u(o, r.n);
        o += ',';
        put_u(o, r.elements);
        o += ',';
        put_u(o, r.bytes);
        if (opt_.cost_model) {
            if (r.model_ns >= 0) {
                char b[64];
                std::snprintf(b, sizeof b, ",%.3f,", r.model_ns);
                o += b;
                put_csv(o, r.model_formula);
                std::snprintf(b, sizeof b, ",%.3f", ns(r.end - r.start) - r.model_ns);
                o += b;
            } else {
                o += ",,,";
            }
        }
        o += '\n';
        write(csv_, o);
    }
    if (timeline_ && shown) {
        const int id = engine_track(r.engine);
        if (stalled) {
            name_buf_.assign("stall: ");
            name_buf_ += cause;
            args_buf_.clear();
            if (!released.empty()) {
                args_buf_.assign("{\"released_by\": \"");
                json_escape_into(args_buf_, released);
                args_buf_ += "\"}";
            }
            event_on(id, name_buf_, r.ready, r.start, args_buf_);
            auto from = r.released_by ? engine_tracks_.find(r.released_by) : engine_tracks_.end();
            if (from != engine_tracks_.end()) {  // a flow arrow from the releasing update
                ++flows_;
                o = ",\n{\"name\": \"release\", \"cat\": \"semaphore\", \"ph\": \"s\", \"id\": ";
                put_u(o, flows_);
                o += ", \"pid\": 1, \"tid\": ";
                put_u(o, static_cast<uint64_t>(from->second));
                o += ", \"ts\": ";
                put_us(o, r.released_at);
                o += "},\n{\"name\": \"release\", \"cat\": \"semaphore\", \"ph\": \"f\", \"bp\": \"e\", \"id\": ";
                put_u(o, flows_);
                o += ", \"pid\": 1, \"tid\": ";
                put_u(o, static_cast<uint64_t>(id));
                o += ", \"ts\": ";
                put_us(o, r.start);
                o += '}';
                write(timeline_, o);
            }
        }
        std::string& name = name_buf_;
        name.assign(*r.mnemonic);
        if (r.function) {
            name += ' ';
            name += *r.function;
        }
        if (r.n) {
            name += " N=";
            put_u(name, r.n);
        }
        std::string& args = args_buf_;
        args.assign("{\"index\": ");
        put_u(args, r.index);
        args += ", \"opcode\": \"";
        put_hex2(args, r.opcode);
        args += '"';
        if (r.source_file && r.line) {
            args += ", \"source\": \"";
            json_escape_into(args, *r.source_file);
            args += ':';
            put_u(args, r.line);
            args += '"';
        }
        if (r.elements) {
            args += ", \"elements\": ";
            put_u(args, r.elements);
        }
        if (r.bytes) {
            args += ", \"bytes\": ";
            put_u(args, r.bytes);
        }
        args += '}';
        event_on(id, name, r.start, r.end, args);
    }
    if (opt_.cost_model && r.model_ns >= 0) {
        const double sim = ns(r.end - r.start), diff = std::fabs(sim - r.model_ns);
        if (top_.size() < 5 || diff > std::fabs(top_.back().simulated_ns - top_.back().model_ns)) {
            Divergence d{engine + "#" + std::to_string(r.index), *r.mnemonic, r.source(), r.model_formula, sim, r.model_ns};
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
    // Complete files are renamed into place; a failed one is removed: never half a file.
    auto close = [&](std::FILE*& f, const std::string& path) {
        if (!f) return;
        const bool bad = std::ferror(f) | std::fclose(f);
        f = nullptr;
        if (bad || std::rename((path + ".tmp").c_str(), path.c_str()) != 0) {
            std::remove((path + ".tmp").c_str());
            failed = path;
        }
    };
    close(csv_, csv_path_);
    if (timeline_) std::fputs("\n]}\n", timeline_);
    close(timeline_, timeline_path_);
    if (opt_.progress) {
        std::fprintf(stderr, "\r%90s\r", "");
        opt_.progress = false;
    }
    if (!failed.empty()) throw Error(failed + ": write error (disk full or file size limit?): the file is incomplete");
}

}  // namespace neuronsim::platform
