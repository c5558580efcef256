#include "platform/config/config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "model/common/error.h"
#include "model/fp/dtype.h"
#include "model/io/json_path.h"
#include "platform/config/builtin_configs.h"

namespace neuronsim {

bool ActConfig::has_opcode(uint32_t op) const { return std::find(opcodes.begin(), opcodes.end(), op) != opcodes.end(); }

uint32_t ActConfig::rate(const std::string& dtype_name) const {
    auto it = elems_per_partition_cycle.find(dtype_name);
    return it != elems_per_partition_cycle.end() ? it->second : elems_per_partition_cycle.at("default");
}

const std::vector<std::string>& generation_names() {
    static const std::vector<std::string> n = {"sunda", "cayman", "mariana", "mariana_plus", "maverick"};
    return n;
}

std::string default_generation() { return "mariana"; }

std::string builtin_config_text(const std::string& generation) {
    std::string g = generation;
    std::transform(g.begin(), g.end(), g.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const auto& [name, text] : platform::builtin_configs())
        if (name == g) return text;
    std::string all;
    for (const auto& n : generation_names()) all += (all.empty() ? "" : ", ") + n;
    throw Error("--gen " + generation + ": unknown generation; expected one of " + all);
}

namespace {

// A YAML mapping read key by key; finish() rejects the keys nobody asked for.
class Map {
public:
    Map(const YAML::Node& n, std::string path, const std::string& source) : n_(n), path_(std::move(path)), source_(source) {
        if (!n_.IsMap()) fail(path_.empty() ? "(root)" : path_, "expected a mapping");
        // yaml-cpp keeps the first of duplicate keys silently; a config must not say two things.
        std::set<std::string> keys;
        for (auto it = n_.begin(); it != n_.end(); ++it) {
            const std::string k = it->first.Scalar();
            if (!keys.insert(k).second)
                fail(child(k), "duplicate key (line " + std::to_string(it->first.Mark().line + 1) + ")");
        }
    }
    [[noreturn]] void fail(const std::string& path, const std::string& what) const { throw Error(source_ + ": " + path + ": " + what); }
    std::string child(const std::string& k) const { return path_.empty() ? k : path_ + "." + k; }

    YAML::Node get(const std::string& k) {
        seen_.insert(k);
        YAML::Node v = n_[k];
        if (!v) fail(child(k), "missing required key");
        return v;
    }
    Map map(const std::string& k) { return Map(get(k), child(k), source_); }

    template <typename T>
    T num(const std::string& k, T lo, T hi) {
        YAML::Node v = get(k);
        T out{};
        try {
            if (!v.IsScalar()) throw YAML::Exception(YAML::Mark::null_mark(), "");
            out = v.as<T>();
        } catch (const YAML::Exception&) {
            fail(child(k), std::string("expected a number in [") + str(lo) + ", " + str(hi) + "], got " + dump(v));
        }
        if (!(out >= lo && out <= hi)) fail(child(k), std::string("expected a number in [") + str(lo) + ", " + str(hi) + "], got " + dump(v));
        return out;
    }
    std::string text(const std::string& k) {
        YAML::Node v = get(k);
        if (!v.IsScalar()) fail(child(k), "expected a string, got " + dump(v));
        return v.as<std::string>();
    }
    bool flag(const std::string& k) {
        YAML::Node v = get(k);
        try {
            return v.as<bool>();
        } catch (const YAML::Exception&) {
            fail(child(k), "expected true or false, got " + dump(v));
        }
    }
    void finish() const {
        for (auto it = n_.begin(); it != n_.end(); ++it) {
            std::string k = it->first.as<std::string>();
            if (!seen_.count(k)) fail(child(k), "unknown key");
        }
    }
    const YAML::Node& node() const { return n_; }

