#pragma once
// The GPSIMD (POOL) engine on the platform: runs 0xe4 ConvLutLoad and 0xf0 extended bundles
// through the firmware model (firmware_model/pool_firmware.h) against SBUF, with the
// configured cores (8), each owning partitions/cores partitions (16) and working on them in
// its 512-bit lanes, 32 bits per partition per cycle. Time per instruction (PoolTiming below,
// docs/cptc-format.md): start-up plus one core's work, all cores in parallel.
#include <cstdint>
#include <string>

#include "firmware_model/pool_firmware.h"
#include "platform/config/config.h"
#include "platform/engine.h"

namespace neuronsim::platform {

struct PoolTiming {
    const GpsimdConfig* cfg = nullptr;
    uint32_t partitions_per_core = 16;
    // Per 64-element group and partition: read the K bit planes (2K cycles at 32 bits per
    // cycle), the kernel's leg (unpack, de-interleave, scale, reconstruct, clamp), store
    // 64 x out_bytes (16 x out_bytes cycles).
    static unsigned leg_cycles(unsigned impl);
    uint64_t cptc_decode_cycles(unsigned impl, unsigned bits, uint64_t groups, unsigned out_bytes) const;
    uint64_t copy_cycles(uint64_t bytes_per_partition) const;  // 32 bits read and written per partition per cycle
    uint64_t lut_load_cycles() const;
    uint64_t nop_cycles() const;
};

class PoolEngine : public Engine {
public:
    PoolEngine(sc_core::sc_module_name name, Platform& platform, const std::string& stream_path);
    void collect_stats(nlohmann::ordered_json& node) const override;

protected:
    bool execute(const model::isa::Bundle& b, uint64_t index) override;

private:
    firmware_model::PoolFirmware firmware_;
    PoolTiming timing_;
    uint64_t decodes_ = 0, decoded_elements_ = 0, copies_ = 0, lut_loads_ = 0;
    uint64_t by_impl_[7] = {};
};

}  // namespace neuronsim::platform
