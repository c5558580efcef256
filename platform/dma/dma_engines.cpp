#include "platform/dma/dma_engines.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "model/common/error.h"
#include "model/isa/address.h"
#include "platform/core/engine_context.h"
#include "platform/core/work_budget.h"
#include "platform/record/recorder.h"
#include "stats/stat_records.h"

namespace neuronsim::platform {

using model::isa::MemSpace;

namespace {
constexpr uint64_t kChunk = uint64_t{1} << 20;  // bytes moved through the sockets at a time

std::string space_text(DmaSpace s) { return s == DmaSpace::ActTables ? "act tables" : model::isa::space_name(static_cast<MemSpace>(s)); }
}  // namespace

struct DmaEngines::Job {
    DmaJob spec;
    uint32_t packets_left = 0;
    bool failed = false;
};

// The rows one engine moves for a job: runs [first, last) of part `part`.
struct DmaEngines::Packet {
    std::shared_ptr<Job> job;
    uint32_t engine = 0, queue = 0;
    struct Rows {
        size_t part;
        uint32_t first, last;
    };
    std::vector<Rows> rows;
    uint64_t descriptors = 0, bytes = 0;
    uint64_t epoch = 0;  // the RESETs before it was queued
    bool accepted = false;  // its engine has taken it: its latency runs ...
    sc_core::sc_time ready;  // ... until this: accepted + dma.fixed_overhead_ns
};

// One engine: a FIFO per queue, served round-robin, one packet at a time. It accepts up to
// dma.outstanding_per_engine packets, taking each queue's oldest in turn (round-robin too, so a
// deep queue does not hold the others' latency back); an accepted packet's latency runs while
// the engine serves others.
class DmaEngines::Unit : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(Unit);
    Unit(sc_core::sc_module_name name, DmaEngines& owner, uint32_t index, uint32_t queues)
        : sc_core::sc_module(name), owner_(owner), queues_(queues), accepted_in_(queues, 0), track_("dma engine " + std::to_string(index)) {
        SC_THREAD(run);
    }
    void enqueue(std::shared_ptr<Packet> p) {
        queues_[p->queue].push_back(std::move(p));
        accept();
        arrived_.notify(sc_core::SC_ZERO_TIME);
    }
    uint64_t packets = 0, descriptors = 0, bytes = 0;
    sc_core::sc_time busy = sc_core::SC_ZERO_TIME;
    BusyIntervals spans;  // when it moved data

private:
    // Each queue's accepted packets are its oldest (a prefix of its FIFO).
    void accept() {
        const size_t n = queues_.size();
        while (accepted_ < owner_.cfg_.dma.outstanding_per_engine) {
            size_t k = 1;
            for (; k <= n; ++k) {
                const size_t q = (last_accepted_ + k) % n;
                if (accepted_in_[q] < queues_[q].size()) break;
            }
            if (k > n) return;  // none waiting
            const size_t q = (last_accepted_ + k) % n;
            Packet& p = *queues_[q][accepted_in_[q]++];
            p.accepted = true;
            p.ready = sc_core::sc_time_stamp() + sc_core::sc_time(owner_.cfg_.dma.fixed_overhead_ns, sc_core::SC_NS);
            ++accepted_;
            last_accepted_ = q;
        }
    }
    // Waits `t` unless a RESET drops the packet first.
    void pause(const sc_core::sc_time& t, const Packet& p) {
        const sc_core::sc_time until = sc_core::sc_time_stamp() + t;
        while (sc_core::sc_time_stamp() < until && !owner_.stale(p)) wait(until - sc_core::sc_time_stamp(), owner_.reset_event_);
    }
    // The next ready packet after the last queue served, or null and when the first becomes ready.
    std::shared_ptr<Packet> pick(sc_core::sc_time& next_ready) {
        const size_t n = queues_.size();
        next_ready = sc_core::sc_max_time();
        for (size_t k = 1; k <= n; ++k) {
            auto& q = queues_[(last_ + k) % n];
            if (q.empty() || !q.front()->accepted) continue;  // (one not yet accepted waits for a packet to end)
            if (q.front()->ready <= sc_core::sc_time_stamp()) {
                last_ = (last_ + k) % n;
                std::shared_ptr<Packet> p = std::move(q.front());
                q.pop_front();
                --accepted_in_[last_];
                return p;
            }
            next_ready = std::min(next_ready, q.front()->ready);
        }
        return nullptr;
    }
    void run() {
        const double descriptor_ns = owner_.cfg_.dma.descriptor_ns;
        for (;;) {
            sc_core::sc_time next;
            std::shared_ptr<Packet> p = pick(next);
            if (!p) {
                if (next == sc_core::sc_max_time()) wait(arrived_);
                else wait(next - sc_core::sc_time_stamp(), arrived_);
                continue;
            }
            const sc_core::sc_time start = sc_core::sc_time_stamp();
            Recorder* rec = owner_.recorder_;
            if (rec) rec->counter("DMA bytes in flight", start, static_cast<double>(owner_.in_flight_ += static_cast<int64_t>(p->bytes)));
            // Its rows move first: a queued copy is made while the simulation goes on to the
            // engines' next work, not after it (the next engine instruction waits for it).
            sc_core::sc_time annotated;
            try {
                if (!owner_.stale(*p)) annotated = owner_.move(*p, buf_);
            } catch (const Cancelled&) {
                return;  // the host stops the simulation
            }
            if (descriptor_ns > 0) pause(sc_core::sc_time(descriptor_ns * static_cast<double>(p->descriptors), sc_core::SC_NS), *p);
            if (!owner_.stale(*p)) owner_.stream(static_cast<double>(p->bytes), *p);
            pause(annotated, *p);
            const sc_core::sc_time end = sc_core::sc_time_stamp();
            if (owner_.stale(*p)) {  // a RESET dropped it meanwhile
                if (rec) rec->counter("DMA bytes in flight", end, static_cast<double>(owner_.in_flight_ -= static_cast<int64_t>(p->bytes)));
                continue;
            }
            busy += end - start;
            spans.add(start.value(), end.value());
            ++packets;
            descriptors += p->descriptors;
            bytes += p->bytes;
            if (rec) {
                rec->counter("DMA bytes in flight", end, static_cast<double>(owner_.in_flight_ -= static_cast<int64_t>(p->bytes)));
                rec->slice(track_, p->job->spec.label, start, end, "{\"bytes\": " + std::to_string(p->bytes) + "}");
            }
            --accepted_;
            accept();
            owner_.finished(*p);
        }
    }