    template <typename T>
    static std::string str(T v) {
        std::ostringstream s;
        s << v;
        return s.str();
    }
    static std::string dump(const YAML::Node& v) {
        YAML::Emitter e;
        e << YAML::Flow << v;
        return std::string("\"") + e.c_str() + "\"";
    }

private:
    YAML::Node n_;
    std::string path_;
    const std::string& source_;
    std::set<std::string> seen_;
};

void apply_override(YAML::Node root, const std::string& ov, const std::string& source) {
    auto eq = ov.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("-p " + ov + ": expected dotted.key=value");
    std::string key = ov.substr(0, eq), value = ov.substr(eq + 1);
    std::vector<std::string> parts;
    std::stringstream ss(key);
    for (std::string p; std::getline(ss, p, '.');) {
        if (p.empty()) throw Error("-p " + ov + ": empty key component");
        parts.push_back(p);
    }
    YAML::Node parsed;
    try {
        parsed = YAML::Load(value);
    } catch (const YAML::Exception& e) {
        throw Error("-p " + ov + ": value is not valid YAML: " + e.msg);
    }
    // Walk with fresh handles (yaml-cpp nodes are references); create missing maps so that a
    // misspelt key reaches validation and is reported as unknown, with its path.
    std::vector<YAML::Node> chain{root};
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        YAML::Node next = chain.back()[parts[i]];
        if (next && !next.IsMap()) throw Error("-p " + ov + ": " + parts[i] + " is not a mapping in " + source);
        chain.push_back(next);
    }
    chain.back()[parts.back()] = parsed;
}

}  // namespace

