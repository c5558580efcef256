#pragma once
// neuronsim's public API: the per-generation configuration of a NeuronCore (configs/<gen>.yaml,
// documented field by field in configs/README.md): typed, strictly validated (unknown keys and
// out-of-range values are errors naming the YAML path), with dotted-key overrides. Standard
// C++ only.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace neuronsim {

struct GenerationConfig {
    std::string name;      // SUNDA, CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK
    int nc_version = 2;    // 2..5
    int coretype = 0;
};

struct MemoryConfig {
    uint32_t partitions = 128;
    uint64_t sbuf_bytes_per_partition = 0;
    uint32_t psum_banks = 8;
    uint32_t psum_bank_bytes = 2048;
    uint64_t dram_bytes = 0;
    uint64_t psum_bytes_per_partition() const { return uint64_t{psum_banks} * psum_bank_bytes; }
};

struct DmaConfig {
    uint32_t engines = 16;
    uint32_t queues_per_engine = 16;
    double bytes_per_ns_per_engine = 0;
    double fixed_overhead_ns = 1300;
};

struct ActTablesConfig {
    uint32_t cam_entries = 128, profile_slots = 64, control_entries = 512, control_stride_bytes = 32, bucket_entries = 2048;
};

struct ActConfig {
    double clock_ghz = 1.4;
    uint32_t lanes = 128;
    // Elements each partition (lane) streams per cycle, by input dtype name (dtype_name():
    // FP32, BFLOAT16, FP8_EXP4, ...); "default" covers the types not listed. The engine-wide
    // figure of public-figures §0 (128 or 256 elements/cycle) is this x lanes.
    std::map<std::string, uint32_t> elems_per_partition_cycle{{"default", 1}};
    uint32_t rate(const std::string& dtype_name) const;
    uint32_t static_overhead_cycles = 100, min_ii_cycles = 64, access_startup_cycles = 60;
    uint32_t pipeline_latency_cycles = 32;
    uint32_t strided_slowdown = 2;
    uint32_t accumulator_readout_cycles = 64;
    uint32_t table_load_dma_engine = 15;
    ActTablesConfig tables;
    std::vector<uint32_t> opcodes;
    bool has_opcode(uint32_t op) const;
};

struct GpsimdConfig {
    double clock_ghz = 1.4;
    uint32_t cores = 8, vector_bits = 512, startup_cycles = 150;
    uint32_t read_port_bits = 512, write_port_bits = 512;  // per core, per cycle, separate ports
    uint32_t elems_per_cycle = 128;                         // engine-wide datapath, all cores
    std::map<uint32_t, uint32_t> leg_cycles;                // cptc_decode_impl<N> -> its per-group work
    bool cptc_library = false;
    bool coretype_perf = true;   // the PERF core type (only it stages the CPTC library)
    bool cptc_flag = false;      // as if NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE were set
    std::map<uint32_t, uint32_t> cptc_routing;  // 3-bit CPTC value -> cptc_decode_impl<N>
};

struct RunConfig {
    double skip_unknown_cost_ns = 100;
    // Host threads an Activate's partitions are spread over (0: the host's hardware threads).
    // Results and simulated time do not depend on it.
    uint32_t host_threads = 0;
};

struct DeviceConfig {
    double instruction_fetch_ns = 0;  // 0: instructions are prefetched (no time)
};

struct Config {
    GenerationConfig generation;
    MemoryConfig memory;
    DmaConfig dma;
    uint32_t semaphores = 256;
    ActConfig act;
    GpsimdConfig gpsimd;
    RunConfig run;
    DeviceConfig device;
    std::string source;  // where it came from, for messages
};

// The five generations shipped in configs/ (compiled in): "sunda", "cayman", "mariana",
// "mariana_plus", "maverick" (case-insensitive).
const std::vector<std::string>& generation_names();
std::string builtin_config_text(const std::string& generation);  // error names the value
std::string default_generation();                                 // "mariana"

// Parses YAML text; `overrides` are "dotted.key=value" applied in order (last wins) before
// validation, so they are checked like the file.
Config parse_config(const std::string& yaml_text, const std::string& source,
                    const std::vector<std::string>& overrides = {});
Config load_config(const std::string& path, const std::vector<std::string>& overrides = {});

// The resolved configuration as YAML (what a run writes into its output directory).
std::string config_to_yaml(const Config& c);

}  // namespace neuronsim