    DmaEngines& owner_;
    std::vector<std::deque<std::shared_ptr<Packet>>> queues_;
    std::vector<size_t> accepted_in_;  // per queue: how many of its oldest are accepted
    uint32_t accepted_ = 0;  // over all queues
    size_t last_ = 0, last_accepted_ = 0;  // round-robin positions: served, accepted
    sc_core::sc_event arrived_;
    std::string track_;
    std::vector<uint8_t> buf_;  // a chunk in transit (its own: a memory may wait inside a transport)

public:
    void reset() {
        for (auto& q : queues_) q.clear();
        std::fill(accepted_in_.begin(), accepted_in_.end(), 0);
        accepted_ = 0;  // (the packet being served is stale: it gives back nothing)
        arrived_.notify(sc_core::SC_ZERO_TIME);
    }
};

DmaEngines::DmaEngines(sc_core::sc_module_name name, const Config& cfg, const model::isa::AddressMap& map, TlmPort& dram, Recorder* recorder,
                       model::WorkerPool& pool, CopiesInFlight::Mode copies, WorkBudget* budget, bool timing_only, const std::atomic<int>* cancel)
    : sc_core::sc_module(name),
      sbuf("sbuf_socket", "SBUF"),
      psum("psum_socket", "PSUM"),
      act_tables("act_tables_socket", "the ACT table memory"),
      cfg_(cfg),
      map_(map),
      dram_(dram),
      recorder_(recorder),
      budget_(budget),
      timing_only_(timing_only),
      cancel_(cancel),
      copies_(pool, copies) {
    for (uint32_t e = 0; e < cfg.dma.engines; ++e)
        units_.push_back(std::make_unique<Unit>(("engine" + std::to_string(e)).c_str(), *this, e, cfg.dma.queues_per_engine));
}

