#include "platform/act/act_tables.h"

#include <cstring>

#include "stats/stat_records.h"

namespace neuronsim::platform {

ActTables::ActTables(sc_core::sc_module_name name, const ActTablesConfig& c) : sc_core::sc_module(name), socket("socket") {
    geo_ = model::pwp::table_geometry(c);
    cam_.assign(uint64_t{c.cam_entries} * model::pwp::kCamEntryBytes, 0);
    profile_.assign(uint64_t{c.profile_slots} * model::pwp::kProfileSlotBytes, 0);
    control_.assign(uint64_t{c.control_entries} * c.control_stride_bytes, 0);
    bucket_.assign(uint64_t{c.bucket_entries} * 32, 0);
    socket.register_b_transport(this, &ActTables::b_transport);
    socket.register_transport_dbg(this, &ActTables::transport_dbg);
    socket.register_get_direct_mem_ptr(this, &ActTables::get_direct_mem_ptr);
}

model::pwp::TableView ActTables::view() const {
    model::pwp::TableView v;
    v.control = control_.data();
    v.control_words = control_words_;
    v.control_stride = geo_.control_stride;
    v.bucket = bucket_.data();
    v.bucket_entries = geo_.bucket_entries;
    v.set_name = resident_.empty() ? "(none loaded)" : resident_;
    return v;
}

void ActTables::set_resident(const std::string& name, uint32_t control_words, const std::vector<std::string>& functions) {
    resident_ = name;
    control_words_ = control_words;
    functions_ = functions;
    ++version_;
}

const model::pwp::FlatTable& ActTables::flat(int slot, const model::pwp::FuncMeta& meta) {
    if (dmi_granted_) {
        for (unsigned i = 0; i < socket.size(); ++i) socket[static_cast<int>(i)]->invalidate_direct_mem_ptr(0, size() - 1);
        dmi_granted_ = false;
        ++version_;
    }
    if (decoded_.size() <= static_cast<size_t>(slot)) decoded_.resize(static_cast<size_t>(slot) + 1);
    Decoded& d = decoded_[static_cast<size_t>(slot)];
    if (d.version != version_) {
        d.table = model::pwp::flatten_tables(view(), meta);
        d.version = version_;
    }
    return d.table;
}

std::string ActTables::function_name(int slot) const {
    if (slot >= 0 && static_cast<size_t>(slot) < functions_.size()) return functions_[slot];
    return "slot " + std::to_string(slot);
}

uint8_t* ActTables::locate(uint64_t addr, uint64_t len, uint64_t* rs, uint64_t* rl) {
    std::vector<uint8_t>* regions[] = {&cam_, &profile_, &control_, &bucket_};
    uint64_t base = 0;
    for (auto* r : regions) {
        if (addr >= base && addr < base + r->size()) {
            if (len > base + r->size() - addr) return nullptr;  // accesses stay inside one table
            if (rs) *rs = base;
            if (rl) *rl = r->size();
            return r->data() + (addr - base);
        }
        base += r->size();
    }
    return nullptr;
}

void ActTables::b_transport(int id, tlm::tlm_generic_payload& t, sc_core::sc_time&) { transport_dbg(id, t); }

unsigned int ActTables::transport_dbg(int, tlm::tlm_generic_payload& t) {
    uint8_t* p = locate(t.get_address(), t.get_data_length());
    if (!p || t.get_byte_enable_ptr()) {
        t.set_response_status(p ? tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return 0;
    }
    if (t.is_read()) std::memcpy(t.get_data_ptr(), p, t.get_data_length());
    else if (t.is_write()) {
        std::memcpy(p, t.get_data_ptr(), t.get_data_length());
        bytes_written_ += t.get_data_length();
        ++version_;
    }
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return t.get_data_length();
}

bool ActTables::get_direct_mem_ptr(int, tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
    uint64_t start = 0, len = 0;
    uint8_t* p = locate(t.get_address(), 1, &start, &len);
    if (!p) return false;
    dmi.allow_read_write();
    dmi_granted_ = true;
    ++version_;
    dmi.set_dmi_ptr(p - (t.get_address() - start));
    dmi.set_start_address(start);
    dmi.set_end_address(start + len - 1);
    return true;
}

void ActTables::collect_stats(nlohmann::ordered_json& node) const {
    if (!bytes_written_ && resident_.empty()) return;
    stats::put(node, stats::act_tables::bytes_written, bytes_written_);
    stats::put(node, stats::act_tables::resident_set, resident_);
}

}  // namespace neuronsim::platform
