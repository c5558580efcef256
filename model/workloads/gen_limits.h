#pragma once
// What a generation allows a generated kernel: the figures of its configuration
// (configs/<gen>.yaml) the tiling and scheduling depend on, taken from a Config by gen_limits()
// alone. (Plain data with MARIANA's values by default, for the generators' own tests.)
#include <cstdint>
#include <string>

#include "neuronsim/config.h"

namespace neuronsim::model::workloads {

struct GenLimits {
    std::string name = "MARIANA";  // generation.name
    int nc_version = 4;  // generation.nc_version
    uint32_t partitions = 128;  // memory.partitions: rows per tile
    uint64_t sbuf_bytes = 262144;  // memory.sbuf_bytes_per_partition
    uint32_t psum_banks = 8;  // memory.psum_banks
    uint64_t psum_bank_bytes = 2048;  // memory.psum_bank_bytes (per partition)
    uint32_t dma_engines = 16;  // dma.engines
    uint32_t table_load_dma_engine = 15;  // act.table_load_dma_engine: kept free of kernel traffic
    uint32_t semaphores = 256;  // sync.semaphores
    uint64_t dram_bytes = uint64_t{16} << 30;  // memory.dram_bytes
    // The ISA names the CPTC dtypes (NC-v4 on) and the firmware ships the CPTC library
    // (gpsimd.cptc_library); the run still has to opt in (-p gpsimd.cptc_flag=true).
    bool cptc_decode = true;
};

GenLimits gen_limits(const Config& c);

// The ACT free-size limit of one instruction: TENSOR3D num[0] is a u16 and the public figure
// is "up to 64K elements from SBUF" (public-figures §1.1).
inline constexpr uint32_t kMaxFreeElements = 65535;
// Most tiles in one trace (about 2 KB of trace text each): the semaphores count tiles.
inline constexpr uint64_t kMaxTiles = uint64_t{1} << 20;
// DRAM `neuronsim run` keeps at its top for the instruction queues and the function sets.
inline constexpr uint64_t kDramReserve = uint64_t{256} << 20;

}  // namespace neuronsim::model::workloads
