#include "platform/host/trace_host.h"

#include "platform/act/act_set_region.h"

#include "platform/host/unwind_threads.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/io/read_file.h"
#include "model/io/write_file.h"
#include "model/isa/opcodes.h"
#include "model/trace/assembler.h"
#include "neuronsim/act_sets.h"
#include "neuronsim/registers.h"
#include "platform/act/act_set_region.h"
#include "platform/core/engine_context.h"
#include "stats/stat_records.h"

namespace neuronsim::platform {

namespace fs = std::filesystem;
using model::isa::MemSpace;

struct TraceHost::Stream {
    std::string name, path, lines;
    uint32_t queue = 0;
    uint64_t ring = 0;  // DRAM address of its ring
    uint32_t tail = 0;  // the host's next write position
    uint64_t total = 0, written = 0;
    std::unique_ptr<model::trace::BundleStream> reader;
    bool finished = false;
};

TraceHost::TraceHost(sc_core::sc_module_name name, const Config& cfg, const std::map<std::string, std::string>& streams, const std::string& setup,
                     const RunOptions& options)
    : sc_core::sc_module(name), cfg_(cfg), options_(options), map_(cfg.memory), mmio_("mmio_socket", "the NeuronCore's registers"), irq_("irq") {
    if (!options_.out_dir.empty()) fs::create_directories(options_.out_dir);
    uint64_t total = 0;
    for (const auto& [engine, path] : streams) {
        auto s = std::make_unique<Stream>();
        s->name = engine;
        s->path = path;
        s->reader = std::make_unique<model::trace::BundleStream>(path);
        s->total = s->reader->count();
        total += s->total;
        const fs::path lines = fs::path(path).replace_extension(".lines");
        if (fs::is_regular_file(lines)) s->lines = lines.string();
        streams_.push_back(std::move(s));
    }
    DeviceOptions d = options_.device;
    d.record_dir = d.record_csv || d.record_timeline ? options_.out_dir : "";
    d.progress_total = total;
    if (d.hazards == DeviceOptions::Hazards::Warn) d.hazards = DeviceOptions::Hazards::Collect;
    // The host owns DRAM, and settles the copies before it writes a ring or reads a dump.
    if (d.dma_copies == DeviceOptions::DmaCopies::Auto) d.dma_copies = DeviceOptions::DmaCopies::Background;
    d.queues.clear();  // only the trace's streams ring a queue: no threads for the others
    for (const auto& s : streams_) {
        try {
            (void)NeuronCore::queue_index(cfg_, s->name);
        } catch (const Error& e) {
            throw Error(s->path + ": " + e.what());
        }
        d.queues.push_back(s->name);
    }
    dram_ = std::make_unique<Memory>("dram", cfg_.memory.dram_bytes);
    dram_->set_resident_limit(cfg_.run.max_dram_resident_bytes, "run.max_dram_resident_bytes");
    core_ = std::make_unique<NeuronCore>("core", cfg_, d);
    core_->mem.bind(dram_->socket);
    mmio_.socket().bind(core_->mmio);
    core_->irq.bind(irq_);
    // Queues: two streams naming one queue (dma3 and dma3.0) would interleave unpredictably.
    std::map<uint32_t, std::string> used;
    for (auto& s : streams_) {
        try {
            s->queue = core_->queue_index(s->name);
        } catch (const Error& e) {
            throw Error(s->path + ": " + e.what());
        }
        if (used.count(s->queue)) throw Error(s->path + ": streams " + used[s->queue] + " and " + s->name + " name the same instruction queue");
        used[s->queue] = s->name;
        if (!s->lines.empty()) core_->set_source_lines(s->name, s->lines);
    }
    // The top of DRAM: the function sets (when ACT runs), below them one ring per stream.
    uint64_t top = cfg_.memory.dram_bytes;
    if (used.count(0)) {
        const std::shared_ptr<const ActSetRegion> sets = shared_act_set_region(cfg_, options_.pwp_dir, top);
        dram_->map_shared(sets->base, sets->bytes.data(), sets->bytes.size(), sets);
        sets_base_ = sets->base;
        sets_count_ = sets->count;
        top = sets->base;
    }
    const uint64_t ring_bytes = uint64_t{options_.queue_entries} * 64;
    if (ring_bytes * streams_.size() + 4096 > top)
        throw Error("DRAM (" + std::to_string(cfg_.memory.dram_bytes) + " bytes) is too small for the instruction queues");
    uint64_t at = (top - ring_bytes * streams_.size()) & ~uint64_t{4095};
    reserved_ = at;
    for (auto& s : streams_) s->ring = at, at += ring_bytes;
    if (!setup.empty()) {
        uint64_t dump_bytes = 0;
        model::trace::TraceReader reader(setup);
        while (auto r = reader.next()) {
            if (r->kind == model::trace::Record::Kind::Data) {
                const auto t0 = std::chrono::steady_clock::now();
                apply(r->data, r->where());
                load_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            } else if (r->kind == model::trace::Record::Kind::Reg) regs_.push_back({r->reg.index, r->reg.value});
            else if (r->kind == model::trace::Record::Kind::Dump) {
                map_.check_rows(r->dump.at, r->dump.partitions, r->dump.bytes, r->where());
                check_not_reserved(r->dump.at, r->dump.bytes * r->dump.partitions, r->where());
                dump_bytes += r->dump.bytes * r->dump.partitions;
                if (dump_bytes > cfg_.run.max_dump_bytes)
                    throw Error(r->where() + ": the trace's dumps reach " + std::to_string(dump_bytes) + " bytes, more than run.max_dump_bytes (" +
                                std::to_string(cfg_.run.max_dump_bytes) + ")");
                // (the CLI has cleared --out of its earlier outputs: a file there is the user's)
                if (!options_.dumps_overwrite && !options_.out_dir.empty() && fs::exists(fs::symlink_status(fs::path(options_.out_dir) / r->dump.file)))
                    throw Error(r->where() + ": .dump file=" + r->dump.file + ": " + options_.out_dir + "/" + r->dump.file +
                                " exists and neuronsim did not write it; it is not overwritten");
                dumps_.push_back(r->dump);
            } else {
                throw Error(r->where() + ": instructions belong in the engine streams, not in setup.trace");
            }
        }
    }
    SC_THREAD(host);
}

TraceHost::~TraceHost() = default;

void TraceHost::check_not_reserved(const model::isa::Location& l, uint64_t bytes, const std::string& where) const {
    if (l.space == MemSpace::Dram && l.offset + bytes > reserved_)
        throw Error(where + ": dram [" + model::fp::hex(l.offset) + ", +" + std::to_string(bytes) + ") reaches DRAM from " + model::fp::hex(reserved_) +
                    ", which `neuronsim run` keeps for the instruction queues and the function sets");
}

// The values are streamed from their file (or the inline bytes), never held whole: DRAM now,
// SBUF/PSUM through the core's window once the simulation has started (sockets complete their
// binding then), each row read again then.
void TraceHost::apply(const model::trace::DataDirective& d, const std::string& where) {
    const uint64_t row = d.size / d.partitions;
    map_.check_rows(d.at, d.partitions, row, where);
    check_not_reserved(d.at, d.size, where);
    auto directive = std::make_shared<const model::trace::DataDirective>(d);
    std::unique_ptr<model::io::FileRange> file;  // (DRAM: opened once for all the rows)
    for (uint32_t p = 0; p < d.partitions; ++p) {
        model::isa::Location l = d.at;
        l.partition += p;
        const uint64_t a = map_.linear(l, row, where);
        if (d.at.space == MemSpace::Dram) {
            uint64_t at = a;
            try {
                if (!d.file.empty()) {  // read straight into DRAM's pages
                    if (!file) file = std::make_unique<model::io::FileRange>(d.file, d.size, ".data file");
                    uint64_t from = uint64_t{p} * row;
                    dram_->write_in_place(a, row, [&](uint8_t* dst, size_t n) {
                        file->read_at(from, dst, n);
                        from += n;
                    });
                    continue;
                }
                model::trace::read_data(d, uint64_t{p} * row, row, [&](const uint8_t* bytes, size_t n) {
                    dram_->write(at, bytes, n);
                    at += n;
                });
            } catch (const Error& e) {
                throw Error(where + ": " + e.what());
            }
        } else {
            window_writes_.push_back({(d.at.space == MemSpace::Sbuf ? reg::kSbufWindow : reg::kPsumWindow) + a, directive, uint64_t{p} * row, row, where});
        }
    }
}

void TraceHost::dump(const model::trace::DumpDirective& d) {
    const fs::path path = fs::path(options_.out_dir) / d.file;
    model::io::make_directories(path.parent_path().string());
    // DRAM straight from its pages, gathered (the pages stay put while the dump is written);
    // SBUF/PSUM through the core's window and a buffer of at most 1 MiB (a dump of a large tensor
    // touches no more fresh memory than that).
    std::vector<uint8_t> buf(d.at.space == MemSpace::Dram ? 0 : static_cast<size_t>(std::min<uint64_t>(d.bytes, uint64_t{1} << 20)));
    std::vector<iovec> pieces;
    model::io::AtomicFile f(path.string());  // the dump appears whole or not at all
    for (uint32_t p = 0; p < d.partitions; ++p) {
        model::isa::Location l = d.at;
        l.partition += p;
        const uint64_t a = map_.linear(l, d.bytes, ".dump " + d.file);
        if (d.at.space == MemSpace::Dram) {
            dram_->read_in_place(a, d.bytes, [&](const uint8_t* bytes, size_t n) {
                if (!pieces.empty() && static_cast<const uint8_t*>(pieces.back().iov_base) + pieces.back().iov_len == bytes) pieces.back().iov_len += n;
                else pieces.push_back({const_cast<uint8_t*>(bytes), n});
            });
            continue;
        }
        for (uint64_t done = 0; done < d.bytes;) {
            const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), d.bytes - done));
            mmio_.debug_read((d.at.space == MemSpace::Sbuf ? reg::kSbufWindow : reg::kPsumWindow) + a + done, buf.data(), n);
            f.write(buf.data(), n);
            done += n;
        }
    }
    f.write_pieces(pieces);
    f.commit();
}

