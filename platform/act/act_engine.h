#pragma once
// The Activation engine: LoadActFuncSet (0x23) DMAs a function set's images
// from DRAM into the table memory; Activate (0x21), ActivateQuantize (0x22) and Activate2
// (0x25, where the generation has it) evaluate out = f(scale*in + bias) per element from the
// resident tables; ReadAccumulator (0x24) drains the per-partition fp32 accumulator; a `copy`
// (0xD1) on the ACT queue is a hardware-DGE DMA trigger. Time per instruction follows
// act_timing.h (a four-stage pipeline; an instruction waits for the results it reads); each
// instruction is one numeric kernel call, done when it issues, and O(1) waits.
//
// One class, its jobs in files of their own: act_engine.cpp decodes and dispatches, keeps the
// pipeline's dependencies, the DGE trigger, ReadAccumulator and the stats; the operands'
// validation is platform/core/tensor_operand.* (shared with VectorE and TensorE);
// act_table_load.cpp LoadActFuncSet; act_activate.cpp the three Activate instructions and
// their element loops.
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "model/common/worker_pool.h"
#include "model/fp/dtype.h"
#include "model/isa/address.h"
#include "model/isa/layouts.h"
#include "model/isa/region.h"
#include "model/pwp/catalog.h"
#include "model/pwp/fast_eval.h"
#include "platform/act/act_tables.h"
#include "platform/act/act_timing.h"
#include "platform/core/datapath_engine.h"
#include "platform/tlm/tlm_port.h"

namespace neuronsim::platform {

struct Pattern;  // a validated tensor operand (platform/core/tensor_operand.h)

class ActEngine : public DatapathEngine {
public:
    // Its memories: SBUF and PSUM (DatapathEngine's sbuf, psum), its own table memory
    // (`tables`, a child module the DMA writes).

    ActEngine(sc_core::sc_module_name name, EngineContext& ctx, InstructionSource& source);
    ~ActEngine() override;
    ActTables& tables() { return *tables_; }
    void bind(CoreMemories& m) override;
    ActTables* table_memory() override { return tables_.get(); }
    void collect_stats(nlohmann::ordered_json& node) const override;
    void reset_state() override;  // and the pipeline, the dependencies, a table load in flight

protected:
    bool execute(const model::isa::Bundle& b, uint64_t index) override;

private:
    void load_set(const model::isa::Bundle& b, uint64_t index);
    void dge_copy(const model::isa::Bundle& b, uint64_t index);
    void check_loaded_image(const std::string& name) const;
    // A table load in flight: instructions that use the tables (or load them) wait for it.
    void wait_for_tables();
    void activate(const model::isa::Bundle& b);
    void activate_quantize(const model::isa::Bundle& b);
    void activate2(const model::isa::Bundle& b);
    void read_accumulator(const model::isa::Bundle& b);

    struct Resolved {
        model::pwp::FuncMeta meta;
        const model::pwp::CatalogFn* exact = nullptr;  // --act-numerics exact: its closed form
        const model::pwp::FlatTable* flat = nullptr;  // the resident tables, decoded
        // One element: the fast path, or the table-memory evaluator where it cannot decide.
        float eval(const model::pwp::TableView& view, float v) const {
            if (exact) return model::pwp::closed_form(*exact, v);
            float y;
            if (flat && model::pwp::fast_one(*flat, v, y)) return y;
            return model::pwp::evaluate_from_tables(view, meta, v);
        }
    };
    Resolved resolve(uint8_t opcode, uint8_t func_id) const;
    template <typename F>
    void for_each(const Pattern& src, const Pattern& dst, uint32_t p, F&& f);
    // Partition p by batches (Activate, ActivateQuantize, Activate2): each element loaded as
    // `in` and mapped by `pre` to the function's input, the fast pass over the batch (the
    // reference path for the elements it flags), `fold` over the batch's results in element
    // order (the accumulator, Activate2's reduction), then each result mapped by `post`
    // (ActivateQuantize's quantisation) and stored as `out`, in element order. Same results and
    // errors as for_each.
    template <typename Pre, typename Fold, typename Post>
    void batched(const Pattern& src, const Pattern& dst, uint32_t p, const Resolved& fn, const model::pwp::TableView& view, model::fp::Dtype in, Pre pre,
                 Fold fold, Post post, model::fp::Dtype out);
    // The same for partitions [p0, p0 + count) (count <= kLanes) a batch of each in turn, for
    // partitions independent of each other (rows_independent): `pre_of(p)` is partition p's
    // `pre`; `fold(p0, y, count, m)` has the batch of each, y[i] partition p0 + i's. Folding
    // several partitions' batches together lets their sums, each a chain of dependent adds in
    // element order, overlap (Activate's accumulator). The error thrown is the first
    // partition's, as for one partition after another.
    static constexpr uint32_t kLanes = 8;
    template <typename PreOf, typename Fold, typename Post>
    void batched_lanes(const Pattern& src, const Pattern& dst, uint32_t p0, uint32_t count, const Resolved& fn, const model::pwp::TableView& view,
                       model::fp::Dtype in, PreOf pre_of, Fold fold, Post post, model::fp::Dtype out);
    // Whether no partition of an instruction writing `dst` reads what another writes: each
    // operand at `reads` (SBUF/PSUM locations) lies in another memory or starts at dst's
    // partition, so partition p reads only rows partition p writes.
    bool rows_independent(const Pattern& dst, uint32_t nch, const std::vector<model::isa::Location>& reads) const;
    // Whether the partitions may run on several host threads: rows_independent, with threads.
    bool partitions_independent(const Pattern& dst, uint32_t nch, const std::vector<model::isa::Location>& reads) const;
    // Counts the traffic, fills the record and issues the instruction (issue()), before its data.
    void start_streaming(const Pattern& src, const Pattern& dst, uint32_t nch, model::fp::Dtype in, model::fp::Dtype out,
                         std::vector<model::isa::Region> pointer_reads);

    std::unique_ptr<ActTables> tables_;
    std::vector<float> acc_;
    ActTiming timing_;
    bool tables_loading_ = false;  // a LoadActFuncSet's DMA is in flight ...
    uint64_t loading_index_ = 0;  // ... for this instruction
    sc_core::sc_event tables_loaded_;
    uint64_t loads_ = 0, redundant_loads_ = 0, load_bytes_ = 0, elements_ = 0;
    uint64_t bytes_read_[2] = {0, 0}, bytes_written_[2] = {0, 0};  // SBUF, PSUM
    // Table loads by (resident set before, set loaded): how often, how long, and the functions
    // the loaded set served first (what forced the switch).
    struct Switch {
        uint64_t count = 0;
        sc_core::sc_time time = sc_core::SC_ZERO_TIME;
        std::set<std::string> functions;
    };
    std::map<std::pair<std::string, std::string>, Switch> switches_;
    Switch* pending_switch_ = nullptr;
};

}  // namespace neuronsim::platform