Config parse_config(const std::string& yaml_text, const std::string& source, const std::vector<std::string>& overrides) {
    YAML::Node root;
    try {
        root = YAML::Load(yaml_text);
    } catch (const YAML::Exception& e) {
        throw Error(source + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": malformed YAML: " + e.msg);
    }
    if (!root || root.IsNull()) throw Error(source + ": empty configuration");
    if (!root.IsMap()) throw Error(source + ": expected a mapping of sections (generation, memory, ...) at the top level");
    for (const std::string& ov : overrides) apply_override(root, ov, source);

    Config c;
    c.source = source;
    Map top(root, "", c.source);
    {
        Map g = top.map("generation");
        c.generation.name = g.text("name");
        static const std::set<std::string> names = {"SUNDA", "CAYMAN", "MARIANA", "MARIANA_PLUS", "MAVERICK"};
        if (!names.count(c.generation.name)) g.fail("generation.name", "expected SUNDA, CAYMAN, MARIANA, MARIANA_PLUS or MAVERICK, got \"" + c.generation.name + "\"");
        c.generation.nc_version = g.num<int>("nc_version", 2, 5);
        c.generation.coretype = g.num<int>("coretype", 0, 255);
        g.finish();
    }
    {
        Map m = top.map("memory");
        c.memory.partitions = m.num<uint32_t>("partitions", 1, 128);
        c.memory.sbuf_bytes_per_partition = m.num<uint64_t>("sbuf_bytes_per_partition", 1024, 1u << 20);
        c.memory.psum_banks = m.num<uint32_t>("psum_banks", 1, 64);
        c.memory.psum_bank_bytes = m.num<uint32_t>("psum_bank_bytes", 64, 1u << 16);
        c.memory.dram_bytes = m.num<uint64_t>("dram_bytes", 1u << 20, uint64_t{1} << 48);
        m.finish();
    }
    {
        Map d = top.map("dma");
        c.dma.engines = d.num<uint32_t>("engines", 1, 64);
        c.dma.queues_per_engine = d.num<uint32_t>("queues_per_engine", 1, 64);
        c.dma.bytes_per_ns_per_engine = d.num<double>("bytes_per_ns_per_engine", 0.001, 1e6);
        c.dma.fixed_overhead_ns = d.num<double>("fixed_overhead_ns", 0, 1e9);
        d.finish();
    }
    {
        Map s = top.map("sync");
        c.semaphores = s.num<uint32_t>("semaphores", 1, 256);
        s.finish();
    }
    {
        Map a = top.map("act");
        c.act.clock_ghz = a.num<double>("clock_ghz", 0.01, 100);
        c.act.lanes = a.num<uint32_t>("lanes", 1, 128);
        {
            Map r = a.map("elems_per_partition_cycle");
            c.act.elems_per_partition_cycle.clear();
            c.act.elems_per_partition_cycle["default"] = r.num<uint32_t>("default", 1, 64);
            for (uint8_t code = 0; code < 0x10; ++code)
                if (model::fp::act_input_dtype(code)) {
                    const std::string n = model::fp::dtype_name(code);
                    if (r.node()[n]) c.act.elems_per_partition_cycle[n] = r.num<uint32_t>(n, 1, 64);
                }
            r.finish();  // a key that is not an ACT input dtype is unknown
        }
        c.act.static_overhead_cycles = a.num<uint32_t>("static_overhead_cycles", 0, 1u << 20);
        c.act.min_ii_cycles = a.num<uint32_t>("min_ii_cycles", 0, 1u << 20);
        c.act.access_startup_cycles = a.num<uint32_t>("access_startup_cycles", 0, 1u << 20);
        c.act.pipeline_latency_cycles = a.num<uint32_t>("pipeline_latency_cycles", 0, 1u << 20);
        c.act.strided_slowdown = a.num<uint32_t>("strided_slowdown", 1, 64);
        c.act.accumulator_readout_cycles = a.num<uint32_t>("accumulator_readout_cycles", 0, 1u << 20);
        c.act.table_load_dma_engine = a.num<uint32_t>("table_load_dma_engine", 0, 63);
        Map t = a.map("tables");
        c.act.tables.cam_entries = t.num<uint32_t>("cam_entries", 1, 4096);
        c.act.tables.profile_slots = t.num<uint32_t>("profile_slots", 1, 4096);
        c.act.tables.control_entries = t.num<uint32_t>("control_entries", 1, 65536);
        c.act.tables.control_stride_bytes = t.num<uint32_t>("control_stride_bytes", 4, 256);
        if (c.act.tables.control_stride_bytes % 4)
            t.fail("act.tables.control_stride_bytes", "expected a multiple of 4 (a CONTROL entry holds 32-bit words), got " +
                                                        std::to_string(c.act.tables.control_stride_bytes));
        c.act.tables.bucket_entries = t.num<uint32_t>("bucket_entries", 1, 1u << 20);
        t.finish();
        YAML::Node ops = a.get("opcodes");
        if (!ops.IsSequence()) a.fail("act.opcodes", "expected a list of opcodes");
        for (size_t i = 0; i < ops.size(); ++i) {
            uint32_t op = 0;
            try {
                op = ops[i].as<uint32_t>();
            } catch (const YAML::Exception&) {
                a.fail("act.opcodes[" + std::to_string(i) + "]", "expected an opcode number, got " + Map::dump(ops[i]));
            }
            if (op < 0x21 || op > 0x26) a.fail("act.opcodes[" + std::to_string(i) + "]", "expected an ACT opcode 0x21..0x26, got " + std::to_string(op));
            c.act.opcodes.push_back(op);
        }
        a.finish();
    }
    {
        Map g = top.map("gpsimd");
        c.gpsimd.clock_ghz = g.num<double>("clock_ghz", 0.01, 100);
        c.gpsimd.cores = g.num<uint32_t>("cores", 1, 64);
        c.gpsimd.vector_bits = g.num<uint32_t>("vector_bits", 32, 4096);
        c.gpsimd.startup_cycles = g.num<uint32_t>("startup_cycles", 0, 1u << 20);
        c.gpsimd.read_port_bits = g.num<uint32_t>("read_port_bits", 8, 65536);
        c.gpsimd.write_port_bits = g.num<uint32_t>("write_port_bits", 8, 65536);
        c.gpsimd.elems_per_cycle = g.num<uint32_t>("elems_per_cycle", 1, 65536);
        {
            Map l = g.map("leg_cycles");
            for (uint32_t impl = 1; impl <= 6; ++impl) c.gpsimd.leg_cycles[impl] = l.num<uint32_t>(std::to_string(impl), 0, 1u << 16);
            l.finish();
        }
        c.gpsimd.cptc_library = g.flag("cptc_library");
        c.gpsimd.coretype_perf = g.flag("coretype_perf");
        c.gpsimd.cptc_flag = g.flag("cptc_flag");
        Map r = g.map("cptc_routing");
        for (uint32_t v = 1; v <= 7; ++v) {
            uint32_t impl = r.num<uint32_t>(std::to_string(v), 1, 6);
            c.gpsimd.cptc_routing[v] = impl;
        }
        r.finish();
        // 1 -> impl<1>, 3 -> impl<5>, 4 -> impl<3> are observed in the firmware; only the even
        // arms (values 2, 5, 6, 7) are inferred and configurable.
        for (auto [v, impl] : {std::pair<uint32_t, uint32_t>{1, 1}, {3, 5}, {4, 3}})
            if (c.gpsimd.cptc_routing[v] != impl)
                g.fail("gpsimd.cptc_routing." + std::to_string(v), "is fixed to " + std::to_string(impl) + " (observed in the firmware); only 2, 5, 6, 7 are configurable");
        g.finish();
    }
    {
        Map r = top.map("run");
        c.run.skip_unknown_cost_ns = r.num<double>("skip_unknown_cost_ns", 0, 1e9);
        c.run.host_threads = r.num<uint32_t>("host_threads", 0, 1024);
        r.finish();
    }
    {
        Map d = top.map("device");
        c.device.instruction_fetch_ns = d.num<double>("instruction_fetch_ns", 0, 1e6);
        d.finish();
    }
    top.finish();
    if (c.act.table_load_dma_engine >= c.dma.engines)
        throw Error(source + ": act.table_load_dma_engine: " + std::to_string(c.act.table_load_dma_engine) + " is not one of the " +
                    std::to_string(c.dma.engines) + " DMA engines");
    if (c.memory.partitions % c.gpsimd.cores != 0)
        throw Error(source + ": gpsimd.cores: " + std::to_string(c.gpsimd.cores) + " cores must divide memory.partitions " + std::to_string(c.memory.partitions));
    return c;
}