uint32_t TraceHost::rd(uint64_t r) {
    uint32_t v = 0;
    mmio_.read(r, reinterpret_cast<uint8_t*>(&v), 4);
    return v;
}

void TraceHost::wr(uint64_t r, uint32_t v) { mmio_.write(r, reinterpret_cast<const uint8_t*>(&v), 4); }

// Writes as many of the stream's bundles as the ring has room for and rings the doorbell.
void TraceHost::refill(Stream& s) {
    const uint64_t qreg = reg::kQueues + uint64_t{s.queue} * reg::kQueueStride;
    const uint32_t size = options_.queue_entries, head = rd(qreg + reg::kQueueHead);
    uint32_t room = (head + size - s.tail - 1) % size;
    model::isa::Bundle b;
    uint32_t n = 0;
    core_->settle_copies();  // (a copy may write the ring: a trace's own business, but seen in order)
    while (room-- && s.written < s.total && s.reader->next(b)) {
        dram_->write(s.ring + uint64_t{s.tail} * 64, b.b.data(), 64);
        s.tail = (s.tail + 1) % size;
        ++s.written, ++n;
    }
    if (n) wr(qreg + reg::kQueueTail, s.tail);
}

void TraceHost::host() {
    wait(start_);  // run() has loaded the SBUF/PSUM data through the windows
    wr(reg::kIrqMask, reg::kIrqDrained | reg::kIrqError);
    for (const auto& [index, value] : regs_) wr(reg::kRegisters + 4ull * (index & 0xFF), value);
    wr(reg::kActSetsBaseLo, static_cast<uint32_t>(sets_base_));
    wr(reg::kActSetsBaseHi, static_cast<uint32_t>(sets_base_ >> 32));
    wr(reg::kActSetsCount, sets_count_);
    size_t open = 0;
    // Doorbells in reverse name order: the engines they wake then run, and complete
    // simultaneous instructions, in stream-name order (deterministic records, as before).
    for (auto it = streams_.rbegin(); it != streams_.rend(); ++it) {
        auto& s = *it;
        const uint64_t qreg = reg::kQueues + uint64_t{s->queue} * reg::kQueueStride;
        wr(qreg + reg::kQueueBaseLo, static_cast<uint32_t>(s->ring));
        wr(qreg + reg::kQueueBaseHi, static_cast<uint32_t>(s->ring >> 32));
        wr(qreg + reg::kQueueSize, options_.queue_entries);
        if (s->total) refill(*s), ++open;
        else s->finished = true;
    }
    while (open) {
        // irq is a level: an interrupt raised again just after the host cleared it keeps the
        // line high, so the host reads IRQ_STATUS before it sleeps, and sleeps until a rising
        // edge only while the line reads low (a high line with nothing pending is stale: it
        // settles within a delta).
        uint32_t status;
        while ((status = rd(reg::kIrqStatus)) == 0) {
            if (irq_.read()) wait(sc_core::SC_ZERO_TIME);
            else wait(irq_.posedge_event());
        }
        wr(reg::kIrqStatus, status);
        if (status & reg::kIrqError) {
            error_ = describe_error();
            return;
        }
        for (auto& s : streams_) {
            const uint64_t word = reg::kDrained + 4ull * (s->queue / 32);
            const uint32_t bit = 1u << (s->queue % 32);
            if (s->finished || !(rd(word) & bit)) continue;
            wr(word, bit);
            const bool halted = rd(reg::kQueues + uint64_t{s->queue} * reg::kQueueStride + reg::kQueueStatus) & reg::kQueueHalted;
            if (s->written < s->total && !halted) {
                refill(*s);
            } else {
                s->finished = true;
                --open;
            }
        }
    }
    done_ = true;
}

