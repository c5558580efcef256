#pragma once
// The GPSIMD (POOL) engine on the platform: runs 0xe4 ConvLutLoad and 0xf0 extended bundles
// through the firmware model (firmware_model/pool_firmware.h) against SBUF, with the
// configured cores (8), each owning partitions/cores partitions (16) and working on them in
// its 512-bit lanes, 32 bits per partition per cycle. Time per instruction (PoolTiming below,
// docs/cptc-format.md): start-up plus one core's work, all cores in parallel; the firmware
// runs one instruction at a time. A `copy` (0xD1) on the POOL queue is a software-DGE DMA
// trigger: POOL generates its descriptors (gpsimd.swdge_cycles), then triggers it.
#include <cstdint>
#include <string>

#include "firmware_model/pool_firmware.h"
#include "platform/config.h"
#include "platform/core/engine.h"
#include "platform/tlm/tlm_port.h"

namespace neuronsim::platform {

struct SharedPorts;

// One core's time (docs/cptc-format.md, "Timing"). A CPTC decode is a three-stage pipeline
// over 64-element groups: read (the group's K bit planes through the core's read port), kernel
// (the core's share of the engine's datapath, gpsimd.elems_per_cycle for every dtype) and
// write (the outputs through the separate write port). The stages overlap; block scales are
// read through the read port before the first group; a partial last group computes and
// writes only its elements. A copy streams its elements through the same datapath, its bytes
// through the ports.
struct PoolTiming {
    const GpsimdConfig* cfg = nullptr;
    uint32_t partitions_per_core = 16;
    struct Stages {
        uint64_t read = 0, kernel = 0, write = 0;
    };
    Stages cptc_group(unsigned bits, uint64_t elements, unsigned out_bytes) const;  // one group of `elements`
    uint64_t cptc_decode_cycles(unsigned bits, uint64_t elements, unsigned out_bytes, uint64_t scale_bytes) const;
    uint64_t copy_cycles(uint64_t elements_per_partition, uint64_t bytes_per_partition) const;  // read and write overlap
    uint64_t lut_load_cycles() const;
    uint64_t nop_cycles() const;

private:
    uint64_t port_cycles(uint64_t bytes_per_partition, uint32_t port_bits) const;
    uint64_t datapath_cycles(uint64_t elements_per_partition) const;
};

class PoolEngine : public Engine {
public:
    TlmPort sbuf;  // SBUF through DMI (GPSIMD cannot reach PSUM)

    PoolEngine(sc_core::sc_module_name name, EngineContext& ctx, InstructionSource& source);
    void bind(CoreMemories& m) override;
    void collect_stats(nlohmann::ordered_json& node) const override;

protected:
    bool execute(const model::isa::Bundle& b, uint64_t index) override;

private:
    // The NC-v2 port rules (shared_ports.h): waits while VectorE holds the port; true if it did.
    bool wait_for_port(SharedPorts* ports);
    firmware_model::PoolFirmware firmware_;
    PoolTiming timing_;
    uint64_t decodes_ = 0, decoded_elements_ = 0, copies_ = 0, lut_loads_ = 0, bytes_read_ = 0, bytes_written_ = 0;
    uint64_t by_impl_[7] = {};
};

}  // namespace neuronsim::platform
