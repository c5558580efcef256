#pragma once
// Every key of stats.json and host.json, declared once, a namespace per node kind with its
// records in document order (kAll); docs/stats-schema.md is generated from them (`neuronsim
// stats schema`). A new stat is a record here (and in its kAll) and the line of its component
// that puts it.
#include <map>
#include <string>

#include "stats/stat.h"

namespace neuronsim::stats {

// What was run: the top of stats.json (platform/run_outputs).
namespace run {
inline constexpr Stat schema_version{"schema_version", Unit::none, "the layout's version (this page's)"};
inline constexpr Stat neuronsim_version{"neuronsim_version", Unit::none, "the simulator's version (`neuronsim --version`)"};
inline constexpr Stat generation{"generation", Unit::none, "SUNDA, CAYMAN, MARIANA, MARIANA_PLUS or MAVERICK"};
inline constexpr Stat trace_path{"trace.path", Unit::none, "the trace as given (`--trace`), the `--streams` directory, or `(built in) demo.trace`"};
inline constexpr Stat trace_sha256{"trace.sha256", Unit::hex,
                                   "SHA-256 of the trace file's bytes (not of the `.data` files it names); for `--streams`, of the sorted list of "
                                   "`name + \"\\n\" + sha256(file) + \"\\n\"` of the directory's files"};
inline constexpr Stat config_preset{"config.preset", Unit::none, "the generation preset the layers start from (`mariana`)"};
inline constexpr Stat overlay_path{"config.overlays[<n>].path", Unit::none, "each `--config` overlay, in order (*optional*: only when given)", true};
inline constexpr Stat overlay_sha256{"config.overlays[<n>].sha256", Unit::hex, "its SHA-256 (*optional*)", true};
inline constexpr Stat overrides{"config.overrides[<n>]", Unit::none,
                                "each `-p key=value`, in order (the built-in demo adds `gpsimd.cptc_flag=true` first on v4+)"};
inline constexpr Stat config_sha256{"config.sha256", Unit::hex,
                                    "SHA-256 of the resolved configuration (`OUT/config.yaml`); equal hashes mean equal configurations"};
inline constexpr Stat numerics{"run.numerics", Unit::none, "`full`, or `none` for a timing-only run (`--numerics none`)"};
inline constexpr Stat act_numerics{"run.act_numerics", Unit::none, "`pwp` (tables) or `exact` (closed forms)"};
inline constexpr Stat uninitialised{"run.uninitialised", Unit::none, "what SBUF and PSUM held before the run wrote them: `zero` or `nan` (0xff bytes)"};
inline constexpr Stat status{"run.status", Unit::none, "`complete`, or `interrupted` (SIGINT/SIGTERM: the numbers cover what completed)"};
// The group in document order.
inline constexpr const Stat* kAll[] = {&schema_version, &neuronsim_version, &generation,    &trace_path, &trace_sha256, &config_preset, &overlay_path,
                                       &overlay_sha256, &overrides,         &config_sha256, &numerics,   &act_numerics, &uninitialised, &status};
}  // namespace run

// The device: NeuronCore::stats_json(), `core` in stats.json.
namespace core {
inline constexpr Stat neuronsim_version{"neuronsim_version", Unit::none, "as above (the device reports it too)"};
inline constexpr Stat generation{"generation", Unit::none, "as above"};
inline constexpr Stat simulated_ps{"simulated_ps", Unit::ps, "the device's busy window: first doorbell to last completion"};
inline constexpr Stat instructions{"instructions", Unit::none, "instructions completed, all queues"};
inline constexpr Stat mem_transactions{"mem.transactions", Unit::none,
                                       "TLM transactions on the device's `mem` port (instruction fetches, table images, DMA; a timing-only run "
                                       "moves no data, so fewer)"};
inline constexpr Stat mem_dmi_accesses{"mem.dmi_accesses", Unit::none, "accesses served through DMI pointers"};
inline constexpr Stat mem_dmi_grants{"mem.dmi_grants", Unit::none, "DMI regions granted"};
inline constexpr Stat mem_dmi_invalidations{"mem.dmi_invalidations", Unit::none, "DMI invalidations received"};
// The group in document order.
inline constexpr const Stat* kAll[] = {&neuronsim_version, &generation,       &simulated_ps,   &instructions,
                                       &mem_transactions,  &mem_dmi_accesses, &mem_dmi_grants, &mem_dmi_invalidations};
}  // namespace core

// What the figures above mean for a study (`core.derived`), computed from them and from when
// each engine was busy. "compute" is ACT and POOL together; "DMA" every DMA engine together.
namespace derived {
inline constexpr Stat act_utilisation{"act_utilisation", Unit::fraction, "ACT busy time over `simulated_ps`"};
inline constexpr Stat pool_utilisation{"pool_utilisation", Unit::fraction, "POOL busy time over `simulated_ps`"};
inline constexpr Stat dma_utilisation{"dma_utilisation", Unit::fraction, "time some DMA engine moved data, over `simulated_ps`"};
inline constexpr Stat compute_busy_ps{"compute_busy_ps", Unit::ps, "time ACT, POOL, VectorE or TensorE was busy (the union)"};
inline constexpr Stat dma_busy_ps{"dma_busy_ps", Unit::ps, "time some DMA engine moved data (the union of the engines' packets)"};
inline constexpr Stat dma_compute_overlap_ps{"dma_compute_overlap_ps", Unit::ps, "time DMA moved data while ACT or POOL was busy"};
inline constexpr Stat dma_hidden_fraction{"dma_hidden_fraction", Unit::fraction,
                                          "the share of DMA time overlapped by compute (1: all of it hidden; 0 when no DMA)"};
inline constexpr Stat act_table_load_share{"act_table_load_share", Unit::fraction, "ACT's table-load time over its busy time (0 when ACT was idle)"};
inline constexpr Stat dma_gbps{"dma_gbps", Unit::gbps, "DMA bytes over `dma_busy_ps`: the bandwidth achieved while moving data (0 when none)"};
inline constexpr Stat dma_peak_gbps{"dma_peak_gbps", Unit::gbps, "the NeuronCore's DMA bandwidth, all engines (`dma.aggregate_bytes_per_ns`)"};
inline constexpr Stat dma_peak_fraction{"dma_peak_fraction", Unit::fraction, "`dma_gbps` over `dma_peak_gbps`"};
inline constexpr Stat critical_engine{
    "critical_engine", Unit::none, "the busiest of act, pool, dve, pe and dma (\"none\" in an empty run): what bounds the run when its utilisation is near 1"};
// The group in document order.
inline constexpr const Stat* kAll[] = {&act_utilisation, &pool_utilisation,       &dma_utilisation,     &compute_busy_ps,
                                       &dma_busy_ps,     &dma_compute_overlap_ps, &dma_hidden_fraction, &act_table_load_share,
                                       &dma_gbps,        &dma_peak_gbps,          &dma_peak_fraction,   &critical_engine};
}  // namespace derived

// An on-chip memory (`core.sbuf`, `core.psum`).
namespace memory {
inline constexpr Stat bytes{"bytes", Unit::bytes, "its size (all partitions)"};
// A DRAM model (a Memory without partitions, such as the trace host's) reports the 64 KiB pages
// it allocated; it is outside the core, so in its host's stats tree, not in stats.json.
inline constexpr Stat pages_touched{"pages_touched", Unit::none, "DRAM pages allocated (a host's DRAM, not in stats.json)"};
// The group in document order (pages_touched is not in stats.json).
inline constexpr const Stat* kAll[] = {&bytes};
}  // namespace memory

namespace semaphores {
inline constexpr Stat updates{"updates", Unit::none, "semaphore updates"};
inline constexpr Stat final_nonzero{"final_nonzero_values.<semaphore>", Unit::none, "semaphores left non-zero at the end (*optional*)", true};
// The group in document order.
inline constexpr const Stat* kAll[] = {&updates, &final_nonzero};
}  // namespace semaphores

// Hazards between the engines (`core.hazards`, docs/hazards.md): pairs of instructions of
// different streams that touch the same bytes with no semaphore ordering them.
namespace hazards {
inline constexpr Stat checked{"checked", Unit::none, "whether hazards were looked for (`--hazards off` gives false and zeros)"};
inline constexpr Stat read_after_write{"read_after_write", Unit::none, "reads of bytes another stream's unordered instruction wrote (pairs)"};
inline constexpr Stat write_after_read{"write_after_read", Unit::none, "writes of bytes another stream's unordered instruction read (pairs)"};
inline constexpr Stat write_after_write{"write_after_write", Unit::none, "writes of bytes another stream's unordered instruction wrote (pairs)"};
inline constexpr Stat unwritten_reads{"unwritten_reads", Unit::none, "instructions that read SBUF/PSUM bytes neither an instruction nor the host had written"};
// The group in document order.
inline constexpr const Stat* kAll[] = {&checked, &read_after_write, &write_after_read, &write_after_write, &unwritten_reads};
}  // namespace hazards

namespace dma {
inline constexpr Stat transfers{"transfers", Unit::none, "DMA transfers (copies and table loads)"};
inline constexpr Stat packets{"packets", Unit::none, "their packets: one per engine a transfer touches"};
inline constexpr Stat descriptors{"descriptors", Unit::none, "their descriptors: one per row"};
inline constexpr Stat bytes{"bytes", Unit::bytes, "bytes they moved"};
inline constexpr Stat annotated_delay_ps{"annotated_delay_ps", Unit::ps, "time the memories annotated on top of the DMA model"};
inline constexpr Stat engine_packets{"engines.<E>.packets", Unit::none, "packets DMA engine E served"};
inline constexpr Stat engine_descriptors{"engines.<E>.descriptors", Unit::none, "their descriptors"};
inline constexpr Stat engine_bytes{"engines.<E>.bytes", Unit::bytes, "their bytes"};
inline constexpr Stat engine_busy_ps{"engines.<E>.busy_ps", Unit::ps, "its busy time (descriptors, bytes, annotated delays; not the latency before a packet)"};
// The group in document order.
inline constexpr const Stat* kAll[] = {&transfers,          &packets,      &descriptors,   &bytes, &annotated_delay_ps, &engine_packets,
                                       &engine_descriptors, &engine_bytes, &engine_busy_ps};
}  // namespace dma

// Every engine: ACT, POOL and each DMA queue stream.
namespace engine {
inline constexpr Stat instructions{"instructions", Unit::none, "instructions it completed"};
inline constexpr Stat busy_ps{"busy_ps", Unit::ps, "time with an instruction in flight (issued, not completed): the union of their [start, end]"};
inline constexpr Stat stalled_ps{"stalled_ps", Unit::ps,
                                 "time it waited to issue with nothing of its own in flight (semaphores, a full DMA queue, a result of its own "
                                 "engine); busy + stalled + idle = the run"};
inline constexpr Stat busy_cycles{"busy_cycles", Unit::cycles, "busy time at its clock"};
inline constexpr Stat clock_ghz{"clock_ghz", Unit::ghz, "its clock (DMA queues: the Sync engine's, `sync.clock_ghz`)"};
inline constexpr Stat skipped_unknown{"skipped_unknown", Unit::none, "unmodelled opcodes skipped (`--skip-unknown`)"};
inline constexpr Stat mnemonic_count{"by_mnemonic.<mnemonic>.count", Unit::none, "instructions of that mnemonic (*optional*: when it ran any)", true};
inline constexpr Stat mnemonic_busy_ps{"by_mnemonic.<mnemonic>.busy_ps", Unit::ps, "their share of the busy time: what each adds to the union (*optional*)",
                                       true};
inline constexpr Stat stall_count{"stalls.<cause>.count", Unit::none, "stalls of that cause (*optional*)", true};
inline constexpr Stat stall_ps{"stalls.<cause>.stalled_ps", Unit::ps, "their share of `stalled_ps` (*optional*)", true};
inline constexpr Stat stall_text{"stalls.<cause>.cause", Unit::none, "the cause as text, as instructions.csv writes it (*optional*)", true};
// The group in document order.
inline constexpr const Stat* kAll[] = {&instructions,   &busy_ps,          &stalled_ps,  &busy_cycles, &clock_ghz, &skipped_unknown,
                                       &mnemonic_count, &mnemonic_busy_ps, &stall_count, &stall_ps,    &stall_text};

// The engines of a core's stats node, by name: its children with busy_ps (ACT, POOL) and the
// DMA queue streams under "queues".
inline std::map<std::string, const Node*> nodes_of(const Node& core) {
    std::map<std::string, const Node*> engines;
    auto collect = [&](const Node& node) {
        for (auto it = node.begin(); it != node.end(); ++it)
            if (has(it.value(), busy_ps)) engines[it.key()] = &it.value();
    };
    collect(core);
    if (core.contains("queues")) collect(core["queues"]);
    return engines;
}
}  // namespace engine

namespace act {
inline constexpr Stat elements{"elements", Unit::elements, "elements streamed (all partitions)"};
inline constexpr Stat table_loads{"table_loads", Unit::none, "LoadActFuncSet instructions"};
inline constexpr Stat redundant_table_loads{"redundant_table_loads", Unit::none, "loads of the set already resident"};
inline constexpr Stat table_load_bytes{"table_load_bytes", Unit::bytes, "table image bytes loaded"};
inline constexpr Stat table_load_ps{"table_load_ps", Unit::ps, "the table loads' share of ACT's busy time (issue to the image DMA's completion)"};
inline constexpr Stat compute_ps{"compute_ps", Unit::ps, "busy time apart from table loads and DMA triggers (`copy` on the ACT queue)"};
inline constexpr Stat switch_from{"table_switches[<n>].from", Unit::none, "resident set before a load (`(none)` at first)"};
inline constexpr Stat switch_to{"table_switches[<n>].to", Unit::none, "set loaded"};
inline constexpr Stat switch_count{"table_switches[<n>].count", Unit::none, "how often this switch happened"};
inline constexpr Stat switch_load_ps{"table_switches[<n>].load_ps", Unit::ps, "its total load time (issue to completion)"};
inline constexpr Stat switch_functions{"table_switches[<n>].for_functions[<n>]", Unit::none,
                                       "the functions that needed the set (the first Activate after each load)"};
inline constexpr Stat sbuf_bytes_read{"sbuf_bytes_read", Unit::bytes, "SBUF bytes read by Activate-family instructions"};
inline constexpr Stat sbuf_bytes_written{"sbuf_bytes_written", Unit::bytes, "SBUF bytes written"};
inline constexpr Stat psum_bytes_read{"psum_bytes_read", Unit::bytes, "PSUM bytes read"};
inline constexpr Stat psum_bytes_written{"psum_bytes_written", Unit::bytes, "PSUM bytes written"};
// The group in document order.
inline constexpr const Stat* kAll[] = {&elements,           &table_loads,     &redundant_table_loads, &table_load_bytes, &table_load_ps,    &compute_ps,
                                       &switch_from,        &switch_to,       &switch_count,          &switch_load_ps,   &switch_functions, &sbuf_bytes_read,
                                       &sbuf_bytes_written, &psum_bytes_read, &psum_bytes_written};
}  // namespace act

// The ACT table memory, `core.act.act_tables`.
namespace act_tables {
inline constexpr Stat bytes_written{"bytes_written", Unit::bytes, "bytes written into the table memory (*optional*: once a set was loaded)", true};
inline constexpr Stat resident_set{"resident_set", Unit::none, "the set resident at the end (*optional*: once a set was loaded)", true};
// The group in document order.
inline constexpr const Stat* kAll[] = {&bytes_written, &resident_set};
}  // namespace act_tables

namespace pool {
inline constexpr Stat cptc_decodes{"cptc_decodes", Unit::none, "CPTC decode instructions"};
inline constexpr Stat cptc_decoded_elements{"cptc_decoded_elements", Unit::elements, "elements they produced (all partitions)"};
inline constexpr Stat cptc_by_kernel{"cptc_by_kernel.<kernel>", Unit::none, "decodes per `cptc_decode_impl<N>` (*optional*)", true};
inline constexpr Stat copies{"copies", Unit::none, "ExtendedInstCopy instructions"};
inline constexpr Stat conv_lut_loads{"conv_lut_loads", Unit::none, "legacy conversion-LUT loads"};
inline constexpr Stat sbuf_bytes_read{"sbuf_bytes_read", Unit::bytes, "SBUF bytes read by copies"};
inline constexpr Stat sbuf_bytes_written{"sbuf_bytes_written", Unit::bytes, "SBUF bytes written (decodes and copies)"};
inline constexpr Stat conv_lut{"conv_lut[<n>]", Unit::none, "the 16 conversion-LUT entries (*optional*: once loaded)", true};
// The group in document order.
inline constexpr const Stat* kAll[] = {&cptc_decodes,   &cptc_decoded_elements, &cptc_by_kernel,     &copies,
                                       &conv_lut_loads, &sbuf_bytes_read,       &sbuf_bytes_written, &conv_lut};
}  // namespace pool

// host.json: wall-clock figures, which vary run to run.
namespace host {
inline constexpr Stat wall_seconds{"wall_seconds", Unit::seconds,
                                   "the simulation, from the first instruction to the last record written (`instructions.csv` and `timeline.json` "
                                   "complete on disk); not the trace's assembly, nor the dumps"};
inline constexpr Stat simulated_ns_per_wall_second{"simulated_ns_per_wall_second", Unit::ns_per_second, "simulated time over `wall_seconds`"};
inline constexpr Stat instructions_per_second{"instructions_per_second", Unit::per_second, "completed instructions over `wall_seconds`"};
inline constexpr Stat peak_rss_bytes{"peak_rss_bytes", Unit::bytes, "the process's peak resident memory at the end of the run (`getrusage`)"};
inline constexpr Stat dma_copy_wait_seconds{"dma_copy_wait_seconds", Unit::seconds,
                                            "of `wall_seconds`, the simulation thread's time on DMA copies queued for another host thread that it "
                                            "had to see landed (before an access over their bytes, a ring refill, the run's end): waiting for "
                                            "them, or making them itself (0 when every copy is made as its packet moves: one host thread, or "
                                            "`--dma-copies inline`; `deferred` counts the copies its settles make)"};
// The group in document order.
inline constexpr const Stat* kAll[] = {&wall_seconds, &simulated_ns_per_wall_second, &instructions_per_second, &peak_rss_bytes, &dma_copy_wait_seconds};
}  // namespace host

}  // namespace neuronsim::stats