// The latched error with the trace line and stream place of the failing instruction.
std::string TraceHost::describe_error() {
    const uint32_t queue = rd(reg::kErrorQueue);
    const uint64_t index = rd(reg::kErrorIndexLo) | uint64_t{rd(reg::kErrorIndexHi)} << 32;
    const uint32_t length = rd(reg::kErrorMessageLength);
    std::string message(length, '\0');
    mmio_.debug_read(reg::kErrorMessage, reinterpret_cast<uint8_t*>(message.data()), length);
    const Stream* s = nullptr;
    for (const auto& x : streams_)
        if (x->queue == queue) s = x.get();
    if (!s || rd(reg::kErrorCode) != reg::kErrorInstruction) return message;
    // The engine's text, as the error registers latched it, gains the stream's byte offset and
    // the trace line (the register's text is EngineFailure::summary() without a place).
    EngineFailure f{s->name, index, static_cast<uint8_t>(rd(reg::kErrorOpcode)), ""};
    const std::string head = f.summary();
    if (message.compare(0, head.size(), head) == 0) {
        f.message = message.substr(head.size());
        message = f.summary(s->path + " byte offset " + std::to_string(index * 64));
    }
    const std::string place = source_place(*s, index);
    return place.empty() ? message : place + ": " + message;
}