DmaEngines::~DmaEngines() = default;

TlmPort& DmaEngines::port(DmaSpace s) {
    switch (s) {
        case DmaSpace::Dram: return dram_;
        case DmaSpace::Sbuf: return sbuf;
        case DmaSpace::Psum: return psum;
        default: return act_tables;
    }
}

void append_regions(const DmaTransfer& t, const DmaEndpoint& ep, std::vector<model::isa::Region>& out) {
    using model::isa::MemSpace;
    if (!t.rows || !t.bytes) return;
    if (ep.space == DmaSpace::Sbuf || ep.space == DmaSpace::Psum) {
        const model::isa::Location l = model::isa::decode_addr4(static_cast<uint32_t>(ep.addr));
        out.push_back({l.space, l.partition, l.partition + t.rows, static_cast<int64_t>(l.offset), static_cast<int64_t>(l.offset + t.bytes)});
    } else if (ep.space == DmaSpace::Dram) {
        const auto at = [&](uint64_t a, uint64_t n) { out.push_back({MemSpace::Dram, 0, 1, static_cast<int64_t>(a), static_cast<int64_t>(a + n)}); };
        if (t.rows == 1 || ep.row_stride == t.bytes) at(ep.addr, t.total());
        else
            for (uint32_t r = 0; r < t.rows; ++r) at(ep.addr + uint64_t{r} * ep.row_stride, t.bytes);
    }
}

uint64_t DmaEngines::tlm_address(const DmaEndpoint& ep, uint32_t row, uint32_t bytes) const {
    if (ep.space == DmaSpace::Dram || ep.space == DmaSpace::ActTables) return ep.addr + uint64_t{row} * ep.row_stride;
    if (ep.addr > UINT32_MAX) throw Error("an SBUF/PSUM address is an ADDR4 (32 bits)");
    model::isa::Location l = model::isa::decode_addr4(static_cast<uint32_t>(ep.addr));
    if (static_cast<uint8_t>(l.space) != static_cast<uint8_t>(ep.space)) throw Error(model::isa::format_location(l) + " is not in " + space_text(ep.space));
    if (l.partition + uint64_t{row} >= map_.partitions())
        throw Error(space_text(ep.space) + " row " + std::to_string(row) + " is partition " + std::to_string(l.partition + row) + ", past the " +
                    std::to_string(map_.partitions()) + " partitions");
    l.partition += row;
    return map_.linear_named_by(l, bytes, [row] { return "row " + std::to_string(row); });
}

uint32_t DmaEngines::engine_of_row(const DmaTransfer& t, uint32_t row) const {
    const uint32_t engines = static_cast<uint32_t>(units_.size());
    const uint32_t per = std::max<uint32_t>(1, map_.partitions() / engines);
    auto partition = [&](const DmaEndpoint& ep) { return model::isa::decode_addr4(static_cast<uint32_t>(ep.addr)).partition + row; };
    const uint64_t p = t.dst.space == DmaSpace::Sbuf || t.dst.space == DmaSpace::Psum   ? partition(t.dst)
                       : t.src.space == DmaSpace::Sbuf || t.src.space == DmaSpace::Psum ? partition(t.src)
                                                                                        : row;
    return static_cast<uint32_t>((p / per) % engines);
}

uint32_t DmaEngines::busiest_rows(const DmaJob& job) const {
    std::vector<uint32_t> rows(units_.size(), 0);
    uint32_t most = 0;
    for (const DmaTransfer& t : job.parts)
        for (uint32_t r = 0; r < t.rows; ++r) {
            const uint32_t e = job.engine >= 0 ? static_cast<uint32_t>(job.engine) % rows.size() : engine_of_row(t, r);
            most = std::max(most, ++rows[e]);
        }
    return most;
}

