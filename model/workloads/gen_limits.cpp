#include "model/workloads/gen_limits.h"

#include "config/features.h"

namespace neuronsim::model::workloads {

GenLimits gen_limits(const Config& c) {
    GenLimits g;
    g.name = c.generation.name;
    g.nc_version = c.generation.nc_version;
    g.partitions = c.memory.partitions;
    g.sbuf_bytes = c.memory.sbuf_bytes_per_partition;
    g.psum_banks = c.memory.psum_banks;
    g.psum_bank_bytes = c.memory.psum_bank_bytes;
    g.dma_engines = c.dma.engines;
    g.table_load_dma_engine = c.act.table_load_dma_engine;
    g.semaphores = c.semaphores;
    g.dram_bytes = c.memory.dram_bytes;
    g.cptc_decode = can_decode_cptc(c);
    return g;
}

}  // namespace neuronsim::model::workloads