std::map<std::pair<std::string, uint64_t>, std::string> TraceHost::source_places(std::vector<std::pair<std::string, uint64_t>> wanted) const {
    std::sort(wanted.begin(), wanted.end());
    std::map<std::pair<std::string, uint64_t>, std::string> out;
    for (size_t i = 0; i < wanted.size();) {
        const Stream* s = nullptr;
        for (const auto& x : streams_)
            if (x->name == wanted[i].first) s = x.get();
        if (!s || s->lines.empty()) {
            ++i;
            continue;
        }
        model::trace::SourceLines lines(s->lines, true);
        uint64_t at = 0, line = lines.next();  // the line of bundle `at`
        for (; i < wanted.size() && wanted[i].first == s->name; ++i) {
            while (at < wanted[i].second) line = lines.next(), ++at;
            if (line) out[wanted[i]] = lines.source() + ":" + std::to_string(line);
        }
    }
    return out;
}

std::string TraceHost::source_place(const Stream& s, uint64_t index) const {
    if (s.lines.empty()) return "";
    model::trace::SourceLines lines(s.lines, true);
    uint64_t line = 0;
    for (uint64_t i = 0; i <= index; ++i) line = lines.next();
    return line ? lines.source() + ":" + std::to_string(line) : "";
}

void TraceHost::describe_hazards(RunReport& rep) const {
    rep.hazards = core_->hazards();
    if (!rep.hazards.empty()) {
        std::vector<std::pair<std::string, uint64_t>> wanted;
        for (const Hazard& h : rep.hazards) {
            if (!h.first.engine.empty()) wanted.push_back({h.first.engine, h.first.index});
            wanted.push_back({h.second.engine, h.second.index});
        }
        const auto places = source_places(std::move(wanted));
        auto place = [&](const Hazard::Side& x) {
            auto it = places.find({x.engine, x.index});
            return it == places.end() ? std::string() : it->second;
        };
        for (const Hazard& h : rep.hazards) rep.hazard_text.push_back(h.describe(place(h.first), place(h.second)));
    }
}

DeviceOptions::DmaCopies dma_copies_named(const std::string& name) {
    using C = DeviceOptions::DmaCopies;
    for (C c : {C::Background, C::Inline, C::Deferred})
        if (name == dma_copies_name(c)) return c;
    throw Error("expected background, inline or deferred, got \"" + name + "\"");
}

const char* dma_copies_name(DeviceOptions::DmaCopies c) {
    switch (c) {
        case DeviceOptions::DmaCopies::Background: return "background";
        case DeviceOptions::DmaCopies::Inline: return "inline";
        case DeviceOptions::DmaCopies::Deferred: return "deferred";
        default: return "auto";
    }
}

