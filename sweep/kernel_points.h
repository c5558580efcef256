#pragma once
// Points whose trace is a kernel generated for them (the spec's `kernels:`, docs/what-if.md):
// the request as canonical JSON (part of the point's identity and inputs), and the traces
// built from it, once per request and generation limits, before the point runs.
#include <map>
#include <string>

#include "model/workloads/kernels.h"
#include "sweep/point.h"

namespace neuronsim::sweep {

// The request of a `kernels:` entry's canonical JSON ({"name": "softmax", "shape": "4096x2048", ...}).
model::workloads::KernelRequest kernel_request(const std::string& request_json);

class KernelTraces {
public:
    explicit KernelTraces(std::string dir) : dir_(std::move(dir)) {}
    // The trace of kernel point `p`, built for its generation with its overlays and parameters
    // (what decides the tiling: partitions, SBUF, DMA engines...); an Error says why it cannot be.
    std::string trace_for(const Point& p);

private:
    std::string dir_;
    std::map<std::string, std::string> built_, failed_;  // cache key -> trace path / error
};

}  // namespace neuronsim::sweep
