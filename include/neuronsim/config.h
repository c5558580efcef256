#pragma once
// neuronsim's public API: the per-generation configuration of a NeuronCore (configs/<gen>.yaml,
// documented field by field in configs/README.md): typed, strictly validated (unknown keys and
// out-of-range values are errors naming the YAML path), with dotted-key overrides. Standard
// C++ only.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace neuronsim {

// Every value below comes from a preset (configs/<gen>.yaml) through the one table of field
// descriptors (config_fields()), which also validates it, writes config.yaml and generates the
// field table of configs/README.md. Members are only value-initialised here: a Config is made
// by compose_config()/parse_config(), never default-constructed and used.
struct GenerationConfig {
    std::string name;  // SUNDA, CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK
    int nc_version{};  // 2..5
    int coretype{};
};

struct MemoryConfig {
    uint32_t partitions{};
    uint64_t sbuf_bytes_per_partition{};
    uint32_t psum_banks{};
    uint32_t psum_bank_bytes{};
    uint64_t dram_bytes{};
    uint64_t psum_bytes_per_partition() const { return uint64_t{psum_banks} * psum_bank_bytes; }
};

// The DMA model (docs/timing-model.md): a transfer is split by partition over the engines, each
// engine serves its queues round-robin, one packet at a time; every transfer waits
// fixed_overhead_ns from its trigger to its first data, overlapped with other transfers.
struct DmaConfig {
    uint32_t engines{};
    uint32_t queues_per_engine{};
    double bytes_per_ns_per_engine{};
    double aggregate_bytes_per_ns{};  // all engines together (the NeuronCore's cap)
    double fixed_overhead_ns{};  // trigger-to-data latency of every transfer
    double descriptor_ns{};  // engine time per descriptor (a row), besides its bytes
    uint32_t queue_depth{};  // transfers one queue keeps in flight
    uint32_t outstanding_per_engine{};  // packets an engine holds with their latency running
};

// The sequencers' control work: sync/halt and DMA triggers, and the semaphore hand-off.
struct SyncConfig {
    double clock_ghz{};  // the Sync engine (DMA queue streams)
    uint32_t instruction_cycles{};  // a control instruction, in the executing engine's cycles
    double semaphore_latency_ns{};  // an update is seen by waiting engines this much later
};

struct ActTablesConfig {
    uint32_t cam_entries{}, profile_slots{}, control_entries{}, control_stride_bytes{}, bucket_entries{};
};

struct ActConfig {
    double clock_ghz{};
    uint32_t lanes{};
    // Elements each partition (lane) streams per cycle, by dtype name (dtype_name(): FP32,
    // BFLOAT16, FP8_EXP4, ...); "default" covers the types not listed. An instruction streams
    // at the lower of its input's and its output's rates. The engine-wide figure of
    // public-figures §0 (128 or 256 elements/cycle) is this x lanes.
    std::map<std::string, uint32_t> elems_per_partition_cycle;
    uint32_t rate(const std::string& dtype_name) const;
    uint32_t static_overhead_cycles{}, min_ii_cycles{}, access_startup_cycles{};
    uint32_t pipeline_latency_cycles{};
    uint32_t strided_slowdown{};
    uint32_t accumulator_readout_cycles{};
    uint32_t table_load_dma_engine{}, table_load_dma_queue{};
    bool hwdge{};  // a DMA `copy` on the ACT queue uses the hardware DGE
    double hwdge_ns{};  // ... takes this on the ACT queue ...
    uint32_t hwdge_queue{};  // ... and goes to this queue of the engines
    ActTablesConfig tables;
    std::vector<uint32_t> opcodes;
    bool has_opcode(uint32_t op) const;
};

struct GpsimdConfig {
    double clock_ghz{};
    uint32_t cores{}, vector_bits{}, startup_cycles{};
    uint32_t read_port_bits{}, write_port_bits{};  // per core, per cycle, separate ports
    uint32_t elems_per_cycle{};  // engine-wide datapath, all cores, every dtype
    uint32_t swdge_cycles{};  // a DMA `copy` on POOL: software descriptor generation ...
    uint32_t swdge_queue{};  // ... and the queue of the engines it goes to
    bool cptc_library{};
    bool coretype_perf{};  // the PERF core type (only it stages the CPTC library)
    bool cptc_flag{};  // as if NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE were set
    std::map<uint32_t, uint32_t> cptc_routing;  // 3-bit CPTC value -> cptc_decode_impl<N>
};

// TensorE (docs/tensor-engine.md, docs/timing-model.md "TensorE"): access start-up, streaming
// (max(N, min_ii) cycles for N moving columns, fp32 fp32_slowdown x, fp8 e4/e5 / fp8_speedup;
// load_stationary that / load_stationary_speedup over M columns) and the array's drain. A
// matmul writes within one bank of memory.psum_bank_bytes.
struct TensorConfig {
    double clock_ghz{};
    uint32_t access_startup_cycles{}, min_ii_cycles{}, pipeline_latency_cycles{};
    uint32_t fp32_slowdown{}, fp8_speedup{}, load_stationary_speedup{};
    uint32_t mx_speedup{};  // nc_matmul_mx (MXFP8/MXFP4) streams this many times faster; 0: no MX matmul
};