Config load_config(const std::string& path, const std::vector<std::string>& overrides) {
    return parse_config(model::io::read_text_file(path), path, overrides);
}

std::string config_to_yaml(const Config& c) {
    YAML::Emitter e;
    e << YAML::BeginMap;
    e << YAML::Key << "generation" << YAML::Value << YAML::BeginMap << YAML::Key << "name" << YAML::Value << c.generation.name
      << YAML::Key << "nc_version" << YAML::Value << c.generation.nc_version << YAML::Key << "coretype" << YAML::Value << c.generation.coretype << YAML::EndMap;
    e << YAML::Key << "memory" << YAML::Value << YAML::BeginMap << YAML::Key << "partitions" << YAML::Value << c.memory.partitions
      << YAML::Key << "sbuf_bytes_per_partition" << YAML::Value << c.memory.sbuf_bytes_per_partition << YAML::Key << "psum_banks" << YAML::Value
      << c.memory.psum_banks << YAML::Key << "psum_bank_bytes" << YAML::Value << c.memory.psum_bank_bytes << YAML::Key << "dram_bytes"
      << YAML::Value << c.memory.dram_bytes << YAML::EndMap;
    e << YAML::Key << "dma" << YAML::Value << YAML::BeginMap << YAML::Key << "engines" << YAML::Value << c.dma.engines << YAML::Key
      << "queues_per_engine" << YAML::Value << c.dma.queues_per_engine << YAML::Key << "bytes_per_ns_per_engine" << YAML::Value
      << c.dma.bytes_per_ns_per_engine << YAML::Key << "fixed_overhead_ns" << YAML::Value << c.dma.fixed_overhead_ns << YAML::EndMap;
    e << YAML::Key << "sync" << YAML::Value << YAML::BeginMap << YAML::Key << "semaphores" << YAML::Value << c.semaphores << YAML::EndMap;
    e << YAML::Key << "act" << YAML::Value << YAML::BeginMap << YAML::Key << "clock_ghz" << YAML::Value << c.act.clock_ghz << YAML::Key << "lanes"
      << YAML::Value << c.act.lanes << YAML::Key << "elems_per_partition_cycle" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const auto& [k, v] : c.act.elems_per_partition_cycle) e << YAML::Key << k << YAML::Value << v;
    e << YAML::EndMap << YAML::Key << "static_overhead_cycles" << YAML::Value
      << c.act.static_overhead_cycles << YAML::Key << "min_ii_cycles" << YAML::Value << c.act.min_ii_cycles << YAML::Key << "access_startup_cycles"
      << YAML::Value << c.act.access_startup_cycles << YAML::Key << "pipeline_latency_cycles" << YAML::Value << c.act.pipeline_latency_cycles
      << YAML::Key << "strided_slowdown" << YAML::Value << c.act.strided_slowdown << YAML::Key << "accumulator_readout_cycles" << YAML::Value
      << c.act.accumulator_readout_cycles << YAML::Key << "table_load_dma_engine" << YAML::Value << c.act.table_load_dma_engine;
    e << YAML::Key << "tables" << YAML::Value << YAML::BeginMap << YAML::Key << "cam_entries" << YAML::Value << c.act.tables.cam_entries << YAML::Key
      << "profile_slots" << YAML::Value << c.act.tables.profile_slots << YAML::Key << "control_entries" << YAML::Value << c.act.tables.control_entries
      << YAML::Key << "control_stride_bytes" << YAML::Value << c.act.tables.control_stride_bytes << YAML::Key << "bucket_entries" << YAML::Value
      << c.act.tables.bucket_entries << YAML::EndMap;
    e << YAML::Key << "opcodes" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (uint32_t op : c.act.opcodes) e << YAML::Hex << op << YAML::Dec;
    e << YAML::EndSeq << YAML::EndMap;
    e << YAML::Key << "gpsimd" << YAML::Value << YAML::BeginMap << YAML::Key << "clock_ghz" << YAML::Value << c.gpsimd.clock_ghz << YAML::Key << "cores"
      << YAML::Value << c.gpsimd.cores << YAML::Key << "vector_bits" << YAML::Value << c.gpsimd.vector_bits << YAML::Key << "startup_cycles" << YAML::Value
      << c.gpsimd.startup_cycles << YAML::Key << "read_port_bits" << YAML::Value << c.gpsimd.read_port_bits << YAML::Key << "write_port_bits"
      << YAML::Value << c.gpsimd.write_port_bits << YAML::Key << "elems_per_cycle" << YAML::Value << c.gpsimd.elems_per_cycle << YAML::Key
      << "leg_cycles" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const auto& [impl, n] : c.gpsimd.leg_cycles) e << YAML::Key << impl << YAML::Value << n;
    e << YAML::EndMap << YAML::Key << "cptc_library" << YAML::Value << c.gpsimd.cptc_library << YAML::Key << "coretype_perf"
      << YAML::Value << c.gpsimd.coretype_perf << YAML::Key << "cptc_flag" << YAML::Value << c.gpsimd.cptc_flag << YAML::Key << "cptc_routing" << YAML::Value
      << YAML::Flow << YAML::BeginMap;
    for (const auto& [v, impl] : c.gpsimd.cptc_routing) e << YAML::Key << v << YAML::Value << impl;
    e << YAML::EndMap << YAML::EndMap;
    e << YAML::Key << "run" << YAML::Value << YAML::BeginMap << YAML::Key << "skip_unknown_cost_ns" << YAML::Value << c.run.skip_unknown_cost_ns
      << YAML::Key << "host_threads" << YAML::Value << c.run.host_threads << YAML::EndMap;
    e << YAML::Key << "device" << YAML::Value << YAML::BeginMap << YAML::Key << "instruction_fetch_ns" << YAML::Value << c.device.instruction_fetch_ns
      << YAML::EndMap;
    e << YAML::EndMap;
    return std::string(e.c_str()) + "\n";
}

}  // namespace neuronsim
