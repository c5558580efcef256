#include "platform/cost_model.h"

#include <algorithm>
#include <cmath>

#include "model/fp/dtype.h"
#include "model/isa/layouts.h"

namespace neuronsim::platform {

namespace {

std::string num(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}

// CoreV4Hwm's Activation latency (hardware-facts §E): readInit floor(init x 100/120) with init
// 222 when a 16-bit dtype is present, 172 for 32-bit, 100 otherwise; exec floor(N x 100/120).
// Model cycles are 100/freq ns, freq 120 = 1.2 GHz: the result is in ns.
CostEstimate corev4_activation(const InstructionShape& s) {
    auto bytes = [](uint8_t code) { return code <= 0x0F ? model::fp::dtype_bytes(static_cast<model::fp::Dtype>(code)) : 0; };
    const size_t bi = bytes(s.in_dtype), bo = bytes(s.out_dtype);
    const int init = (bi == 2 || bo == 2) ? 222 : (bi == 4 || bo == 4) ? 172 : 100;
    const double read_init = std::floor(init * 100.0 / 120), exec = std::floor(static_cast<double>(s.n) * 100 / 120);
    return {read_init + exec, "CoreV4Hwm: floor(" + std::to_string(init) + "*100/120) + floor(N*100/120), N=" + std::to_string(s.n)};
}

// nki.isa `activation`: max(MIN_II, N) ScalarE cycles plus the static (~100) and access
// (~60) overheads (public-figures §1.4).
CostEstimate nki_activation(const Config& c, const InstructionShape& s) {
    const double cyc = static_cast<double>(std::max<uint64_t>(64, s.n)) + 160;
    return {cyc / c.act.clock_ghz, "nki.isa: max(64,N)+160 cycles at " + num(c.act.clock_ghz) + " GHz, N=" + std::to_string(s.n)};
}

}  // namespace

CostEstimate cost_estimate(const Config& c, const InstructionShape& s) {
    using namespace model::isa;
    switch (s.opcode) {
        case kActivate:
        case kActivateQuantize:
        case kActivate2:
            return c.generation.nc_version >= 4 ? corev4_activation(s) : nki_activation(c, s);
        case kReadAccumulator:
            return {64 / c.act.clock_ghz, "nki.isa: activation_reduce readout MIN_II = 64 cycles"};
        case kTableLoad:
            return {0, "compiler: LoadActFuncSet has no latency (treated as free)"};
        case kDmaCopy: {
            // DMA exec ((P+15)>>4) x bytes per partition / DIV, DIV 17 (Tonga) or 23 (Gen3) B/ns;
            // CoreV4's is not given: the public 33 B/ns per engine. readInit 1300.
            const double div = c.generation.nc_version <= 2 ? 17 : c.generation.nc_version == 3 ? 23 : 33;
            const uint64_t per = s.rows ? s.bytes / s.rows : 0;
            const double ns = 1300 + std::floor(((s.rows + 15) >> 4) * static_cast<double>(per) / div);
            return {ns, "compiler DMA: 1300 + ((P+15)>>4)*bytes/" + num(div) + ", P=" + std::to_string(s.rows) + " bytes=" + std::to_string(per)};
        }
        case kConvLutLoad:
        case kExtended: {
            // GpSimd instructions: GPSIMD_START (~150) + N cycles (nki.isa iota/affine_select).
            const double cyc = 150.0 + static_cast<double>(s.n);
            return {cyc / c.gpsimd.clock_ghz, "nki.isa GpSimd: 150+N cycles at " + num(c.gpsimd.clock_ghz) + " GHz, N=" + std::to_string(s.n)};
        }
        default:
            return {};
    }
}

}  // namespace neuronsim::platform
