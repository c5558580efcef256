#pragma once
// The NC-v2 port rules (vector.v2_port_rules; hardware-facts §E, the compiler's event model
// for arch_version <= 29): VectorE and GpSimd share a port, so their instructions serialise,
// and a ScalarE instruction starts after the VectorE and GpSimd instructions issued before it
// that write PSUM. VectorE reserves its [start, end] as it decides its start (its pipeline
// knows both); GpSimd, whose time is known only once its firmware has run, waits until the port
// is free of VectorE's reservations (looking again after each wait) and then reserves. v3 and
// later lifted both rules.
#include <algorithm>
#include <string>

#include <systemc>

namespace neuronsim::platform {

struct SharedPorts {
    // The port is each engine's while its instruction runs: the other waits (an engine's own
    // instructions still pipeline).
    sc_core::sc_time dve_until, pool_until;
    sc_core::sc_time psum_writes_done;  // the end of the last VectorE/GpSimd instruction writing PSUM
    const std::string port_name = "the VectorE/GpSimd port (NC-v2)";
    const std::string psum_name = "VectorE/GpSimd PSUM writes (NC-v2)";

    // An instruction of VectorE (`dve`) or GpSimd ending at `end` (`psum`: it writes PSUM).
    void reserve(bool dve, const sc_core::sc_time& end, bool psum) {
        sc_core::sc_time& until = dve ? dve_until : pool_until;
        until = std::max(until, end);
        if (psum) psum_writes_done = std::max(psum_writes_done, end);
    }
    void reset() { dve_until = pool_until = psum_writes_done = sc_core::SC_ZERO_TIME; }
};

}  // namespace neuronsim::platform
