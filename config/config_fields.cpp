#include "config/config_fields.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <type_traits>

#include "config/features.h"
#include "model/common/error.h"
#include "model/fp/dtype.h"

namespace neuronsim::config {

namespace {

template <typename T>
std::string str(T v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::toupper(ch); });
    return s;
}

std::string dump(const YAML::Node& v) {
    YAML::Emitter e;
    e << YAML::Flow << v;
    return std::string("\"") + e.c_str() + "\"";
}

// A number in [lo, hi] from a scalar; `path` names it in the error.
template <typename T>
T read_number(const YAML::Node& v, T lo, T hi, const std::string& path, const ConfigLayers& layers) {
    const std::string expected = std::string("expected a number in [") + str(lo) + ", " + str(hi) + "], got " + dump(v);
    T out{};
    try {
        if (!v.IsScalar()) layers.fail(path, expected);
        out = v.as<T>();
    } catch (const YAML::Exception&) {
        layers.fail(path, expected);
    }
    if (!(out >= lo && out <= hi)) layers.fail(path, expected);
    return out;
}

const YAML::Node& read_map(const YAML::Node& v, const std::string& path, const ConfigLayers& layers) {
    if (!v.IsMap()) layers.fail(path, "expected a mapping, got " + dump(v));
    return v;
}

// Members are reached through accessors so that one declaration serves reading and writing.
template <typename T>
using Access = T& (*)(Config&);
template <typename T>
const T& get(Access<T> a, const Config& c) {
    return a(const_cast<Config&>(c));
}

