#pragma once
// The GPSIMD (POOL) firmware as plain C++ (no SystemC): the kernel_info tables and their
// linear scan, the 0xe4 ConvLutLoad dispatcher (legacy LUT load or CPTC decode by lut_dtype),
// the six-arm ladder to cptc_decode_impl<N> with the odd impls' guards, the six decode legs,
// and the 0xf0 extended opcodes Nop, Copy and CptcDecode (hardware-facts §F, §G; seed 004).
// Firmware errors keep their firmware wording ("P%i: Error, ...").
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "model/isa/bundle.h"
#include "model/isa/region.h"
#include "neuronsim/config.h"

namespace neuronsim::firmware_model {

struct KernelInfo {
    uint8_t opcode;
    uint8_t spec;
    uint32_t func_va;
    const char* role;
};

// Rows in registration order (the scan is linear): EXTISA_3 (9 rows, CPTC), the main image
// (17 rows; 0xf0 specs 0, 1, 2, 4, 3).
const std::vector<KernelInfo>& extisa3_kernel_info();
const std::vector<KernelInfo>& main_kernel_info();

// Which images a core runs (§F.9, §F.10): SUNDA has neither 0xe4 nor 0xf0; from CAYMAN the main
// image has 0xf0; EXTISA_3 (0xe4 and 0xf0 spec 7) is staged only when the generation ships
// the CPTC library, the core type is PERF and NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE is
// set (in the environment, or in the config).
struct FirmwareConfig {
    int nc_version = 4;
    bool cptc_library = true;
    bool coretype_perf = true;
    bool cptc_flag = false;
    std::map<uint32_t, uint32_t> routing;  // 3-bit value -> impl (1->1, 3->5, 4->3 fixed)
    // Elements one instruction may process over all its partitions: a bound on the work of a
    // pathological pattern (step 0, counts of 65535), far above any real kernel (a full SBUF
    // is 128 x 256 KiB = 2^25 bytes).
    uint64_t max_elements = uint64_t{1} << 28;
    // false: every check runs and the result describes the work, but no element is read or
    // written (a timing-only run).
    bool values = true;
    // The element-by-element CPTC decode (model::cptc::decode_reference):
    // the oracle of the fast decode's tests and the baseline of neuronsim_bench_pool.
    bool reference_decode = false;
    bool extisa3_staged() const;
};

// The firmware's view of a configuration (its one derivation); `values` false: timing only.
FirmwareConfig firmware_config(const Config& c, bool values);

// Memory the kernels read and write: SBUF only (GPSIMD cannot reach PSUM). Returns a pointer
// to `len` bytes at partition/offset, or throws naming the range.
using SbufAccess = std::function<uint8_t*(uint32_t partition, uint64_t offset, uint64_t len)>;

struct ExecResult {
    std::string kernel;  // "cptc_decode_impl<3>", "ExtendedInstCopy", ...
    uint64_t elements = 0;  // CPTC: codes decoded per partition
    uint64_t groups = 0;  // CPTC: 64-element groups per partition (the last one padded)
    unsigned bits = 0;  // CPTC code width
    unsigned impl = 0;  // cptc_decode_impl<N>
    uint64_t scale_bytes = 0;  // CPTC: block-scale bytes the leg reads per partition
    uint64_t bytes_per_partition = 0;  // Copy: bytes moved per partition
    uint32_t partitions = 0;  // partitions this core processed
    std::vector<std::string> log;  // the firmware's DEBUG trace lines
    std::vector<uint16_t> conv_lut;  // a legacy LUT load's 16 entries (execute keeps them)
    // The SBUF bytes it reads and writes (bounding boxes of its patterns), also when it moves no
    // values: for the hazard detector.
    std::vector<model::isa::Region> reads, writes;
};

class PoolFirmware {
public:
    // Stages the images once, as the runtime does when it loads the core (the environment
    // variable is read here).
    explicit PoolFirmware(FirmwareConfig cfg);

    // Runs one 0xe4 or 0xf0 bundle on core `core` (the "P%i" of messages), which owns the
    // partitions [first_partition, first_partition + partition_count): it touches only those
    // of the instruction's active rows. Throws Error with the firmware's message
    // ("UNKNOWN OPCODE=0xe4", "P0: Error, unsupported in_dtype ...").
    ExecResult execute(const model::isa::Bundle& b, unsigned core, const SbufAccess& sbuf, uint32_t first_partition = 0, uint32_t partition_count = 128);
    // execute() as apply() then keep(): apply() changes nothing in the firmware (a legacy LUT
    // load's entries stay in its result), so the cores of one instruction may run at once on
    // host threads, as the hardware's do; keep() then stores what the firmware holds on to.
    ExecResult apply(const model::isa::Bundle& b, unsigned core, const SbufAccess& sbuf, uint32_t first_partition = 0, uint32_t partition_count = 128) const;
    void keep(const ExecResult& r);

    // What execute(b, core, ...) would do without doing it: the same checks and errors, the
    // same result (kernel, counts, the SBUF regions it reads and writes), no SBUF touched:
    // what an access must wait for before the instruction runs.
    ExecResult plan(const model::isa::Bundle& b, unsigned core, uint32_t first_partition = 0, uint32_t partition_count = 128) const;

    // The staged kernel_info row a bundle dispatches to, or the firmware's error
    // ("UNKNOWN OPCODE=0x%x", "UNKNOWN EXTENDED OPCODE=%d").
    const KernelInfo& dispatch(const model::isa::Bundle& b) const;

    // The legacy conversion LUT (16 UINT16 entries) the last legacy 0xe4 loaded.
    const std::array<uint16_t, 16>& conv_lut() const { return lut_; }
    bool conv_lut_loaded() const { return lut_loaded_; }

    // The routed kernel of a 3-bit CPTC value (0 when the ladder has no arm for it).
    unsigned route(unsigned value) const;

private:
    struct Slice {
        unsigned core;
        uint32_t first, count;
        const SbufAccess* sbuf;  // nullptr: plan() (the checks and regions alone)
        uint32_t end(uint32_t active) const { return first + count < active ? first + count : active; }
    };
    ExecResult run(const model::isa::Bundle& b, const Slice& c) const;
    ExecResult conv_lut_load(const model::isa::Bundle& b, const Slice& c, bool extended) const;
    ExecResult ext_copy(const model::isa::Bundle& b, const Slice& c) const;
    // Throws when `per_partition` elements on the slice's partitions below `end` exceed max_elements.
    void check_work(const std::string& kernel, const Slice& c, uint64_t per_partition, uint32_t end) const;

    FirmwareConfig cfg_;
    std::vector<const KernelInfo*> rows_;  // the staged kernel_info rows, in scan order
    std::array<uint16_t, 16> lut_{};
    bool lut_loaded_ = false;
};

}  // namespace neuronsim::firmware_model
