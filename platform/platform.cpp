#include "platform/platform.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include "model/common/error.h"
#include "model/io/json_path.h"
#include "model/isa/address.h"
#include "model/isa/opcodes.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/roster.h"

namespace neuronsim::platform {

namespace fs = std::filesystem;
using model::isa::MemSpace;

Platform::Platform(sc_core::sc_module_name name, const Config& cfg, const std::map<std::string, std::string>& streams,
                   const std::string& setup, const RunOptions& options)
    : sc_core::sc_module(name), cfg_(cfg), options_(options) {
    // SystemC's own info messages (e.g. "Simulation stopped by user") are not ours to print.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    fs::create_directories(options_.out_dir);
    uint64_t total = 0;
    for (const auto& [engine, path] : streams) total += model::trace::BundleStream(path).count();
    RecorderOptions ro = options_.record;
    ro.progress = options_.progress;
    recorder_ = std::make_unique<Recorder>(options_.out_dir, total, ro);
    dram_ = std::make_unique<Memory>("dram", cfg_.memory.dram_bytes);
    sbuf_ = std::make_unique<Memory>("sbuf", uint64_t{cfg_.memory.partitions} * cfg_.memory.sbuf_bytes_per_partition, cfg_.memory.partitions);
    psum_ = std::make_unique<Memory>("psum", uint64_t{cfg_.memory.partitions} * cfg_.memory.psum_bytes_per_partition(), cfg_.memory.partitions);
    sem_ = std::make_unique<Semaphores>("semaphores", cfg_.semaphores);
    dma_ = std::make_unique<DmaEngines>("dma", cfg_, recorder_.get());
    dma_->dram_socket.bind(dram_->socket);
    dma_->sbuf_socket.bind(sbuf_->socket);
    dma_->psum_socket.bind(psum_->socket);
    act_tables_ = std::make_unique<ActTables>("act_tables", cfg_.act.tables);
    dma_->act_tables_socket.bind(act_tables_->socket);
    if (streams.count("act")) place_act_sets();
    for (const auto& [engine, path] : streams) {
        const uint32_t cls = model::isa::engine_class(engine);
        if (cls == model::isa::kOnDma) {
            std::string num = engine.substr(3, engine.find('.') == std::string::npos ? std::string::npos : engine.find('.') - 3);
            uint32_t e = static_cast<uint32_t>(std::stoul(num));
            uint32_t q = engine.find('.') == std::string::npos ? 0 : static_cast<uint32_t>(std::stoul(engine.substr(engine.find('.') + 1)));
            if (e >= cfg_.dma.engines || q >= cfg_.dma.queues_per_engine)
                throw Error(path + ": stream " + engine + " names DMA engine " + std::to_string(e) + " queue " + std::to_string(q) + ", but " +
                            cfg_.generation.name + " has " + std::to_string(cfg_.dma.engines) + " engines x " +
                            std::to_string(cfg_.dma.queues_per_engine) + " queues");
            engines_.push_back(std::make_unique<DmaQueueEngine>(module_name(engine).c_str(), engine, *this, path, e));
        } else if (cls == model::isa::kOnAct) {
            engines_.push_back(std::make_unique<ActEngine>("act", *this, path, *act_tables_, act_sets_, options_.act_exact));
        } else {
            engines_.push_back(std::make_unique<PoolEngine>("pool", *this, path));
        }
    }
    if (!setup.empty()) {
        model::trace::TraceReader reader(setup);
        while (auto r = reader.next()) {
            if (r->kind == model::trace::Record::Kind::Data) apply(r->data, r->where());
            else if (r->kind == model::trace::Record::Kind::Reg) regs_[r->reg.index] = r->reg.value;
            else if (r->kind == model::trace::Record::Kind::Dump) {
                for (uint32_t p = 0; p < r->dump.partitions; ++p) {  // validated now, read at the end
                    model::isa::Location l = r->dump.at;
                    l.partition += p;
                    linear(l, r->dump.bytes, r->where());
                }
                dumps_.push_back(r->dump);
            } else {
                throw Error(r->where() + ": instructions belong in the engine streams, not in setup.trace");
            }
        }
    }
}

Platform::~Platform() = default;

Memory& Platform::memory(MemSpace s) { return s == MemSpace::Dram ? *dram_ : s == MemSpace::Sbuf ? *sbuf_ : *psum_; }

uint64_t Platform::linear(const model::isa::Location& l, uint64_t bytes, const std::string& where) const {
    if (l.space == MemSpace::Dram) {
        if (l.offset > cfg_.memory.dram_bytes || bytes > cfg_.memory.dram_bytes - l.offset)
            throw Error(where + ": dram [0x" + std::to_string(l.offset) + ", +" + std::to_string(bytes) + ") is past the " +
                        std::to_string(cfg_.memory.dram_bytes) + "-byte DRAM");
        return l.offset;
    }
    const uint64_t per = l.space == MemSpace::Sbuf ? cfg_.memory.sbuf_bytes_per_partition : cfg_.memory.psum_bytes_per_partition();
    if (l.partition >= cfg_.memory.partitions) throw Error(where + ": partition " + std::to_string(l.partition) + " does not exist");
    if (l.offset + bytes > per)
        throw Error(where + ": " + model::isa::format_location(l) + " + " + std::to_string(bytes) + " bytes is past the partition's " +
                    std::to_string(per) + " bytes");
    return uint64_t{l.partition} * per + l.offset;
}

// The roster's set images go to the top of DRAM, each [CAM | PROFILE | CONTROL | BUCKET].
void Platform::place_act_sets() {
    const std::string dir = options_.pwp_dir.empty() ? model::pwp::default_catalog_dir() + "/pwp_bin_trainium" : options_.pwp_dir;
    const std::string act_info = dir + "/act_info.json";
    auto roster = model::pwp::parse_act_info(model::io::read_text_file(act_info), act_info);
    const model::pwp::TableGeometry geo = act_tables_->geometry();
    uint64_t total = 0;
    for (const auto& rs : roster) {
        ActSetImage s;
        s.name = rs.name;
        model::pwp::PackedSet set = model::pwp::read_set(dir + "/" + rs.name + ".json");
        for (const auto& f : set.manifest.profile_meta_data) s.functions.push_back(f.bare_name());
        try {
            s.image = model::pwp::build_set_image(set, geo);
        } catch (const Error& e) {
            s.error = e.what();
        }
        total += (s.image.bytes() + 4095) & ~uint64_t{4095};
        act_sets_.push_back(std::move(s));
    }
    uint64_t addr = (cfg_.memory.dram_bytes - total) & ~uint64_t{4095};
    for (ActSetImage& s : act_sets_) {
        s.dram_addr = addr;
        for (const auto* part : {&s.image.cam, &s.image.profile, &s.image.control, &s.image.bucket}) {
            if (!part->empty()) dram_->write(addr, part->data(), part->size());
            addr += part->size();
        }
        addr = (addr + 4095) & ~uint64_t{4095};
    }
}

void Platform::apply(const model::trace::DataDirective& d, const std::string& where) {
    const uint64_t row = d.bytes.size() / d.partitions;
    if (d.at.space != MemSpace::Dram && d.at.partition + d.partitions > cfg_.memory.partitions)
        throw Error(where + ": partitions " + std::to_string(d.at.partition) + ".." + std::to_string(d.at.partition + d.partitions - 1) +
                    " do not all exist");
    for (uint32_t p = 0; p < d.partitions; ++p) {
        model::isa::Location l = d.at;
        l.partition += p;
        uint64_t a = linear(l, row, where);
        memory(d.at.space).write(a, d.bytes.data() + p * row, row);
    }
}

void Platform::dump(const model::trace::DumpDirective& d) {
    const fs::path path = fs::path(options_.out_dir) / d.file;
    fs::create_directories(path.parent_path());
    std::vector<uint8_t> buf(d.bytes);
    std::ofstream f(path, std::ios::binary);
    if (!f) throw Error(path.string() + ": cannot create the dump");
    for (uint32_t p = 0; p < d.partitions; ++p) {
        model::isa::Location l = d.at;
        l.partition += p;
        memory(d.at.space).read(linear(l, d.bytes, ".dump " + d.file), buf.data(), d.bytes);
        f.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
    }
    if (!f) throw Error(path.string() + ": write error");
}

void Platform::fail(const std::string& message) {
    if (!error_) error_ = message;
    sc_core::sc_stop();
}

RunReport Platform::run() {
    const auto t0 = std::chrono::steady_clock::now();
    sc_core::sc_start();
    RunReport rep;
    rep.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rep.simulated = sc_core::sc_time_stamp();
    dma_->flush_counter();
    recorder_->finish();
    if (error_) throw Error(*error_);
    // No more events: every engine is done, or waits on a semaphore nothing will change.
    std::string stuck;
    for (const auto& e : engines_) {
        if (e->finished()) continue;
        stuck += "\n  engine " + e->label() + " at instruction " + std::to_string(e->current_index());
        if (e->waiting())
            stuck += " waits for " + describe_wait(e->waiting_on()) + ", which is " + std::to_string(sem_->value(e->waiting_on().wait_idx));
    }
    if (!stuck.empty()) throw Error("deadlock at " + std::to_string(rep.simulated.to_seconds() * 1e9) + " ns: no engine can proceed:" + stuck);
    for (const auto& d : dumps_) dump(d);
    rep.instructions = recorder_->completed();
    rep.stats = collect_stats_tree(*this);
    return rep;
}

nlohmann::ordered_json Platform::cost_model_totals() const {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (const auto& e : engines_) e->collect_cost_model(o);
    return o;
}

void Platform::collect_stats(nlohmann::ordered_json& node) const {
    node["generation"] = cfg_.generation.name;
    node["simulated_ps"] = sc_core::sc_time_stamp().value();  // times are integer picoseconds (the resolution)
    node["instructions"] = recorder_->completed();
}

}  // namespace neuronsim::platform