// The shortest decimal that reads back as the same double (1.4, not yaml-cpp's 17 digits,
// 1.3999999999999999): config show and config.yaml stay readable and exact.
std::string shortest_decimal(double v) {
    char buf[40];
    for (int digits = 15; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    return buf;
}

template <typename T>
ConfigField number(std::string key, Access<T> a, T lo, T hi, std::string unit, std::string meaning, std::string source) {
    ConfigField f;
    f.info = {key, std::is_integral_v<T> ? "integer" : "number", std::move(unit), str(lo) + " .. " + str(hi), std::move(meaning), std::move(source)};
    f.read = [key, a, lo, hi](Config& c, const YAML::Node& v, const ConfigLayers& l) { a(c) = read_number<T>(v, lo, hi, key, l); };
    if constexpr (std::is_floating_point_v<T>) f.write = [a](const Config& c, YAML::Emitter& e) { e << shortest_decimal(get(a, c)); };
    else f.write = [a](const Config& c, YAML::Emitter& e) { e << get(a, c); };
    return f;
}

ConfigField flag(std::string key, Access<bool> a, std::string meaning, std::string source) {
    ConfigField f;
    f.info = {key, "bool", "-", "true, false", std::move(meaning), std::move(source)};
    f.read = [key, a](Config& c, const YAML::Node& v, const ConfigLayers& l) {
        try {
            if (!v.IsScalar()) throw YAML::Exception(YAML::Mark::null_mark(), "");
            a(c) = v.as<bool>();
        } catch (const YAML::Exception&) {
            l.fail(key, "expected true or false, got " + dump(v));
        }
    };
    f.write = [a](const Config& c, YAML::Emitter& e) { e << get(a, c); };
    return f;
}

// A map of small integer keys lo..hi, every key required, values in [vlo, vhi].
ConfigField int_map(std::string key, Access<std::map<uint32_t, uint32_t>> a, uint32_t lo, uint32_t hi, uint32_t vlo, uint32_t vhi, std::string unit,
                    std::string meaning, std::string source) {
    ConfigField f;
    f.info = {key,
              "map " + str(lo) + ".." + str(hi) + " -> integer",
              std::move(unit),
              "every key; values " + str(vlo) + " .. " + str(vhi),
              std::move(meaning),
              std::move(source)};
    f.read = [=](Config& c, const YAML::Node& v, const ConfigLayers& l) {
        read_map(v, key, l);
        std::map<uint32_t, uint32_t> m;
        for (uint32_t k = lo; k <= hi; ++k) {
            const std::string p = key + "." + str(k);
            const YAML::Node n = v[str(k)];
            if (!n) l.fail(p, "missing required key");
            m[k] = read_number<uint32_t>(n, vlo, vhi, p, l);
        }
        for (auto it = v.begin(); it != v.end(); ++it) {
            const std::string k = it->first.Scalar();
            bool known = false;
            for (uint32_t i = lo; i <= hi; ++i) known |= k == str(i);
            if (!known) l.fail(key + "." + k, "unknown key (expected " + str(lo) + ".." + str(hi) + ")");
        }
        a(c) = std::move(m);
    };
    f.write = [a](const Config& c, YAML::Emitter& e) {
        e << YAML::Flow << YAML::BeginMap;
        for (const auto& [k, n] : get(a, c)) e << YAML::Key << k << YAML::Value << n;
        e << YAML::EndMap;
    };
    return f;
}

ConfigField generation_name() {
    ConfigField f;
    f.info = {"generation.name", "name", "-", generation_list(true, ", "), "the generation", "[H] §I.1"};
    f.read = [](Config& c, const YAML::Node& v, const ConfigLayers& l) {
        bool known = false;
        if (v.IsScalar())
            for (const std::string& g : generation_names()) known = known || upper(g) == v.Scalar();
        if (!known) l.fail("generation.name", "expected " + generation_list(true) + ", got " + dump(v));
        c.generation.name = v.Scalar();
    };
    f.write = [](const Config& c, YAML::Emitter& e) { e << c.generation.name; };
    return f;
}

ConfigField act_rates() {
    ConfigField f;
    f.info = {"act.elems_per_partition_cycle",
              "map dtype -> integer",
              "elements/cycle",
              "`default` required; keys: ACT input and output dtype names; values 1 .. 64",
              "elements each partition streams per cycle, by dtype name (FP32, BFLOAT16, FP16, FP8_EXP3, ...; `default` for the rest); an "
              "instruction streams at the lower of its input's and its output's rates; x lanes = the engine-wide figure",
              "default 1 (128 per engine); BFLOAT16, FP16, FP8_EXP3/4/5 2 on v4+ (256 per engine for 16/8-bit input and output) [P] §0"};
    f.read = [](Config& c, const YAML::Node& v, const ConfigLayers& l) {
        const std::string key = "act.elems_per_partition_cycle";
        read_map(v, key, l);
        std::map<std::string, uint32_t> m;
        for (auto it = v.begin(); it != v.end(); ++it) {
            const std::string k = it->first.Scalar();
            bool known = k == "default";
            for (uint8_t code = 0; code < 0x10 && !known; ++code)
                known = (model::fp::act_input_dtype(code) || model::fp::act_output_dtype(code)) && model::fp::dtype_name(code) == k;
            if (!known) l.fail(key + "." + k, "unknown key (expected default or an ACT input or output dtype name such as FP32, BFLOAT16)");
            m[k] = read_number<uint32_t>(it->second, 1, 64, key + "." + k, l);
        }
        if (!m.count("default")) l.fail(key + ".default", "missing required key");
        c.act.elems_per_partition_cycle = std::move(m);
    };
    f.write = [](const Config& c, YAML::Emitter& e) {
        e << YAML::Flow << YAML::BeginMap;
        for (const auto& [k, v] : c.act.elems_per_partition_cycle) e << YAML::Key << k << YAML::Value << v;
        e << YAML::EndMap;
    };
    return f;
}

ConfigField act_opcodes() {
    ConfigField f;
    f.info = {"act.opcodes", "list", "-", "ACT opcodes 0x21 .. 0x26", "ACT opcodes the generation has", "0x21-0x24; + 0x25 Activate2 on v4+ [H] §A.10"};
    f.read = [](Config& c, const YAML::Node& v, const ConfigLayers& l) {
        if (!v.IsSequence()) l.fail("act.opcodes", "expected a list of opcodes, got " + dump(v));
        std::vector<uint32_t> ops;
        for (size_t i = 0; i < v.size(); ++i) {
            const std::string p = "act.opcodes[" + std::to_string(i) + "]";
            uint32_t op = 0;
            try {
                if (!v[i].IsScalar()) throw YAML::Exception(YAML::Mark::null_mark(), "");
                op = v[i].as<uint32_t>();
            } catch (const YAML::Exception&) {
                l.fail(p, "expected an opcode number, got " + dump(v[i]));
            }
            if (op < 0x21 || op > 0x26) l.fail(p, "expected an ACT opcode 0x21..0x26, got " + std::to_string(op));
            ops.push_back(op);
        }
        c.act.opcodes = std::move(ops);
    };
    f.write = [](const Config& c, YAML::Emitter& e) {
        e << YAML::Flow << YAML::BeginSeq;
        for (uint32_t op : c.act.opcodes) e << YAML::Hex << op << YAML::Dec;
        e << YAML::EndSeq;
    };
    return f;
}

#define NS_FIELD(member)       \
    +[](Config & c) -> auto& { \
        return c.member;       \
    }

std::vector<ConfigField> make_table() {
    using u32 = uint32_t;
    using u64 = uint64_t;
    const u32 big = 1u << 20;
    std::vector<ConfigField> t;
    t.push_back(generation_name());
    t.push_back(number<int>("generation.nc_version", NS_FIELD(generation.nc_version), 2, 5, "-",
                            "NeuronCore version; gates features (Activate2 needs 4, CPTC 3)", "2/3/4/4/5 [H] §I.1"));
    t.push_back(number<int>("generation.coretype", NS_FIELD(generation.coretype), 0, 255, "-", "firmware core type", "6/13/21/29/37 [H] §I.1"));
    t.push_back(number<u32>("memory.partitions", NS_FIELD(memory.partitions), 1, 128, "-", "SBUF/PSUM partitions (lanes)", "128 [P] §0"));
    t.push_back(number<u64>("memory.sbuf_bytes_per_partition", NS_FIELD(memory.sbuf_bytes_per_partition), 1024, u64{1} << 20, "bytes", "SBUF per partition",
                            "192/224/256/256/256 KiB [P] §0, [H] §I.2; MAVERICK [A] as v4"));
    t.push_back(number<u32>("memory.psum_banks", NS_FIELD(memory.psum_banks), 1, 64, "-", "PSUM banks; PSUM per partition = banks x bank size", "8 [P] §0"));
    t.push_back(number<u32>("memory.psum_bank_bytes", NS_FIELD(memory.psum_bank_bytes), 64, 1u << 16, "bytes", "one PSUM bank of a partition", "2048 [P] §0"));
    t.push_back(number<u64>("memory.dram_bytes", NS_FIELD(memory.dram_bytes), u64{1} << 20, u64{1} << 48, "bytes",
                            "device DRAM (HBM) address space of the core", "16/24/36/36/36 GiB per-core HBM [H] §I.2; v4+/v5 [A]"));
    t.push_back(number<u32>("dma.engines", NS_FIELD(dma.engines), 1, 64, "-", "DMA engines of the core", "16 [P] §0"));
    t.push_back(
        number<u32>("dma.queues_per_engine", NS_FIELD(dma.queues_per_engine), 1, 64, "-", "queues (trace streams `dma<E>.<Q>`) per engine", "16 [P] §0"));
    t.push_back(number<double>("dma.bytes_per_ns_per_engine", NS_FIELD(dma.bytes_per_ns_per_engine), 0.001, 1e6, "bytes/ns", "one engine's bandwidth",
                               "17/23/33 B/ns, the DMA bandwidth table [P] §0 (x16 = 272/368/528 GB/s per core)"));
    t.push_back(number<double>("dma.aggregate_bytes_per_ns", NS_FIELD(dma.aggregate_bytes_per_ns), 0.001, 1e7, "bytes/ns",
                               "the NeuronCore's DMA bandwidth, all engines together: engines moving data at once share it",
                               "272/368/528 GB/s per NC, the DMA bandwidth table [P] §0"));
    t.push_back(number<double>("dma.fixed_overhead_ns", NS_FIELD(dma.fixed_overhead_ns), 0, 1e9, "ns",
                               "latency of every transfer's packets from their engine accepting them (at the trigger unless the engine holds "
                               "dma.outstanding_per_engine) to their first data (descriptor setup, synchronisation, semaphore-to-start); it runs while "
                               "other transfers move data, so it overlaps them",
                               "1300 [P] §4 (and the cost model's DMA readInit [C])"));
    t.push_back(number<double>("dma.descriptor_ns", NS_FIELD(dma.descriptor_ns), 0, 1e6, "ns",
                               "engine time per descriptor (one row of a transfer) besides its bytes: small rows are overhead-bound",
                               "15/11/8 [A]: 256 bytes at the engine's bandwidth, so that a transfer's efficiency is 50% at 256 bytes per "
                               "partition, 89% at 2 KiB and 94% at 4 KiB, the public curve's bands [P] §4"));
    t.push_back(number<u32>("dma.queue_depth", NS_FIELD(dma.queue_depth), 1, 65536, "transfers",
                            "transfers one instruction queue keeps in flight; the next trigger waits for the oldest to complete",
                            "64 [A]: the compiler's event model bounds only two special queues (depth 4 and 1) [C]"));
    t.push_back(number<u32>("dma.outstanding_per_engine", NS_FIELD(dma.outstanding_per_engine), 1, 65536, "packets",
                            "packets an engine has accepted, whose latency runs while it serves one of them (one at a time [P] §4); a later packet's "
                            "latency starts when one of them ends (1: no overlap on an engine)",
                            "16 [A]: one per queue; no public figure"));
    t.push_back(number<u32>("sync.semaphores", NS_FIELD(semaphores), 1, 256, "-", "semaphores per core", "256 [H] §I.2, §J.2"));
    t.push_back(number<double>("sync.clock_ghz", NS_FIELD(sync.clock_ghz), 0.01, 100, "GHz", "clock of the Sync engine, the sequencer of the DMA queue streams",
                               "1.12/0.96/1.2, the cost model's SP band [C]"));
    t.push_back(number<u32>("sync.instruction_cycles", NS_FIELD(sync.instruction_cycles), 0, big, "cycles",
                            "a control instruction (sync, halt, a DMA trigger with pre-computed descriptors) on any engine's sequencer, in that engine's "
                            "cycles",
                            "100, the static instruction overhead [P] §1.4, applied to control instructions [A]"));
    t.push_back(number<double>("sync.semaphore_latency_ns", NS_FIELD(sync.semaphore_latency_ns), 0, 1e6, "ns",
                               "from a semaphore update to waiting engines seeing it", "20 [A]: no public figure"));
    t.push_back(number<double>("act.clock_ghz", NS_FIELD(act.clock_ghz), 0.01, 100, "GHz", "ScalarE clock", "1.4 (v2), 1.2 (v3+) [P] §0"));
    t.push_back(number<u32>("act.lanes", NS_FIELD(act.lanes), 1, 128, "-", "ACT lanes", "128 [P] §0"));
    t.push_back(act_rates());
    t.push_back(
        number<u32>("act.static_overhead_cycles", NS_FIELD(act.static_overhead_cycles), 0, big, "cycles", "fixed instruction overhead", "100 [P] §1.4"));
    t.push_back(number<u32>("act.min_ii_cycles", NS_FIELD(act.min_ii_cycles), 0, big, "cycles", "minimum initiation interval", "64 [P] §1.4"));
    t.push_back(number<u32>("act.access_startup_cycles", NS_FIELD(act.access_startup_cycles), 0, big, "cycles", "SBUF/PSUM access start-up", "60 [P] §1.4"));
    t.push_back(number<u32>("act.pipeline_latency_cycles", NS_FIELD(act.pipeline_latency_cycles), 0, big, "cycles",
                            "from the last element streamed to the results committed (the lookup pipeline's drain)",
                            "40, derived [P] §1.4: dependent 1-element instructions issue every 264 cycles on NC-v2 = 100 static + 60 access + 64 "
                            "min_ii + 40"));
    t.push_back(
        number<u32>("act.strided_slowdown", NS_FIELD(act.strided_slowdown), 1, 64, "x", "slowdown when the innermost stride is >= 16 bytes", "2 [P] §1.4"));
    t.push_back(number<u32>("act.accumulator_readout_cycles", NS_FIELD(act.accumulator_readout_cycles), 0, big, "cycles", "ActReadAccumulator", "64 [P] §1.1"));
    t.push_back(number<u32>("act.table_load_dma_engine", NS_FIELD(act.table_load_dma_engine), 0, 63, "-",
                            "the DMA engine that moves LoadActFuncSet's table image (a DMA transfer of the dma.* model: its latency, one descriptor "
                            "per table, the engine's bandwidth)",
                            "15 [A]: the runtime reserves DMA rings for the table loads [P] §1.3; which engine is not published"));
    t.push_back(number<u32>("act.table_load_dma_queue", NS_FIELD(act.table_load_dma_queue), 0, 63, "-",
                            "the queue of that engine the table loads use (FIFO with the trace's transfers on that queue)", "15 [A]"));
    t.push_back(flag("act.hwdge", NS_FIELD(act.hwdge), "a DMA `copy` may be issued from the ACT queue (hardware DGE)",
                     "SUNDA false (no hardware DGE [C]), others true [P] §1.4"));
    t.push_back(number<double>("act.hwdge_ns", NS_FIELD(act.hwdge_ns), 0, 1e6, "ns",
                               "ACT queue time of a hardware-DGE DMA trigger; ACT's datapath goes on meanwhile",
                               "600 on Trn2 [P] §1.4; SUNDA (unused) and v4+ [A] as Trn2"));
    t.push_back(number<u32>("act.hwdge_queue", NS_FIELD(act.hwdge_queue), 0, 63, "-", "the queue id (on every engine) of the DMAs the ACT queue triggers",
                            "14 [A]: the queue is tied to the trigger engine and the descriptor generation [P] §4; which one is not published"));
    t.push_back(number<u32>("act.tables.cam_entries", NS_FIELD(act.tables.cam_entries), 1, 4096, "-", "CAM entries", "128 [H] §A.6"));
    t.push_back(number<u32>("act.tables.profile_slots", NS_FIELD(act.tables.profile_slots), 1, 4096, "-", "PROFILE slots", "64 [H] §A.6"));
    t.push_back(number<u32>("act.tables.control_entries", NS_FIELD(act.tables.control_entries), 1, 65536, "-", "CONTROL table entries",
                            "512 [A]: the 128-entry CONTROL region of §A.7 cannot hold the shipped sqrt set (254 words); the 64 KiB local storage can. "
                            "MAVERICK 2048 [H] §A.9"));
    {
        ConfigField f = number<u32>("act.tables.control_stride_bytes", NS_FIELD(act.tables.control_stride_bytes), 4, 256, "bytes",
                                    "bytes per CONTROL entry (a multiple of 4: entries hold 32-bit words)", "32 [A]");
        f.info.range += ", a multiple of 4";
        auto base = f.read;
        f.read = [base](Config& c, const YAML::Node& v, const ConfigLayers& l) {
            base(c, v, l);
            if (c.act.tables.control_stride_bytes % 4)
                l.fail("act.tables.control_stride_bytes",
                       "expected a multiple of 4 (a CONTROL entry holds 32-bit words), got " + std::to_string(c.act.tables.control_stride_bytes));
        };
        t.push_back(std::move(f));
    }
    t.push_back(number<u32>("act.tables.bucket_entries", NS_FIELD(act.tables.bucket_entries), 1, 1u << 20, "-", "BUCKET table entries",
                            "2048 [H] §A.6; MAVERICK 16384 [H] §A.9"));
    t.push_back(act_opcodes());
    t.push_back(number<double>("gpsimd.clock_ghz", NS_FIELD(gpsimd.clock_ghz), 0.01, 100, "GHz", "GpSimdE clock", "1.4 (v2), 1.2 (v3+) [P] §0"));
    t.push_back(number<u32>("gpsimd.cores", NS_FIELD(gpsimd.cores), 1, 64, "-",
                            "cores; each owns partitions/cores partitions (must divide evenly); a POOL instruction's per-group time scales with "
                            "partitions/cores x 32 / vector_bits (docs/cptc-format.md)",
                            "8 [P] §2"));
    t.push_back(number<u32>("gpsimd.vector_bits", NS_FIELD(gpsimd.vector_bits), 32, 4096, "bits", "SIMD width of a core", "512 [P] §2"));
    t.push_back(number<u32>("gpsimd.startup_cycles", NS_FIELD(gpsimd.startup_cycles), 0, big, "cycles", "instruction start-up", "150 [P] §2"));
    t.push_back(number<u32>("gpsimd.read_port_bits", NS_FIELD(gpsimd.read_port_bits), 8, 65536, "bits/cycle",
                            "each core's SBUF read port (separate from the write port, so reads and writes overlap)", "512 [P] §2"));
    t.push_back(number<u32>("gpsimd.write_port_bits", NS_FIELD(gpsimd.write_port_bits), 8, 65536, "bits/cycle", "each core's SBUF write port", "512 [P] §2"));
    t.push_back(number<u32>("gpsimd.elems_per_cycle", NS_FIELD(gpsimd.elems_per_cycle), 1, 65536, "elements/cycle",
                            "the engine's datapath, all cores together, for every dtype; bounds a decode's kernel stage and a copy",
                            "128 [P] §0, §2 (NC-v4: all dtypes; NC-v2: 128 at 32 bits, other dtypes [A] the same)"));
    t.push_back(number<u32>("gpsimd.swdge_cycles", NS_FIELD(gpsimd.swdge_cycles), 0, big, "cycles",
                            "POOL time of a DMA `copy` issued from the POOL queue (software descriptor generation)",
                            "500 (v2), 700 (v3): the compiler's SWDGE overhead [C]; v4+ [A] as v3"));
    t.push_back(number<u32>("gpsimd.swdge_queue", NS_FIELD(gpsimd.swdge_queue), 0, 63, "-",
                            "the queue id (on every engine) of the DMAs the POOL queue triggers", "13 [A], as act.hwdge_queue"));
    t.push_back(flag("gpsimd.cptc_library", NS_FIELD(gpsimd.cptc_library), "the CPTC decode library is present", "SUNDA false, others true [H] §F.10"));
    t.push_back(
        flag("gpsimd.coretype_perf", NS_FIELD(gpsimd.coretype_perf), "the core type is PERF, the only one that stages the CPTC library", "true [H] §F.9"));
    t.push_back(flag("gpsimd.cptc_flag", NS_FIELD(gpsimd.cptc_flag),
                     "as if NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE were set (the environment variable works too)", "false [H] §F.9: CPTC is opt-in"));
    {
        ConfigField f = int_map("gpsimd.cptc_routing", NS_FIELD(gpsimd.cptc_routing), 1, 7, 1, 6, "-", "CPTC 3-bit value -> cptc_decode_impl<N>",
                                "1->1, 3->5, 4->3 known (fixed: other values are rejected); 2->2, 5->4, 6->6, 7->6 inferred, configurable [H] §F.6");
        f.info.range += "; 1, 3, 4 fixed to 1, 5, 3";
        auto base = f.read;
        f.read = [base](Config& c, const YAML::Node& v, const ConfigLayers& l) {
            base(c, v, l);
            // 1 -> impl<1>, 3 -> impl<5>, 4 -> impl<3> are observed in the firmware; only the
            // even arms (values 2, 5, 6, 7) are inferred and configurable.
            for (auto [value, impl] : {std::pair<uint32_t, uint32_t>{1, 1}, {3, 5}, {4, 3}})
                if (c.gpsimd.cptc_routing[value] != impl)
                    l.fail("gpsimd.cptc_routing." + std::to_string(value),
                           "is fixed to " + std::to_string(impl) + " (observed in the firmware); only 2, 5, 6, 7 are configurable");
        };
        t.push_back(std::move(f));
    }
    t.push_back(number<double>("vector.clock_ghz", NS_FIELD(vector.clock_ghz), 0.01, 100, "GHz", "VectorE clock",
                               "1.12 (v2), 0.96 (v3), 1.2 (v4) [P] §0; MAVERICK 1.2 [A] as v4"));
    t.push_back(number<u32>("vector.static_overhead_cycles", NS_FIELD(vector.static_overhead_cycles), 0, big, "cycles", "fixed instruction overhead",
                            "100 [P] §1.4 (the Vector cost model)"));
    t.push_back(number<u32>("vector.min_ii_cycles", NS_FIELD(vector.min_ii_cycles), 0, big, "cycles", "minimum initiation interval", "64 [P] §3"));
    t.push_back(number<u32>("vector.access_startup_cycles", NS_FIELD(vector.access_startup_cycles), 0, big, "cycles", "SBUF/PSUM access start-up",
                            "60 [P] §1.4 (NC-v2's figure, kept for v3+ [A])"));
    t.push_back(number<u32>("vector.pipeline_latency_cycles", NS_FIELD(vector.pipeline_latency_cycles), 0, big, "cycles",
                            "from the last element streamed to the results committed", "40 [A]: ACT's derived drain; no VectorE figure is public"));
    t.push_back(number<u32>("vector.strided_slowdown", NS_FIELD(vector.strided_slowdown), 1, 64, "x",
                            "slowdown when an innermost stride is >= 16 bytes (outside a performance mode)", "2 [P] §1.4"));
    t.push_back(number<u32>("vector.copy_speedup_contiguous", NS_FIELD(vector.copy_speedup_contiguous), 1, 64, "x",
                            "tensor_copy and tensor_scalar with 16-bit input and output, every operand contiguous",
                            "1 on v2 (no performance mode), 4 on v3+ [P] §3"));
    t.push_back(number<u32>("vector.copy_speedup_strided", NS_FIELD(vector.copy_speedup_strided), 1, 64, "x", "... with an operand strided",
                            "1 on v2, 2 on v3+ [P] §3"));
    t.push_back(number<u32>("vector.tensor_tensor_speedup", NS_FIELD(vector.tensor_tensor_speedup), 1, 64, "x", "tensor_tensor with 16-bit inputs and output",
                            "1 on v2, 2 on v3+ [P] §3 (stated for BF16; FP16 [A])"));
    t.push_back(flag("vector.fp8_perf_mode", NS_FIELD(vector.fp8_perf_mode), "fp8 counts with bf16/fp16 for the performance modes",
                     "v3 false, v4+ true (512 elements/cycle for BF16/FP16/FP8) [P] §0"));
    t.push_back(number<u32>("vector.reciprocal_cycles_per_element", NS_FIELD(vector.reciprocal_cycles_per_element), 1, 64, "cycles",
                            "reciprocal's streaming per element", "8 [P] §1.4 (max(MIN_II, 8N) on VectorE)"));
    t.push_back(flag("vector.v2_port_rules", NS_FIELD(vector.v2_port_rules),
                     "VectorE and GpSimd share a port (their instructions serialise); ScalarE starts after their PSUM writes in flight",
                     "SUNDA true, others false: the compiler's event model for arch_version <= 29 [C] (lifted on v3, public-figures §3)"));
    t.push_back(number<double>("tensor.clock_ghz", NS_FIELD(tensor.clock_ghz), 0.01, 100, "GHz", "TensorE clock",
                               "2.8 (v2), 2.4 (v3, v4) [P] §0; MAVERICK 2.4 [A] as v4"));
    t.push_back(number<u32>("tensor.access_startup_cycles", NS_FIELD(tensor.access_startup_cycles), 0, big, "cycles", "SBUF access start-up",
                            "60 [A]: the NC-v2 SBUF/PSUM access figure of §1.4, not stated for TensorE"));
    t.push_back(
        number<u32>("tensor.min_ii_cycles", NS_FIELD(tensor.min_ii_cycles), 0, big, "cycles", "a matmul's initiation interval is max(N, this)", "64 [P] §3"));
    t.push_back(number<u32>("tensor.pipeline_latency_cycles", NS_FIELD(tensor.pipeline_latency_cycles), 0, big, "cycles",
                            "from the last moving column to the PSUM results committed",
                            "64 [A]: no figure is public; at most min_ii, so that back-to-back matmuls keep the public interval max(N, 64)"));
    t.push_back(number<u32>("tensor.fp32_slowdown", NS_FIELD(tensor.fp32_slowdown), 1, 64, "x", "fp32 inputs stream this many times slower",
                            "4 [P] §3 (and §0: 23 vs 92, 20 vs 79 TFLOPS)"));
    t.push_back(number<u32>("tensor.fp8_speedup", NS_FIELD(tensor.fp8_speedup), 1, 64, "x", "fp8 e4m3/e5m2 inputs stream this many times faster (e3m4 not)",
                            "1 on v2 (cFP8 at 92 TFLOPS, as BF16), 2 on v3 (158 vs 79 TFLOPS, the double row), 1 on v4 (2x128 non-MX) [P] §0, §5"));
    t.push_back(number<u32>("tensor.load_stationary_speedup", NS_FIELD(tensor.load_stationary_speedup), 1, 64, "x",
                            "load_stationary of M columns takes max(M, min_ii) / this", "4 [P] §3 (\"up to 4x faster than MM\"; the best case taken [A])"));
    t.push_back(number<u32>("tensor.mx_speedup", NS_FIELD(tensor.mx_speedup), 0, 64, "x",
                            "a matmul with mx=1 (nc_matmul_mx, MXFP8/MXFP4) streams this many times faster than BF16; 0: the generation has no MX matmul",
                            "0 on v2 and v3, 4 on v4 (315 MXFP8 vs 79 BF16 TFLOPS; 8x128 vs 2x128 rows; \"4x BF16 throughput\") [P] §0, §5"));
    t.push_back(number<double>("run.skip_unknown_cost_ns", NS_FIELD(run.skip_unknown_cost_ns), 0, 1e9, "ns",
                               "time of an unmodelled opcode under `--skip-unknown`", "100 [A]"));
    t.push_back(number<u64>("run.max_elements_per_instruction", NS_FIELD(run.max_elements_per_instruction), 1, u64{1} << 40, "elements",
                            "most elements (all partitions) one ACT or POOL instruction may process; more is an error before any work",
                            "268435456 (2^28), the POOL firmware's own per-instruction limit; a real instruction has at most 128 x 64 Ki [A]"));
    t.push_back(number<u64>("run.max_elements_per_run", NS_FIELD(run.max_elements_per_run), 1, u64{1} << 50, "elements",
                            "budget of ACT and POOL elements for the whole run", "2^40 [A]: a 7B-parameter model's activations are ~2^33"));
    t.push_back(number<u64>("run.max_dma_bytes_per_instruction", NS_FIELD(run.max_dma_bytes_per_instruction), 1, u64{1} << 48, "bytes",
                            "most bytes one DMA job (a copy, a table load) may move", "2^34 (16 GiB) [A]"));
    t.push_back(number<u64>("run.max_dma_bytes_per_run", NS_FIELD(run.max_dma_bytes_per_run), 1, u64{1} << 56, "bytes", "budget of DMA bytes for the whole run",
                            "2^44 (16 TiB) [A]"));
    t.push_back(number<u32>(
        "run.host_threads", NS_FIELD(run.host_threads), 0, 1024, "threads",
        "host threads the engines' element work is spread over (Activate's and VectorE's partitions, GpSimd's cores, and under `neuronsim run` the DMA's copies on the first worker; one pool a core, its engines' to share; 0: the host's "
        "hardware threads; a thread done with its part watches 50 us for the next before it sleeps); results and simulated time do not depend on it (`run --threads N` sets it)",
        "0 [A]"));
    t.push_back(number<u64>("run.max_dump_bytes", NS_FIELD(run.max_dump_bytes), 1, u64{1} << 48, "bytes",
                            "most bytes a trace's .dump directives may write, all together (checked before the run)", "2^30 (1 GiB) [A]"));
    t.push_back(number<u64>("run.max_dram_resident_bytes", NS_FIELD(run.max_dram_resident_bytes), 1 << 16, u64{1} << 48, "bytes",
                            "host memory `run`'s sparse DRAM may hold (64 KiB pages, allocated when first written): a trace that writes more "
                            "distinct DRAM fails at the instruction that would pass it, instead of exhausting the host",
                            "2^34 (16 GiB) [A]"));
    t.push_back(number<double>("device.instruction_fetch_ns", NS_FIELD(device.instruction_fetch_ns), 0, 1e6, "ns",
                               "from a doorbell to the bundles it adds being fetched (their DRAM read); later bundles are prefetched while the engine "
                               "works, so this shows when a queue starts or runs dry",
                               "250 [A]: about one HBM read; no public figure"));
    return t;
}

#undef NS_FIELD

}  // namespace

