#pragma once
// The ACT engine's table memory: CAM, PROFILE, CONTROL and BUCKET, sized from the config
// (act.tables), behind one TLM-2.0 target (b_transport, transport_dbg, DMI) with a region
// per table at fixed offsets (docs/act-engine.md). LoadActFuncSet's DMA writes the set images
// through it; a virtual platform may write them too, and Activate evaluates whatever is there.
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "model/pwp/flat_table.h"
#include "model/pwp/table_image.h"
#include "platform/config.h"
#include "platform/core/stats.h"

namespace neuronsim::platform {

class ActTables : public sc_core::sc_module, public StatsProvider {
public:
    // Any number of initiators (the DMA, the engines, the device's windows) bind to it.
    tlm_utils::multi_passthrough_target_socket<ActTables> socket;

    ActTables(sc_core::sc_module_name name, const ActTablesConfig& cfg);

    // Region bases in the target's address space.
    uint64_t cam_base() const { return 0; }
    uint64_t profile_base() const { return cam_.size(); }
    uint64_t control_base() const { return profile_base() + profile_.size(); }
    uint64_t bucket_base() const { return control_base() + control_.size(); }
    uint64_t size() const { return bucket_base() + bucket_.size(); }

    const model::pwp::TableGeometry& geometry() const { return geo_; }
    const uint8_t* cam() const { return cam_.data(); }
    const uint8_t* profile() const { return profile_.data(); }

    // The evaluator's view; `control_words` is what the resident set loaded.
    model::pwp::TableView view() const;
    void set_resident(const std::string& name, uint32_t control_words, const std::vector<std::string>& functions);
    const std::string& resident() const { return resident_; }
    std::string function_name(int slot) const;  // of the resident set, or "slot N"

    // The tables of the function in PROFILE slot `slot` (whose record decodes to `meta`),
    // decoded for the fast path (model/pwp/flat_table.h). Decoded once per content of the
    // table memory: any write, a new resident set or a DMI grant (whose writes are unseen)
    // makes the next call decode again; a call with DMI granted first revokes it.
    const model::pwp::FlatTable& flat(int slot, const model::pwp::FuncMeta& meta);

    void collect_stats(nlohmann::ordered_json& node) const override;

private:
    void b_transport(int id, tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
    unsigned int transport_dbg(int id, tlm::tlm_generic_payload& t);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi);
    uint8_t* locate(uint64_t addr, uint64_t len, uint64_t* region_start = nullptr, uint64_t* region_len = nullptr);

    model::pwp::TableGeometry geo_;
    std::vector<uint8_t> cam_, profile_, control_, bucket_;
    std::string resident_;
    uint32_t control_words_ = 0;
    std::vector<std::string> functions_;
    uint64_t bytes_written_ = 0;

    uint64_t version_ = 1;  // bumped by every change the evaluator could see
    bool dmi_granted_ = false;  // some initiator may be writing through DMI
    struct Decoded {
        uint64_t version = 0;
        model::pwp::FlatTable table;
    };
    std::vector<Decoded> decoded_;  // by PROFILE slot
};

}  // namespace neuronsim::platform
