#include "model/workloads/tile_pipeline.h"

#include <algorithm>

#include "model/common/error.h"
#include "model/workloads/act_functions.h"

namespace neuronsim::model::workloads {

TilePipeline::TilePipeline(TraceWriter& w, const GenLimits& g, uint32_t lanes) : w_(w), g_(g) {
    if (lanes == 0) {  // the spread form: the device splits each transfer over its engines
        spread_ = true;
        lanes_ = 1;
        return;
    }
    for (uint32_t e = 0; e < g.dma_engines; ++e)
        if (e != g.table_load_dma_engine) engines_.push_back(e);
    const uint32_t most = std::min<uint32_t>(7, static_cast<uint32_t>(engines_.size() / 2));
    if (most == 0) throw Error(g.name + ": a kernel needs two DMA engines beside the table-load engine (dma.engines is " + std::to_string(g.dma_engines) + ")");
    if (lanes > most)
        throw Error("--dma-lanes " + std::to_string(lanes) + ": " + g.name + " has " + std::to_string(engines_.size()) +
                    " DMA engines beside the table-load engine, so at most " + std::to_string(most) + " lanes (loads and stores on separate engines)");
    lanes_ = std::min(lanes, g.partitions);
    engines_.resize(2 * lanes_);
}

std::string TilePipeline::load_engine(uint32_t lane) const { return spread_ ? "dma.0" : "dma" + std::to_string(engines_[lane]); }
std::string TilePipeline::store_engine(uint32_t lane) const { return spread_ ? "dma.1" : "dma" + std::to_string(engines_[lanes_ + lane]); }

std::pair<uint32_t, uint32_t> TilePipeline::lane_rows(uint32_t lane, uint32_t rows) const {
    // Over the full partitions, so a lane always owns the same partitions (its stores free
    // exactly what its next loads overwrite), clipped to the tile's rows.
    const uint32_t lo = lane * g_.partitions / lanes_, hi = (lane + 1) * g_.partitions / lanes_;
    return {std::min(lo, rows), std::min(hi, rows)};
}

void TilePipeline::begin_phase(uint64_t base, uint32_t slots, uint64_t slot_bytes) {
    if (slots < 1) throw Error("a phase needs at least one SBUF slot");
    phase_first_ = next_index_;
    unloaded_ = next_index_ - loads_;
    base_ = base, slots_ = slots, slot_bytes_ = slot_bytes;
}

Tile TilePipeline::next_tile(uint64_t row0, uint32_t rows) {
    Tile t;
    t.index = next_index_++;
    t.row0 = row0;
    t.rows = rows;
    t.slot = base_ + ((t.index - phase_first_) % slots_) * slot_bytes_;
    return t;
}

void TilePipeline::copy(const std::string& engine, const std::string& src, const std::string& dst, uint32_t rows, uint64_t bytes, uint64_t src_stride,
                        uint64_t dst_stride, const std::string& wait, const std::string& update) {
    Fields f = {"src=" + src, "dst=" + dst, "partitions=" + std::to_string(rows), "bytes=" + std::to_string(bytes)};
    if (src_stride) f.push_back("src_stride=" + std::to_string(src_stride));
    if (dst_stride) f.push_back("dst_stride=" + std::to_string(dst_stride));
    if (!wait.empty()) f.push_back(wait);
    if (!update.empty()) f.push_back(update);
    w_.instr(engine, "copy", f);
}

void TilePipeline::load(const Tile& t, const std::vector<TileIo>& in) {
    // The slot's previous tile (or, for the phase's first slots, every earlier tile) must be
    // stored: stored[e] counts the lane's stores.
    const uint64_t in_phase = t.index - phase_first_;
    const uint64_t must_be_stored = in_phase >= slots_ ? t.index - slots_ + 1 : phase_first_;
    ++loads_;
    for (uint32_t e = 0; e < lanes_; ++e) {
        const auto [lo, hi] = lane_rows(e, t.rows);
        const std::string wait = must_be_stored ? wait_ge(kSemStored + e, must_be_stored) : "";
        if (lo == hi) {  // a partial tile leaves this lane nothing to move: it still counts
            Fields f = {inc(kSemLoaded + e)};
            if (!wait.empty()) f.insert(f.begin(), wait);
            w_.instr(load_engine(e), "sync", f);
            continue;
        }
        for (size_t i = 0; i < in.size(); ++i) {
            const DramTensor& d = *in[i].tensor;
            const uint64_t bytes = in[i].bytes ? in[i].bytes : d.row_bytes;
            copy(load_engine(e), dram(d.row_addr(t.row0 + lo) + in[i].row_offset), sbuf(lo, t.slot + in[i].slot_offset), hi - lo, bytes, d.row_bytes, 0,
                 i == 0 ? wait : "", i + 1 == in.size() ? inc(kSemLoaded + e) : "");
        }
    }
}

void TilePipeline::wait_loaded(const std::string& engine, const Tile& t) {
    for (uint32_t e = 0; e < lanes_; ++e) w_.instr(engine, "sync", {wait_ge(kSemLoaded + e, t.index + 1 - unloaded_)});
}

void TilePipeline::store(const Tile& t, const std::vector<TileIo>& out) {
    for (uint32_t e = 0; e < lanes_; ++e) {
        const auto [lo, hi] = lane_rows(e, t.rows);
        const std::string wait = wait_ge(kSemComputed, t.index + 1);
        if (lo == hi) {
            w_.instr(store_engine(e), "sync", {wait, inc(kSemStored + e)});
            continue;
        }
        for (size_t i = 0; i < out.size(); ++i) {
            const DramTensor& d = *out[i].tensor;
            const uint64_t bytes = out[i].bytes ? out[i].bytes : d.row_bytes;
            copy(store_engine(e), sbuf(lo, t.slot + out[i].slot_offset), dram(d.row_addr(t.row0 + lo) + out[i].row_offset), hi - lo, bytes, 0, d.row_bytes,
                 i == 0 ? wait : "", i + 1 == out.size() ? inc(kSemStored + e) : "");
        }
    }
}

uint64_t TilePipeline::load_constant(const DramTensor& t, uint64_t offset) {
    const std::string engine = load_engine(0);
    const std::string wait = wait_earlier_phases(engine);
    const uint64_t n = signal(kSemConstants);
    copy(engine, dram(t.addr), sbuf(0, offset), g_.partitions, t.row_bytes, 0, 0, wait, inc(kSemConstants));
    return n;
}

std::string TilePipeline::wait_earlier_phases(const std::string& engine) {
    std::string wait;
    if (phase_first_)  // the phase's SBUF may hold earlier phases' tiles until they are stored
        for (uint32_t e = 0; e < lanes_; ++e) {
            if (e + 1 == lanes_) wait = wait_ge(kSemStored + e, phase_first_);
            else w_.instr(engine, "sync", {wait_ge(kSemStored + e, phase_first_)});
        }
    return wait;
}

void TilePipeline::wait_slot_free(const std::string& engine, const Tile& t) {
    const uint64_t in_phase = t.index - phase_first_;
    if (in_phase < slots_) return;
    for (uint32_t e = 0; e < lanes_; ++e) w_.instr(engine, "sync", {wait_ge(kSemStored + e, t.index - slots_ + 1)});
}

void TilePipeline::ensure_resident(const std::vector<std::string>& functions) {
    if (resident_ >= 0 && std::all_of(functions.begin(), functions.end(), [&](const std::string& f) { return set_holds(resident_, f); })) return;
    const int set = first_set_covering(functions);
    if (set < 0) {
        std::string names;
        for (const auto& f : functions) names += (names.empty() ? "" : ", ") + f;
        throw Error("no set of the trainium roster holds all of " + names);
    }
    w_.instr("act", "load_act_func_set", {"set=" + std::to_string(set)}, trainium_sets()[static_cast<size_t>(set)].name);
    resident_ = set;
    ++table_loads_;
}

}  // namespace neuronsim::model::workloads
