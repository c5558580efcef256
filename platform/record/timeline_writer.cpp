#include "platform/record/timeline_writer.h"

#include <algorithm>
#include <cstdio>

#include "platform/record/record_text.h"

namespace neuronsim::platform::record {

namespace {

// Where a track sits in the viewer (Perfetto and chrome://tracing order threads by
// thread_sort_index): the compute engines, the DMA queue streams by queue, the per-engine
// queue streams, then the DMA engines' packet tracks by number; anything else after them.
long track_sort_index(const std::string& track) {
    auto number_at = [&](size_t at, size_t& end) {
        long v = 0;
        end = at;
        while (end < track.size() && track[end] >= '0' && track[end] <= '9') v = v * 10 + (track[end++] - '0');
        return end > at ? v : -1;
    };
    size_t end = 0;
    if (track == "act") return 0;
    if (track == "pool") return 1;
    if (track == "dve") return 2;
    if (track == "pe") return 3;
    if (track.rfind("dma engine ", 0) == 0) {
        const long e = number_at(11, end);
        if (e >= 0 && end == track.size()) return 100000 + e;
    }
    if (track.rfind("dma.", 0) == 0) {
        const long q = number_at(4, end);
        if (q >= 0 && end == track.size()) return 100 + q;
    }
    if (track.rfind("dma", 0) == 0) {  // dmaE.Q (or dmaE)
        const long e = number_at(3, end);
        if (e >= 0 && end == track.size()) return 1000 + e * 256;
        if (e >= 0 && end < track.size() && track[end] == '.') {
            size_t qend = 0;
            const long q = number_at(end + 1, qend);
            if (q >= 0 && qend == track.size()) return 1000 + e * 256 + q;
        }
    }
    return 1000000;
}

}  // namespace

TimelineWriter::TimelineWriter(const std::string& path, const std::string& process_name) : out_(std::make_unique<TextWriter>(path)) {
    out_->lit("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"");
    put_json(*out_, process_name);
    out_->lit("\"}}");
}

int TimelineWriter::track_id(const std::string& track) {
    auto it = tracks_.find(track);
    if (it != tracks_.end()) return it->second;
    int id = static_cast<int>(tracks_.size()) + 1;
    tracks_[track] = id;
    TextWriter& o = *out_;
    o.lit(",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": ");
    o.u64(static_cast<uint64_t>(id));
    o.lit(", \"args\": {\"name\": \"");
    put_json(o, track);
    o.lit("\"}},\n{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 1, \"tid\": ");
    o.u64(static_cast<uint64_t>(id));
    o.lit(", \"args\": {\"sort_index\": ");
    o.u64(static_cast<uint64_t>(track_sort_index(track)));
    o.lit("}}");
    return id;
}

int TimelineWriter::engine_track(const std::string* engine) {
    auto it = engine_tracks_.find(engine);
    if (it != engine_tracks_.end()) return it->second;
    return engine_tracks_[engine] = track_id(*engine);
}

void TimelineWriter::event_head(int id, const sc_core::sc_time& start, const sc_core::sc_time& end) {
    TextWriter& o = *out_;
    o.lit("\", \"ph\": \"X\", \"pid\": 1, \"tid\": ");
    o.u64(static_cast<uint64_t>(id));
    o.lit(", \"ts\": ");
    put_us(o, start);  // microseconds with picosecond digits: exact
    o.lit(", \"dur\": ");
    put_us(o, end - start);
}

void TimelineWriter::slice(const std::string& track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end,
                           const std::string& args) {
    const int id = track_id(track);
    TextWriter& o = *out_;
    o.lit(",\n{\"name\": \"");
    put_json(o, name);
    event_head(id, start, end);
    if (!args.empty()) {
        o.lit(", \"args\": ");
        o.put(args);
    }
    o.put('}');
}

void TimelineWriter::instruction(const InstructionRecord& r) {
    const int id = engine_track(r.engine);
    TextWriter& o = *out_;
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

void TimelineWriter::counter(const std::string& name, const sc_core::sc_time& at, double value) {
    TextWriter& o = *out_;
    o.lit(",\n{\"name\": \"");
    put_json(o, name);
    char b[96];
    o.put(b, static_cast<size_t>(
                 std::snprintf(b, sizeof b, "\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.6f, \"args\": {\"value\": %.17g}}", at.to_seconds() * 1e6, value)));
}

void TimelineWriter::commit() {
    out_->lit("\n]}\n");
    out_->commit();
}

}  // namespace neuronsim::platform::record
