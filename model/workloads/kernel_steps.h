#pragma once
// The kernels' generators (softmax.cpp, norms.cpp, elementwise.cpp, mlp.cpp, attention.cpp,
// cptc_dequant.cpp), each
// emitting one phase of a trace through a KernelContext. Internal to model/workloads.
#include <cstdint>
#include <string>

#include "model/fp/dtype.h"
#include "model/workloads/kernel_context.h"

namespace neuronsim::model::workloads {

struct Phase {
    std::string tag;  // file names: <stem>_<tag>_x.bin
    uint64_t rows = 0, cols = 0;
    uint64_t inner = 0;  // mlp: the intermediate size; linear: the output features
    uint64_t heads = 0;  // attention: heads (rows: the sequence, cols: the hidden size)
    fp::Dtype dtype = fp::Dtype::Fp32;
    uint64_t seed = 1;
    std::string act;  // elementwise / cptc: the function
    unsigned bits = 4;  // cptc
    float eps = 1e-5f;  // norms
    uint32_t buffers = 0;  // SBUF slots (0: the kernel's choice)
};

void emit_softmax(KernelContext& k, const Phase& p);
void emit_rmsnorm(KernelContext& k, const Phase& p);
void emit_layernorm(KernelContext& k, const Phase& p);
void emit_elementwise(KernelContext& k, const Phase& p);  // mlp-act
void emit_mlp(KernelContext& k, const Phase& p);  // mlp.cpp: the matmuls on TensorE
void emit_linear(KernelContext& k, const Phase& p);  // mlp.cpp: y = W^T x alone
void emit_attention(KernelContext& k, const Phase& p);  // attention.cpp: QK^T, softmax, PV
void emit_cptc_dequant_act(KernelContext& k, const Phase& p);
// The generations that can run it, for messages ("MARIANA, MARIANA_PLUS, MAVERICK").
std::string cptc_generations();

// Checks shared by the kernels: a row must fit one ACT instruction, and `slots` slots of
// `slot_bytes` plus `private_bytes` of scratch and constants must fit SBUF. Errors name the limit.
void check_free_size(const Phase& p, const std::string& kernel);
// The most slots (up to `want`, at least `min`) that fit; an error when `min` do not. A
// phase's `buffers` replaces both.
uint32_t slots_that_fit(const KernelContext& k, const Phase& p, const std::string& kernel, uint64_t private_bytes, uint64_t slot_bytes, uint32_t min,
                        uint32_t want);
// The rows of tile `i` of a phase.
inline uint32_t tile_rows(const KernelContext& k, const Phase& p, uint64_t row0) {
    return static_cast<uint32_t>(std::min<uint64_t>(k.limits().partitions, p.rows - row0));
}
std::string describe(const Phase& p, const std::string& kernel);  // "softmax 256x64 fp32"

}  // namespace neuronsim::model::workloads
