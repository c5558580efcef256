#include "platform/recorder.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include "model/common/error.h"
#include "model/isa/opcodes.h"

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

using model::io::TextWriter;

bool csv_plain(const std::string& s) {
    for (char c : s)
        if (c == ',' || c == '"' || c == '\r' || c == '\n') return false;
    return true;
}

bool json_plain(const std::string& s) {
    for (char c : s)
        if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return false;
    return true;
}

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
void put_csv(TextWriter& o, const std::string& s) {
    if (csv_plain(s)) return o.put(s);
    o.put('"');
    for (char c : s) {
        if (c == '"') o.put('"');
        o.put(c);
    }
    o.put('"');
}

// s as the inside of a JSON string; most names need no escaping.
void put_json(TextWriter& o, const std::string& s) {
    if (json_plain(s)) return o.put(s);
    o.put(json_escape(s));
}

// "0x" and two lowercase hex digits, as printf's 0x%02x of a byte.
void put_hex2(TextWriter& o, uint8_t v) {
    static const char digits[] = "0123456789abcdef";
    const char b[4] = {'0', 'x', digits[v >> 4], digits[v & 15]};
    o.put(b, 4);
}

double ns(const sc_core::sc_time& t) { return t.to_seconds() * 1e9; }

// Times are integer picoseconds, so ns with 3 decimals and us with 6 are exact.
void put_ns(TextWriter& o, const sc_core::sc_time& t) { o.fixed(t.value(), 3); }
void put_us(TextWriter& o, const sc_core::sc_time& t) { o.fixed(t.value(), 6); }

// "semaphore 3 >= 2": needs no quoting in CSV nor escaping in JSON.
template <class Out>
void put_semaphore(Out& o, const model::isa::Events& w) {
    o.lit("semaphore ");
    o.u64(w.wait_idx);
    if (w.wait == model::isa::WaitMode::Eq) o.lit(" == ");
    else o.lit(" >= ");
    const int32_t v = static_cast<int32_t>(w.value);
    if (v < 0) o.put('-');
    o.u64(v < 0 ? 0ull - static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v));
}

// The same appends into a std::string, for the text outside the recording.
struct StringOut {
    std::string& s;
    void put(char c) { s += c; }
    template <size_t N>
    void lit(const char (&t)[N]) {
        s.append(t, N - 1);
    }
    void u64(uint64_t v) {
        char b[20];
        s.append(b, TextWriter::format_u64(b, v));
    }
};

}  // namespace

std::string InstructionRecord::stall_cause() const {
    std::string c;
    StringOut o{c};
    if (sem_wait) put_semaphore(o, wait);
    if (busy_resource) {
        c += c.empty() ? "busy " : ", then busy ";
        c += *busy_resource;
    }
    if (dependency && released_by) {
        c += c.empty() ? "data from " : ", then data from ";
        c += *released_by;
    }
    return c;
}

std::string InstructionRecord::source() const { return source_file && line ? *source_file + ":" + std::to_string(line) : ""; }

Recorder::Recorder(const DeviceOptions& options, const std::string& process_name)
    : opt_(options), total_(options.progress_total), progress_(options.progress_total, "instructions", options.progress, 0.2) {
    // Each file is renamed into place when complete (finish()), else never appears.
    const std::string& out_dir = opt_.record_dir;
    if (!out_dir.empty() && opt_.record_csv) {
        csv_ = std::make_unique<TextWriter>(out_dir + "/instructions.csv");
        csv_->lit("engine,index,opcode,mnemonic,start_ns,end_ns,start_cycle,end_cycle,ready_ns,stall_ns,stall_cause,released_by,source,"
                  "function,n,elements,bytes");
        if (opt_.cost_model) csv_->lit(",model_ns,model_formula,sim_minus_model_ns\n");
        else csv_->put('\n');
    }
    if (!out_dir.empty() && opt_.record_timeline) {
        timeline_ = std::make_unique<TextWriter>(out_dir + "/timeline.json");
        timeline_->lit("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, "
                       "\"args\": {\"name\": \"");
        put_json(*timeline_, process_name);
        timeline_->lit("\"}}");
    }
}

Recorder::~Recorder() = default;  // not finished (the run failed): the partial files never appear

