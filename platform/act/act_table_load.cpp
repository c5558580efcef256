// LoadActFuncSet: the function set's images DMA'd from DRAM into the table memory, the
// resident set and the switches it makes; instructions that use the tables wait for a load.
#include "platform/act/act_engine.h"
#include "platform/core/tensor_operand.h"
#include "platform/core/work_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/fp/dtype.h"
#include "model/isa/access_pattern.h"
#include "model/isa/act_operands.h"
#include "model/isa/address.h"
#include "model/isa/address_map.h"
#include "model/isa/layouts.h"
#include "model/pwp/catalog.h"
#include "model/pwp/closed_forms.h"
#include "neuronsim/act_sets.h"
#include "platform/dma/dma_copy.h"
#include "platform/dma/dma_engines.h"
#include "platform/record/recorder.h"
#include "platform/tlm/memory.h"
#include "stats/stat_records.h"

namespace neuronsim::platform {

using namespace model::isa;
using model::fp::Dtype;
using model::isa::AccessPattern;
using model::isa::Region;

using model::fp::hex2;
using model::isa::OperandSource;

void ActEngine::wait_for_tables() {
    if (!tables_loading_) return;
    detail_.producer = &label();
    detail_.producer_index = loading_index_;
    while (tables_loading_) hold(tables_loaded_);
}

void ActEngine::load_set(const Bundle& b, uint64_t index) {
    // One load at a time, and only once the instructions in flight (which read the tables)
    // have completed: it waits for the pipeline to drain.
    wait_for_tables();
    const uint8_t idx = b.u8(offsetof(TableLoadOp, act_tbl_sel));
    const ActSetDirectory dir = ctx_.act_sets();
    if (idx >= dir.count)
        throw Error("load_act_func_set " + std::to_string(idx) + ": the roster has " + std::to_string(dir.count) + " sets" +
                    (dir.count ? " (0.." + std::to_string(dir.count - 1) + ")" : " (the host placed none: ACT_SETS_COUNT is 0)"));
    // The directory entry and the names, from DRAM (part of the load's fixed overhead).
    ActSetEntry e;
    ctx_.dma().copies().settle_dram(dir.base + uint64_t{idx} * sizeof e, sizeof e);  // (a copy may have written them)
    ctx_.dram().read(dir.base + uint64_t{idx} * sizeof e, reinterpret_cast<uint8_t*>(&e), sizeof e);
    if (e.names_bytes == 0 || e.names_bytes > kActSetNamesMaxBytes)
        throw Error("load_act_func_set " + std::to_string(idx) + ": directory entry at DRAM " + model::fp::hex(dir.base + uint64_t{idx} * sizeof e) +
                    " has names_bytes " + std::to_string(e.names_bytes) + ", expected 1.." + std::to_string(kActSetNamesMaxBytes));
    std::string names(e.names_bytes, '\0');
    ctx_.dma().copies().settle_dram(e.names_addr, names.size());
    ctx_.dram().read(e.names_addr, reinterpret_cast<uint8_t*>(names.data()), names.size());
    check_epoch();
    std::vector<std::string> parts;
    for (size_t at = 0; at < names.size();) {
        const size_t end = names.find('\0', at);
        parts.push_back(names.substr(at, end == std::string::npos ? std::string::npos : end - at));
        if (end == std::string::npos) break;
        at = end + 1;
    }
    if (e.flags & kActSetUnloadable) throw Error(parts.empty() ? "load_act_func_set " + std::to_string(idx) + ": the set cannot be loaded" : parts[0]);
    const std::string name = parts.empty() ? "set " + std::to_string(idx) : parts[0];
    const std::vector<std::string> functions(parts.empty() ? parts.begin() : parts.begin() + 1, parts.end());
    const ActTables& t = *tables_;
    const uint64_t sizes[4] = {e.cam_bytes, e.profile_bytes, e.control_bytes, e.bucket_bytes};
    const uint64_t room[4] = {t.profile_base() - t.cam_base(), t.control_base() - t.profile_base(), t.bucket_base() - t.control_base(),
                              t.size() - t.bucket_base()};
    static const char* table[4] = {"CAM", "PROFILE", "CONTROL", "BUCKET"};
    for (int i = 0; i < 4; ++i)
        if (sizes[i] > room[i])
            throw Error("set " + name + ": its " + table[i] + " image of " + std::to_string(sizes[i]) + " bytes does not fit the " + std::to_string(room[i]) +
                        "-byte ACT " + table[i] + " table");
    // The directory is DRAM, which anything may write: every count is checked against the
    // table memory before it is trusted.
    if (e.control_words > t.geometry().control_entries)
        throw Error("set " + name + ": its directory entry at DRAM " + model::fp::hex(dir.base + uint64_t{idx} * sizeof e) + " gives control_words " +
                    std::to_string(e.control_words) + ", more than the " + std::to_string(t.geometry().control_entries) +
                    " CONTROL entries (act.tables.control_entries)");
    // One DMA transfer: the four images, DRAM -> table memory, a descriptor each, on the
    // table-load engine and queue.
    DmaJob job;
    uint64_t dram = e.image_addr;
    auto add = [&](uint64_t bytes, uint64_t table_addr) {
        if (!bytes) return;
        DmaTransfer tr;
        tr.src = {DmaSpace::Dram, dram, 0};
        tr.dst = {DmaSpace::ActTables, table_addr, 0};
        tr.rows = 1;
        tr.bytes = static_cast<uint32_t>(bytes);
        job.parts.push_back(tr);
        dram += bytes;
    };
    add(e.cam_bytes, t.cam_base());
    add(e.profile_bytes, t.profile_base());
    add(e.control_bytes, t.control_base());
    add(e.bucket_bytes, t.bucket_base());
    job.engine = static_cast<int>(ctx_.config().act.table_load_dma_engine);
    job.queue = ctx_.config().act.table_load_dma_queue;
    job.element_values = false;
    job.label = "load_act_func_set " + name;
    const uint64_t bytes = sizes[0] + sizes[1] + sizes[2] + sizes[3];
    // The sequencer issues it (the static overhead) once the pipeline has drained; then the
    // DMA runs while ACT's queue goes on (the next table user waits for it).
    const sc_core::sc_time drained(static_cast<double>(pipe_.drained()), sc_core::SC_PS);
    if (drained > now() && !pending_.empty()) {
        detail_.producer = &label();
        detail_.producer_index = pending_.back().index;
    }
    const StagePipeline::Slot s = pipe_.sequencer(std::max(drained, now()).value(), cycles(ctx_.config().act.static_overhead_cycles).value());
    const sc_core::sc_time start(static_cast<double>(s.start), sc_core::SC_PS), issued(static_cast<double>(s.end), sc_core::SC_PS);
    if (start > now()) hold(start - now());
    detail_.start = start;
    hold(issued - now());
    seq_free_ = issued;
    detail_.function = name;
    detail_.shape.bytes = bytes;
    const bool redundant = tables_->resident() == name;
    const std::string from = tables_->resident().empty() ? "(none)" : tables_->resident();
    tables_loading_ = true;
    loading_index_ = index;
    const uint32_t control_words = e.control_words;
    auto loaded = [this] {  // whether or not the image arrived: the next table user may go on
        tables_loading_ = false;
        tables_loaded_.notify(sc_core::SC_ZERO_TIME);
    };
    try {
        trigger_dma(
            std::move(job),
            [this, idx, name, from, functions, control_words, redundant, bytes, start] {
                check_loaded_image(name);
                tables_->set_resident(name, control_words, functions);
                if (Recorder* rec = ctx_.recorder()) rec->counter("act resident set", now(), idx);
                ++loads_;
                redundant_loads_ += redundant;
                load_bytes_ += bytes;
                Switch& sw = switches_[{from, name}];
                ++sw.count;
                sw.time += now() - start;
                pending_switch_ = &sw;
            },
            loaded);
    } catch (...) {
        loaded();
        throw;
    }
}

// The image that arrived, before it is used: every valid CAM entry must name a PROFILE slot the
// table memory has (an entry past them would be read out of the PROFILE table).
void ActEngine::check_loaded_image(const std::string& name) const {
    const model::pwp::TableGeometry& g = tables_->geometry();
    for (uint32_t i = 0; i < g.cam_entries; ++i) {
        const uint8_t* c = tables_->cam() + uint64_t{i} * model::pwp::kCamEntryBytes;
        if ((c[8] & 1) && i >= g.profile_slots)
            throw Error("set " + name + ": CAM entry " + std::to_string(i) + " is valid but the PROFILE table has " + std::to_string(g.profile_slots) +
                        " slots (act.tables.profile_slots): the image does not fit this table memory");
    }
}

}  // namespace neuronsim::platform