// VectorE (docs/vector-engine.md, docs/timing-model.md "VectorE"): the same four stages as ACT
// (static overhead, access start-up, streaming, drain); streaming is about N cycles per input
// tensor, N elements per partition, at least min_ii, with the v3+ performance modes.
struct VectorConfig {
    double clock_ghz{};
    uint32_t static_overhead_cycles{}, min_ii_cycles{}, access_startup_cycles{}, pipeline_latency_cycles{};
    uint32_t strided_slowdown{};  // innermost stride >= 16 bytes, outside a performance mode
    uint32_t copy_speedup_contiguous{}, copy_speedup_strided{};  // tensor_copy / tensor_scalar, 16-bit (and fp8 with fp8_perf_mode)
    uint32_t tensor_tensor_speedup{};  // tensor_tensor, 16-bit
    bool fp8_perf_mode{};  // fp8 counts with bf16/fp16 for the performance modes
    uint32_t reciprocal_cycles_per_element{};
    bool v2_port_rules{};  // VectorE and GpSimd serialise; ScalarE waits for their PSUM writes (platform/core/shared_ports.h)
};

struct RunConfig {
    double skip_unknown_cost_ns{};
    // Work bounds (platform/core/work_budget.h): far above any real kernel, far below "forever".
    uint64_t max_elements_per_instruction{}, max_elements_per_run{};
    uint64_t max_dma_bytes_per_instruction{}, max_dma_bytes_per_run{};
    uint64_t max_dump_bytes{};  // all of a trace's .dump files together
    uint64_t max_dram_resident_bytes{};  // the run host's sparse DRAM: pages it may hold
    // Host threads the engines' element work is spread over (0: the host's hardware threads).
    // Results and simulated time do not depend on it.
    uint32_t host_threads{};
};

struct DeviceConfig {
    double instruction_fetch_ns{};  // doorbell to the bundles being fetchable (then prefetched)
};

struct Config {
    GenerationConfig generation;
    MemoryConfig memory;
    DmaConfig dma;
    uint32_t semaphores{};
    SyncConfig sync;
    ActConfig act;
    GpsimdConfig gpsimd;
    VectorConfig vector;
    TensorConfig tensor;
    RunConfig run;
    DeviceConfig device;
    std::string source;  // where it came from, for messages (the preset and its layers)
};

// One configuration field, as configs/README.md documents it.
struct ConfigFieldInfo {
    std::string key;  // dotted path, e.g. "act.clock_ghz"
    std::string type;  // integer, number, bool, name, list, map K -> V
    std::string unit;  // "-" when it has none
    std::string range;  // the values validation accepts
    std::string meaning;
    std::string source;  // where the presets' values come from
};
const std::vector<ConfigFieldInfo>& config_fields();
// The Markdown table of every field (configs/README.md embeds it; a test keeps them equal).
std::string config_fields_markdown();

// The five generations shipped in configs/ (compiled in): "sunda", "cayman", "mariana",
// "mariana_plus", "maverick" (case-insensitive).
const std::vector<std::string>& generation_names();
// --gen also takes the instance families: trn1 and inf2 (sunda), trn2 (cayman), trn3 (mariana).
const std::vector<std::pair<std::string, std::string>>& generation_aliases();
// The preset name of a generation or an alias, lower case ("TRN2" -> "cayman").
std::string canonical_generation(const std::string& generation);
std::string builtin_config_text(const std::string& generation);  // error names the value
std::string default_generation();  // "mariana"

// Parses YAML text holding every field; `overrides` are "dotted.key=value" applied in order
// (last wins) before validation, so they are checked like the file.
Config parse_config(const std::string& yaml_text, const std::string& source, const std::vector<std::string>& overrides = {});
Config load_config(const std::string& path, const std::vector<std::string>& overrides = {});

// A preset with layers on top: the built-in configs/<generation>.yaml, then each overlay file
// in order (a partial YAML: only the keys it gives change; maps merge, lists and scalars
// replace), then the overrides. An error names the layer that set the offending value: the
// overlay file (with its line) or the -p argument. An overlay may not name another
// generation than the preset's.
Config compose_config(const std::string& generation, const std::vector<std::string>& overlay_paths, const std::vector<std::string>& overrides = {});
// compose_config() with the overlays given as text (name, YAML), for hosts without files.
Config compose_config_text(const std::string& generation, const std::vector<std::pair<std::string, std::string>>& overlays,
                           const std::vector<std::string>& overrides = {});

// The resolved configuration as YAML (what a run writes into its output directory).
std::string config_to_yaml(const Config& c);

}  // namespace neuronsim