void DmaEngines::submit(DmaJob spec) {
    if (spec.engine >= static_cast<int>(units_.size()))
        throw Error("DMA engine " + std::to_string(spec.engine) + " does not exist (" + std::to_string(units_.size()) + " configured)");
    if (spec.queue >= cfg_.dma.queues_per_engine)
        throw Error("DMA queue " + std::to_string(spec.queue) + " does not exist (" + std::to_string(cfg_.dma.queues_per_engine) + " per engine)");
    // Bound the work, then validate every row before any time passes.
    uint64_t total = 0;
    for (const DmaTransfer& t : spec.parts) total += t.total();
    if (budget_) budget_->dma_bytes(total, spec.label);
    for (const DmaTransfer& t : spec.parts)
        for (uint32_t r = 0; r < t.rows; ++r) {
            tlm_address(t.src, r, t.bytes);
            tlm_address(t.dst, r, t.bytes);
        }
    auto job = std::make_shared<Job>();
    job->spec = std::move(spec);
    // Rows by engine, in row order: a run of rows on one engine is one entry.
    std::vector<std::shared_ptr<Packet>> by_engine(units_.size());
    for (size_t i = 0; i < job->spec.parts.size(); ++i) {
        const DmaTransfer& t = job->spec.parts[i];
        for (uint32_t r = 0; r < t.rows; ++r) {
            const uint32_t e = job->spec.engine >= 0 ? static_cast<uint32_t>(job->spec.engine) : engine_of_row(t, r);
            std::shared_ptr<Packet>& p = by_engine[e];
            if (!p) {
                p = std::make_shared<Packet>();
                p->job = job;
                p->epoch = epoch_;
                p->engine = e;
                p->queue = job->spec.queue;
            }
            if (!p->rows.empty() && p->rows.back().part == i && p->rows.back().last == r) ++p->rows.back().last;
            else p->rows.push_back({i, r, r + 1});
            ++p->descriptors;
            p->bytes += t.bytes;
        }
    }
    ++jobs_;
    bytes_ += total;
    for (auto& p : by_engine)
        if (p) ++job->packets_left;
    if (!job->packets_left) {  // nothing to move (no rows): done at once
        if (job->spec.done) job->spec.done();
        return;
    }
    for (auto& p : by_engine)
        if (p) units_[p->engine]->enqueue(std::move(p));
}

double DmaEngines::rate() const {
    const double engine = cfg_.dma.bytes_per_ns_per_engine;
    return streaming_ ? std::min(engine, cfg_.dma.aggregate_bytes_per_ns / streaming_) : engine;
}

// The engines moving bytes share the aggregate bandwidth: each streams at rate(), which
// changes when one starts or stops; the others then go on at the new rate from that moment.
void DmaEngines::stream(double bytes, const Packet& p) {
    if (bytes <= 0) return;
    double before = rate();
    ++streaming_;
    if (rate() != before) share_changed_.notify(sc_core::SC_ZERO_TIME);
    for (;;) {
        const double r = rate();
        const sc_core::sc_time left(bytes / r, sc_core::SC_NS);
        if (left == sc_core::SC_ZERO_TIME) break;
        const sc_core::sc_time t0 = sc_core::sc_time_stamp();
        wait(left, share_changed_);
        const sc_core::sc_time took = sc_core::sc_time_stamp() - t0;
        if (took >= left || stale(p)) break;
        bytes -= r * took.to_seconds() * 1e9;
    }
    before = rate();
    --streaming_;
    if (rate() != before) share_changed_.notify(sc_core::SC_ZERO_TIME);
}