RunReport TraceHost::run() {
    // Elaborate (the sockets complete their binding), load the trace's SBUF/PSUM data through
    // the core's windows, then simulate: the host's wall time counts the simulation only.
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    const auto loading = std::chrono::steady_clock::now();
    for (const WindowWrite& w : window_writes_) {
        uint64_t at = w.addr;
        try {
            model::trace::read_data(*w.data, w.offset, w.bytes, [&](const uint8_t* bytes, size_t n) {
                mmio_.debug_write(at, bytes, n);
                at += n;
            });
        } catch (const Error& e) {
            throw Error(w.where + ": " + e.what());
        }
    }
    window_writes_.clear();
    start_.notify(sc_core::SC_ZERO_TIME);
    const auto t0 = std::chrono::steady_clock::now();
    RunReport rep;
    rep.load_seconds = load_seconds_ + std::chrono::duration<double>(t0 - loading).count();
    if (!options_.device.cancel) {
        sc_core::sc_start();
    } else {
        // In slices of simulated time, so that a stop request is seen between them; the
        // kernel's state carries over, so the run is the same as in one piece.
        // Each slice reaches at least the next event: SC_EXIT_ON_STARVATION does not move time
        // when nothing happens within the duration, so a fixed slice shorter than the gap to the
        // next event would never get there (events may lie any distance ahead).
        const sc_core::sc_time slice(100, sc_core::SC_US);
        while (sc_core::sc_pending_activity()) {
            if ((rep.interrupted = options_.device.cancel->load())) break;
            sc_core::sc_start(std::max(slice, sc_core::sc_time_to_pending_activity()), sc_core::SC_EXIT_ON_STARVATION);
        }
        // A stop seen inside an instruction (DeviceOptions::cancel) ends the simulation early.
        if (!rep.interrupted && !done_) rep.interrupted = options_.device.cancel->load();
    }
    // However it ended, the simulation is over: what its threads still hold is freed (and what
    // they complete in that last delta is recorded).
    unwind_threads();
    core_->settle_copies();  // (the copies are part of the run; the dumps read what they wrote)
    core_->finish_recording();  // the host's wall time includes writing the records out
    rep.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string failure = error_;
    if (failure.empty() && !rep.interrupted && !done_) {
        // No more events: the engines left wait on semaphores nothing will change.
        std::string stuck;
        for (const QueueState& q : core_->queue_states()) {
            if (!q.busy) continue;
            stuck += "\n  engine " + q.engine + " at instruction " + std::to_string(q.current_index);
            for (const auto& x : streams_)
                if (x->name == q.engine)
                    if (const std::string place = source_place(*x, q.current_index); !place.empty()) stuck += " (" + place + ")";
            if (q.waiting) stuck += " waits for " + q.wait_condition + ", which is " + std::to_string(q.semaphore_value);
        }
        failure = "deadlock at " + std::to_string(sc_core::sc_time_stamp().to_seconds() * 1e9) + " ns: no engine can proceed:" + stuck;
    }
    if (!failure.empty()) {
        // The races found before it may be why it failed: the error names them.
        describe_hazards(rep);
        if (!rep.hazard_text.empty())
            failure += "\n(" + std::to_string(rep.hazard_text.size()) + " hazard" + (rep.hazard_text.size() == 1 ? "" : "s") +
                       " found before it, docs/hazards.md; the first: " + rep.hazard_text[0] + ")";
        throw Error(failure);
    }
    // An interrupted run reports what completed so far, without dumps (their data may be half
    // made); a timing-only one has no values a dump could hold.
    if (!rep.interrupted && !options_.device.timing_only) {
        const auto dumping = std::chrono::steady_clock::now();
        for (const auto& d : dumps_) {
            dump(d);
            rep.dumps.push_back(d.file);
        }
        rep.dump_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - dumping).count();
    }
    rep.stats = nlohmann::ordered_json::parse(core_->stats_json());
    rep.simulated = sc_core::sc_time(static_cast<double>(stats::get(rep.stats, stats::core::simulated_ps).get<uint64_t>()), sc_core::SC_PS);
    rep.instructions = core_->instructions_completed();
    rep.copy_wait_seconds = core_->copy_wait_seconds();
    describe_hazards(rep);
    if (options_.device.cost_model) {
        rep.cost_model = nlohmann::ordered_json::parse(core_->cost_model_json());
        rep.divergences = core_->top_divergences();
    }
    return rep;
}

}  // namespace neuronsim::platform
