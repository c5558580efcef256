#pragma once
// `neuronsim kernel`: complete, runnable traces of tiled kernels at real sizes, scheduled as a
// compiler would (tile_pipeline.h), with their inputs generated from a seed and written beside
// the trace, and .dump lines for their outputs. docs/workloads.md describes every kernel, what
// it leaves out and how it is checked.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/fp/dtype.h"
#include "model/workloads/gen_limits.h"
#include "model/workloads/kernel_context.h"

namespace neuronsim::model::workloads {

struct KernelRequest {
    std::string kernel;  // softmax, rmsnorm, layernorm, mlp-act, mlp, linear, attention, cptc-dequant-act; "" with a model
    uint64_t rows = 0, cols = 0;  // --shape ROWSxCOLS; 0: the kernel's default
    fp::Dtype dtype = fp::Dtype::Fp32;
    std::string act;  // mlp-act: gelu (default) or silu; cptc-dequant-act: gelu (default), silu, identity
    uint64_t intermediate = 0;  // mlp: the intermediate size (0: 3072)
    uint64_t heads = 0;  // attention: the heads (0: hidden / 64)
    uint64_t features = 0;  // linear: the output features (0: as many as the input's)
    unsigned bits = 4;  // cptc-dequant-act: CPTC-K
    float eps = 1e-5f;  // rmsnorm, layernorm
    uint64_t seed = 1;
    uint32_t lanes = 0;  // DMA lanes (0: the generation's most)
    uint32_t buffers = 0;  // SBUF slots per phase (0: as many as fit, up to the kernel's want; 1: no double buffering)
    uint64_t max_data_bytes = uint64_t{64} << 20;  // per input tensor and the outputs that share its ring; larger ones repeat a ring of tiles
    std::string model;  // bert-base, llama2-7b
    uint32_t layer = 0;
    uint64_t seq = 0;
};

struct KernelSummary {
    std::string trace;
    uint64_t trace_bytes = 0;
    std::vector<WrittenFile> files;  // the .data inputs
    std::vector<std::string> dumps;  // output files the run will write
    std::vector<std::string> phases;  // "softmax 65536x2048 fp32", ...
    uint64_t elements = 0;  // elements of the kernels' tensors (rows x cols, summed)
    uint64_t tiles = 0, table_loads = 0;
    std::map<std::string, uint64_t> instructions;  // per engine
    bool ringed = false;  // inputs repeat (model sizes)
    std::vector<std::string> run_flags;  // what `neuronsim run` needs (e.g. -p gpsimd.cptc_flag=true)
    std::vector<std::string> notes;  // what a compiler would do otherwise (KernelContext::note)
};

// Writes `trace_path` and its .data files. Bad requests (an unknown kernel, a shape over a
// limit, a kernel the generation cannot run) are errors naming the parameter and the limit.
KernelSummary write_kernel(const KernelRequest& r, const GenLimits& g, const std::string& trace_path);

// The kernels and presets with their parameters and defaults (`neuronsim kernel --list`).
std::string kernel_list();

std::vector<std::string> kernel_names();  // softmax, rmsnorm, ...
std::vector<std::string> model_names();  // bert-base, llama2-7b
// "2048x11008" into r.rows, r.cols; an Error ("--shape T: expected ROWSxCOLS ...") otherwise.
void parse_kernel_shape(const std::string& text, KernelRequest& r);
fp::Dtype parse_kernel_dtype(const std::string& name);  // fp32, bf16, fp16
std::string kernel_dtype_name(fp::Dtype d);

}  // namespace neuronsim::model::workloads