sc_core::sc_time DmaEngines::move(const Packet& p, std::vector<uint8_t>& buf) {
    sc_core::sc_time annotated = sc_core::SC_ZERO_TIME;
    const DmaJob& spec = p.job->spec;
    if (timing_only_ && spec.element_values) return annotated;
    // Copies between DMI regions of DRAM, SBUF and PSUM are queued when the core queues copies
    // (the ACT table memory is the engine's state, and has no regions to settle over); the
    // packet's regions are its transfers' (bounding boxes of its rows).
    bool queue = copies_.queuing();
    for (const Packet::Rows& run : p.rows)
        queue = queue && spec.parts[run.part].src.space != DmaSpace::ActTables && spec.parts[run.part].dst.space != DmaSpace::ActTables;
    std::vector<CopiesInFlight::Piece> pieces;
    auto post = [&] {
        if (pieces.empty()) return;
        std::vector<model::isa::Region> reads, writes;
        size_t last = SIZE_MAX;
        for (const Packet::Rows& run : p.rows)
            if (run.part != last) {
                last = run.part;
                append_regions(spec.parts[run.part], spec.parts[run.part].src, reads);
                append_regions(spec.parts[run.part], spec.parts[run.part].dst, writes);
            }
        copies_.post(std::move(pieces), std::move(reads), std::move(writes));
        pieces.clear();
    };
    auto land_now = [&] {  // (on an error: the rows before it moved; allocates nothing)
        copies_.settle_all();
        for (const CopiesInFlight::Piece& c : pieces) std::memcpy(c.dst, c.src, c.n);
        pieces.clear();
    };
    if (!queue) copies_.settle_all();  // (what it reads or writes may be a queued copy's)
    // Every chunk, or false when a RESET dropped the packet meanwhile (a memory may wait inside
    // a transport): nothing moves after it.
    auto chunks = [&]() -> bool {
        for (const Packet::Rows& run : p.rows) {
            const DmaTransfer& t = spec.parts[run.part];
            TlmPort &from = port(t.src.space), &to = port(t.dst.space);
            buf.resize(std::min<uint64_t>(t.bytes, kChunk));
            const bool same_memory = t.src.space == t.dst.space;
            for (uint32_t r = run.first; r < run.last; ++r) {
                const uint64_t src = tlm_address(t.src, r, t.bytes), dst = tlm_address(t.dst, r, t.bytes);
                for (uint64_t at = 0; at < t.bytes; at += kChunk) {
                    if (cancel_ && cancel_->load(std::memory_order_relaxed)) throw Cancelled{};
                    if (stale(p)) return false;
                    const uint64_t n = std::min<uint64_t>(kChunk, t.bytes - at);
                    // Both sides of the chunk in DMI regions (a row may cross several: DRAM
                    // grants a page at a time), and not one memory's overlapping ranges: copied
                    // region by region, no buffer (direct_copy).
                    const bool overlapping = same_memory && src + at < dst + at + n && dst + at < src + at + n;
                    if (!overlapping && direct_copy(from, src + at, to, dst + at, n, annotated, queue ? &pieces : nullptr)) continue;
                    if (queue) {  // through the targets' transports, after the copies before it
                        post();
                        copies_.settle_all();
                    }
                    annotated = add_delay(annotated, from.read(src + at, buf.data(), n), "the memories' annotated delays");
                    annotated = add_delay(annotated, to.write(dst + at, buf.data(), n), "the memories' annotated delays");
                }
            }
        }
        return true;
    };
    try {
        const bool whole = chunks();
        post();
        if (!whole) {
            annotated_ += annotated;
            return annotated;
        }
    } catch (const Error& e) {
        land_now();
        if (!p.job->failed && spec.failed) spec.failed(e.what());
        p.job->failed = true;
    } catch (const std::bad_alloc&) {
        land_now();
        if (!p.job->failed && spec.failed) spec.failed("the host is out of memory moving its rows");
        p.job->failed = true;
    } catch (...) {
        land_now();
        throw;
    }
    try {
        after_now(annotated, "the memories' annotated delays");  // (waited for by the engine next)
    } catch (const Error& e) {
        if (!p.job->failed && spec.failed) spec.failed(e.what());
        p.job->failed = true;
        annotated = sc_core::SC_ZERO_TIME;
    }
    annotated_ = annotated > sc_core::sc_max_time() - annotated_ ? sc_core::sc_max_time() : annotated_ + annotated;  // (a statistic: saturates)
    return annotated;
}

bool DmaEngines::stale(const Packet& p) const { return p.epoch != epoch_; }

