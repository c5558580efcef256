#pragma once
// The schedule every generated kernel shares, as a compiler lays it out: rows are tiled by the
// 128 partitions; by default each tile's load is one transfer on DMA queue dma.0 and its store
// one on dma.1, each spread by the device over the 16 DMA engines (8 partitions an engine, the
// public description of a transfer), so loads, compute and stores of different tiles overlap;
// a ring of SBUF slots double-buffers the tiles (a load waits until the store of the slot's
// previous tile is done). With K "lanes" (--dma-lanes K, the per-engine form) a tile's rows are
// split over K lanes instead, lane e always moving the same partitions on its own engine,
// loads on K engines and stores on K others. Semaphores, all counting up by one per tile:
//   loaded[e]  (1 + e)   DMA lane e has loaded its rows of the tile       -> consumer waits
//                        (counts the tiles load() moved: mlp's and attention's are not)
//   decoded    (41)      POOL has decoded the tile (cptc-dequant-act)     -> ACT waits
//   computed   (40)      ACT has written the tile's outputs               -> stores wait
//   stored[e]  (20 + e)  DMA lane e has stored its rows of the tile       -> the slot's next load waits
//   to_act     (42)      VectorE has left ScalarE a tile's operand (softmax's -max)
//   to_dve     (43)      ScalarE has left VectorE a tile's values (its sums, its normalised rows)
//   constants  (44)      a phase's constant rows are in SBUF (the norms' gamma and beta)
//   45..51               the MLP's and linear's handoffs (mlp.cpp)
//   52..60               attention's handoffs (attention.cpp)
// (the spread form has one lane, e = 0).
// ACT's table loads are emitted only when the functions of a step are not resident; the set
// is the roster's first that holds them all (the compiler's first fit).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/workloads/gen_limits.h"
#include "model/workloads/trace_writer.h"

namespace neuronsim::model::workloads {

// A row-major [rows, row_bytes] tensor in DRAM. At model sizes only `ring_rows` rows are
// stored (a multiple of the partitions): row r lives at row (r mod ring_rows).
struct DramTensor {
    uint64_t addr = 0;
    uint64_t row_bytes = 0;
    uint64_t rows = 0;
    uint64_t ring_rows = 0;
    uint64_t row_addr(uint64_t r) const { return addr + (r % ring_rows) * row_bytes; }
    uint64_t stored_bytes() const { return ring_rows * row_bytes; }
};

// One row of `tensor` per partition, at `slot_offset` in the tile's SBUF slot; or, with
// `bytes`, that many of each row from byte `row_offset` (a block of columns).
struct TileIo {
    const DramTensor* tensor;
    uint64_t slot_offset;
    uint64_t row_offset = 0, bytes = 0;
};

struct Tile {
    uint64_t index = 0;  // over the whole trace: semaphores count tiles
    uint64_t row0 = 0;  // first row of the phase's tensors
    uint32_t rows = 0;  // active partitions
    uint64_t slot = 0;  // SBUF offset of its slot
};

inline constexpr uint32_t kSemLoaded = 1, kSemStored = 20, kSemComputed = 40, kSemDecoded = 41, kSemToAct = 42, kSemToDve = 43, kSemConstants = 44;

class TilePipeline {
public:
    // `lanes`: DMA engines for loads (and as many for stores), each lane's rows on its own
    // engine; 0 = the spread form (one transfer per tile on dma.0, stores on dma.1).
    TilePipeline(TraceWriter& w, const GenLimits& g, uint32_t lanes = 0);

    uint32_t lanes() const { return lanes_; }
    bool spread() const { return spread_; }
    // A new phase: `slots` slots of `slot_bytes` per partition from SBUF offset `base`. Its
    // first loads wait until every earlier tile is stored (the phases' buffers may overlap).
    void begin_phase(uint64_t base, uint32_t slots, uint64_t slot_bytes);
    Tile next_tile(uint64_t row0, uint32_t rows);
    void load(const Tile& t, const std::vector<TileIo>& in);
    // Zero-time syncs on `engine` until every lane has loaded the tile.
    void wait_loaded(const std::string& engine, const Tile& t);
    void store(const Tile& t, const std::vector<TileIo>& out);
    // ACT: loads the first roster set holding all of `functions` unless the resident set does.
    void ensure_resident(const std::vector<std::string>& functions);
    uint64_t table_loads() const { return table_loads_; }
    // A handoff (to_act, to_dve, constants): the producer's update counts `sem` up by one;
    // returns the count its consumer waits for.
    uint64_t signal(uint32_t sem) { return ++signals_[sem]; }
    // The count `sem` has reached so far (what signal() last returned, 0 before any).
    uint64_t signalled(uint32_t sem) const {
        const auto it = signals_.find(sem);
        return it == signals_.end() ? 0 : it->second;
    }
    // `t`'s row into every partition at SBUF `offset` (a broadcast: source row stride 0) on the
    // load engine, once every earlier tile is stored; returns the constants count to wait for.
    uint64_t load_constant(const DramTensor& t, uint64_t offset);
    uint64_t tiles() const { return next_index_; }

    // For a phase that fills SBUF other than by load(): syncs on `engine` until every tile of
    // the earlier phases is stored, the last wait returned as a field for the first transfer
    // ("" in the first phase).
    std::string wait_earlier_phases(const std::string& engine);
    // For a tile whose slot is written other than by load(): syncs on `engine` until the
    // slot's previous tile is stored (none for the phase's first `slots` tiles).
    void wait_slot_free(const std::string& engine, const Tile& t);
    // One DMA trigger: `rows` rows of `bytes`; a stride is the DRAM bytes between rows (0: every
    // row the same DRAM bytes, a broadcast; SBUF/PSUM rows are partitions, no stride).
    void copy(const std::string& engine, const std::string& src, const std::string& dst, uint32_t rows, uint64_t bytes, uint64_t src_stride,
              uint64_t dst_stride, const std::string& wait, const std::string& update);

    TraceWriter& writer() { return w_; }

private:
    std::string load_engine(uint32_t lane) const;
    std::string store_engine(uint32_t lane) const;
    std::pair<uint32_t, uint32_t> lane_rows(uint32_t lane, uint32_t rows) const;  // [lo, hi)

    TraceWriter& w_;
    GenLimits g_;
    uint32_t lanes_;
    bool spread_ = false;
    std::vector<uint32_t> engines_;  // per-engine form: the DMA engines in use, loads first, then stores
    uint64_t next_index_ = 0;
    uint64_t loads_ = 0;  // tiles load() has moved
    uint64_t unloaded_ = 0;  // tiles of earlier phases that load() did not move (loaded[e] skips them)
    uint64_t phase_first_ = 0;  // index of the phase's first tile
    uint64_t base_ = 0, slot_bytes_ = 0;
    uint32_t slots_ = 2;
    int resident_ = -1;
    uint64_t table_loads_ = 0;
    std::map<uint32_t, uint64_t> signals_;
};

// Bytes rounded up to 64 (slot fields start on 64-byte boundaries).
inline uint64_t align64(uint64_t b) { return (b + 63) & ~uint64_t{63}; }

}  // namespace neuronsim::model::workloads