const std::vector<ConfigField>& config_field_table() {
    static const std::vector<ConfigField> t = make_table();
    return t;
}

void check_config_relations(const Config& c, const ConfigLayers& l) {
    if (c.act.table_load_dma_engine >= c.dma.engines)
        l.fail_relation("act.table_load_dma_engine", {"dma.engines"},
                        std::to_string(c.act.table_load_dma_engine) + " is not one of the " + std::to_string(c.dma.engines) + " DMA engines (dma.engines)");
    for (auto [key, q] : {std::pair<const char*, uint32_t>{"act.table_load_dma_queue", c.act.table_load_dma_queue},
                          {"act.hwdge_queue", c.act.hwdge_queue},
                          {"gpsimd.swdge_queue", c.gpsimd.swdge_queue}})
        if (q >= c.dma.queues_per_engine)
            l.fail_relation(
                key, {"dma.queues_per_engine"},
                std::to_string(q) + " is not one of the " + std::to_string(c.dma.queues_per_engine) + " queues of an engine (dma.queues_per_engine)");
    if (c.memory.partitions % c.gpsimd.cores != 0)
        l.fail_relation("gpsimd.cores", {"memory.partitions"},
                        std::to_string(c.gpsimd.cores) + " cores must divide memory.partitions " + std::to_string(c.memory.partitions));
}

}  // namespace neuronsim::config