// [src, +n) of `from` to [dst, +n) of `to` when every byte of both lies in DMI regions the
// targets grant (asked for where a port holds none yet: each region is resolved once, not per
// access; false, nothing copied, otherwise): what read() into a buffer and write() from it
// count and annotate - an access and a latency per region each side meets - without the buffer.
bool DmaEngines::direct_copy(TlmPort& from, uint64_t src, TlmPort& to, uint64_t dst, uint64_t n, sc_core::sc_time& annotated,
                             std::vector<CopiesInFlight::Piece>* queue) {
    TlmPort::Span s, d;
    auto pieces = [](TlmPort& port, uint64_t addr, uint64_t len, bool write, uint64_t& accesses, sc_core::sc_time& latency) {
        while (len) {
            uint64_t room = 0;
            TlmPort::Span sp;
            if (!port.span_or_request(addr, len, write, sp, room, write)) return false;  // (the copy below writes all of it)
            ++accesses;
            latency = add_delay(latency, sp.latency, "the memories' annotated delays");
            const uint64_t k = std::min(len, room);
            addr += k, len -= k;
        }
        return true;
    };
    uint64_t reads = 0, writes = 0;
    sc_core::sc_time rl = sc_core::SC_ZERO_TIME, wl = sc_core::SC_ZERO_TIME;
    if (!pieces(from, src, n, false, reads, rl) || !pieces(to, dst, n, true, writes, wl)) return false;
    for (uint64_t done = 0; done < n;) {
        uint64_t sroom = 0, droom = 0;
        // (resolved again: a region the walk above found may since have been dropped from its
        // port's cache by a later grant; the pointer in hand stays valid either way)
        if (!from.span_or_request(src + done, n - done, false, s, sroom) || !to.span_or_request(dst + done, n - done, true, d, droom, true))
            throw Error("a memory refused the DMI it had granted for the copy");
        const uint64_t k = std::min({n - done, sroom, droom});
        if (queue) queue->push_back({d.ptr, s.ptr, static_cast<size_t>(k)});
        else std::memcpy(d.ptr, s.ptr, k);
        done += k;
    }
    from.count_direct(reads);
    to.count_direct(writes);
    annotated = add_delay(annotated, rl, "the memories' annotated delays");
    annotated = add_delay(annotated, wl, "the memories' annotated delays");
    return true;
}

void DmaEngines::reset() {
    copies_.settle_all();  // (the rows moved so far stay)
    ++epoch_;
    for (auto& u : units_) u->reset();
    reset_event_.notify(sc_core::SC_ZERO_TIME);
    share_changed_.notify(sc_core::SC_ZERO_TIME);
}

void DmaEngines::finished(const Packet& p) {
    if (--p.job->packets_left == 0 && p.job->spec.done) p.job->spec.done();
}

void DmaEngines::collect_stats(nlohmann::ordered_json& node) const {
    namespace s = stats::dma;
    uint64_t packets = 0, descriptors = 0;
    nlohmann::ordered_json per = nlohmann::ordered_json::object();
    for (size_t e = 0; e < units_.size(); ++e) {
        const Unit& u = *units_[e];
        packets += u.packets;
        descriptors += u.descriptors;
        per[std::to_string(e)] = {{s::engine_packets.leaf(), u.packets},
                                  {s::engine_descriptors.leaf(), u.descriptors},
                                  {s::engine_bytes.leaf(), u.bytes},
                                  {s::engine_busy_ps.leaf(), u.busy.value()}};
    }
    stats::put(node, s::transfers, jobs_);
    stats::put(node, s::packets, packets);
    stats::put(node, s::descriptors, descriptors);
    stats::put(node, s::bytes, bytes_);
    stats::put(node, s::annotated_delay_ps, annotated_.value());
    node[s::engine_packets.head()] = std::move(per);
}

BusyIntervals DmaEngines::busy_union() const {
    BusyIntervals u;
    for (const auto& unit : units_) u = BusyIntervals::unite(u, unit->spans);
    return u;
}

}  // namespace neuronsim::platform