int Recorder::track_id(const std::string& track) {
    auto it = tracks_.find(track);
    if (it != tracks_.end()) return it->second;
    int id = static_cast<int>(tracks_.size()) + 1;
    tracks_[track] = id;
    TextWriter& o = *timeline_;
    o.lit(",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": ");
    o.u64(static_cast<uint64_t>(id));
    o.lit(", \"args\": {\"name\": \"");
    put_json(o, track);
    o.lit("\"}}");
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

void Recorder::event_head(int id, const sc_core::sc_time& start, const sc_core::sc_time& end) {
    TextWriter& o = *timeline_;
    o.lit("\", \"ph\": \"X\", \"pid\": 1, \"tid\": ");
    o.u64(static_cast<uint64_t>(id));
    o.lit(", \"ts\": ");
    put_us(o, start);  // microseconds with picosecond digits: exact
    o.lit(", \"dur\": ");
    put_us(o, end - start);
}

void Recorder::event_on(int id, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end, const std::string& args) {
    TextWriter& o = *timeline_;
    o.lit(",\n{\"name\": \"");
    put_json(o, name);
    event_head(id, start, end);
    if (!args.empty()) {
        o.lit(", \"args\": ");
        o.put(args);
    }
    o.put('}');
}

void Recorder::set_source_lines(const std::string* engine, const std::string& lines_path) {
    sources_[engine] = std::make_unique<model::trace::SourceLines>(lines_path, true);
}

void Recorder::csv_row(const InstructionRecord& r) {
    TextWriter& o = *csv_;
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
    if (opt_.cost_model) {
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

void Recorder::timeline_events(const InstructionRecord& r, int id) {
    TextWriter& o = *timeline_;
    sc_core::sc_time& last = track_end_[id];
    const sc_core::sc_time stall_from = std::max(r.ready, last);
    if (r.start > stall_from) {  // the stall as its own slice, where the track is not busy
        o.lit(",\n{\"name\": \"stall: ");
        if (r.sem_wait && !r.busy_resource && !r.dependency) put_semaphore(o, r.wait);
        else put_json(o, r.stall_cause());
        event_head(id, stall_from, r.start);
        if (r.released_by) {
            o.lit(", \"args\": {\"released_by\": \"");
            put_json(o, *r.released_by);
            o.put('#');
            o.u64(r.released_index);
            o.lit("\"}");
        }
        o.put('}');
        auto from = r.released_by ? engine_tracks_.find(r.released_by) : engine_tracks_.end();
        if (from != engine_tracks_.end() && from->second != id) {  // a flow arrow from the releasing update (another track's)
            ++flows_;
            o.lit(",\n{\"name\": \"release\", \"cat\": \"semaphore\", \"ph\": \"s\", \"id\": ");
            o.u64(flows_);
            o.lit(", \"pid\": 1, \"tid\": ");
            o.u64(static_cast<uint64_t>(from->second));
            o.lit(", \"ts\": ");
            put_us(o, r.released_at);
            o.lit("},\n{\"name\": \"release\", \"cat\": \"semaphore\", \"ph\": \"f\", \"bp\": \"e\", \"id\": ");
            o.u64(flows_);
            o.lit(", \"pid\": 1, \"tid\": ");
            o.u64(static_cast<uint64_t>(id));
            o.lit(", \"ts\": ");
            put_us(o, r.start);
            o.put('}');
        }
    }
    o.lit(",\n{\"name\": \"");
    put_json(o, *r.mnemonic);
    if (r.function) {
        o.put(' ');
        put_json(o, *r.function);
    }
    if (r.n) {
        o.lit(" N=");
        o.u64(r.n);
    }
    const sc_core::sc_time from = std::max(r.start, last);
    last = std::max(last, r.end);
    event_head(id, from, r.end);
    o.lit(", \"args\": {\"index\": ");
    o.u64(r.index);
    if (from != r.start) {
        o.lit(", \"issued_us\": ");
        put_us(o, r.start);
    }
    o.lit(", \"opcode\": \"");
    put_hex2(o, r.opcode);
    o.put('"');
    if (r.source_file && r.line) {
        o.lit(", \"source\": \"");
        put_json(o, *r.source_file);
        o.put(':');
        o.u64(r.line);
        o.put('"');
    }
    if (r.elements) {
        o.lit(", \"elements\": ");
        o.u64(r.elements);
    }
    if (r.bytes) {
        o.lit(", \"bytes\": ");
        o.u64(r.bytes);
    }
    o.lit("}}");
}

void Recorder::skip(const std::string* engine) {
    auto it = sources_.find(engine);
    if (it != sources_.end()) it->second->next();
}

void Recorder::instruction(InstructionRecord& r) {
    if (!r.source_file) {
        auto it = sources_.find(r.engine);
        if (it != sources_.end()) {
            r.line = it->second->next();
            r.source_file = &it->second->source();
        }
    }
    if (in_window(r.ready, r.end)) {
        if (csv_) csv_row(r);
        if (timeline_) timeline_events(r, engine_track(r.engine));
    }
    if (opt_.cost_model && r.model_ns >= 0) {
        const double sim = ns(r.end - r.start), diff = std::fabs(sim - r.model_ns);
        if (top_.size() < 5 || diff > std::fabs(top_.back().simulated_ns - top_.back().model_ns)) {
            Divergence d{*r.engine + "#" + std::to_string(r.index), *r.mnemonic, r.source(), r.model_formula, sim, r.model_ns, r.model_why};
            auto at = top_.begin();
            while (at != top_.end() && std::fabs(at->simulated_ns - at->model_ns) >= diff) ++at;  // ties: the earlier first
            top_.insert(at, std::move(d));
            if (top_.size() > 5) top_.pop_back();
        }
    }
    ++completed_;
    progress_.update(completed_, "", completed_ == total_);
}

void Recorder::slice(const std::string& track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end,
                     const std::string& args) {
    event(track, name, start, end, args);
}

void Recorder::counter(const std::string& name, const sc_core::sc_time& at, double value) {
    if (!timeline_ || at < opt_.window_start || at > opt_.window_end) return;
    TextWriter& o = *timeline_;
    o.lit(",\n{\"name\": \"");
    put_json(o, name);
    char b[96];
    o.put(b, static_cast<size_t>(std::snprintf(b, sizeof b, "\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.6f, \"args\": {\"value\": %.17g}}",
                                               at.to_seconds() * 1e6, value)));
}


void Recorder::finish() {
    // Complete files are moved into place; a failed one never appears: never half a file.
    std::string failed;
    if (timeline_) timeline_->lit("\n]}\n");
    for (auto* f : {&csv_, &timeline_}) {
        if (!*f) continue;
        try {
            (*f)->commit();
        } catch (const std::exception& e) {
            failed += failed.empty() ? e.what() : std::string("; ") + e.what();
        }
        f->reset();
    }
    progress_.finish(false);
    if (!failed.empty()) throw Error(failed + " (disk full or file size limit?): the recording is incomplete");
}

}  // namespace neuronsim::platform
