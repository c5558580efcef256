#pragma once
// The Vector engine (VectorE, DVE; docs/vector-engine.md) on its own queue: tensor_tensor,
// tensor_scalar, tensor_reduce, tensor_copy, memset, iota, reciprocal and transpose over
// SBUF/PSUM tiles (TENSOR2D operands, num_active_channels partitions). The numbers are
// model/dve/vector_ops.h's: each operand's elements gathered, the operation, the results
// scattered (so an instruction reads all it reads before it writes). Where what an instruction
// writes cannot change what it reads (streams()), tensor_tensor, tensor_scalar, tensor_reduce,
// tensor_copy, reciprocal and bn_stats take the fast path instead: each partition's rows
// streamed from memory in chunks through model/dve/vector_arrays.h, the partitions over the host
// threads (run.host_threads); the results are the same bytes. The time is DveTiming's
// through the four-stage pipeline the datapath engines share (an instruction waits for the
// results it reads, independent ones overlap).
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "model/fp/dtype.h"
#include "platform/config.h"
#include "platform/core/datapath_engine.h"

namespace neuronsim::platform {

// One instruction's cycles (docs/timing-model.md, "VectorE"): static overhead, access
// start-up, streaming, drain. Streaming, N elements per partition: about N cycles per input
// tensor (tensor_tensor 2N; memset and iota, which read nothing, N), reciprocal
// reciprocal_cycles_per_element x N, at least min_ii; an innermost stride >= 16 bytes costs
// strided_slowdown outside the performance modes: tensor_copy / tensor_scalar with every
// operand 16-bit (fp8 too with fp8_perf_mode) run copy_speedup_contiguous x faster, or
// copy_speedup_strided x when an operand is strided; tensor_tensor so typed tensor_tensor_speedup x.
struct DveTiming {
    const VectorConfig* cfg = nullptr;
    enum class Kind { Copy, TensorScalar, TensorTensor, Reciprocal, Plain };
    bool fast_dtype(model::fp::Dtype d) const;
    uint64_t stream_cycles(Kind k, uint64_t n, bool fast, bool strided) const;
    StageCycles stages(Kind k, uint64_t n, bool fast, bool strided) const {
        return {{cfg->static_overhead_cycles, cfg->access_startup_cycles, stream_cycles(k, n, fast, strided), cfg->pipeline_latency_cycles}};
    }
};

class DveEngine : public DatapathEngine {
public:
    DveEngine(sc_core::sc_module_name name, EngineContext& ctx, InstructionSource& source);

protected:
    bool execute(const model::isa::Bundle& b, uint64_t index) override;
    bool reports_when_idle() const override { return false; }  // (a run without VectorE has no dve stats)

private:
    void tensor_tensor(const model::isa::Bundle& b);
    void tensor_scalar(const model::isa::Bundle& b);
    void one_tensor(const model::isa::Bundle& b);  // reduce, copy, memset, iota, reciprocal, transpose
    // The work budget and the instruction's detail record: n elements per partition.
    void account(const char* mnemonic, uint64_t n, uint8_t in_dtype, uint8_t out_dtype, uint32_t nch);
    // Whether the instruction may take the fast path: dst shares no byte with the operands it
    // reads (their patterns over nch partitions; scalar columns are read before anything is
    // written), or, for an element-wise instruction, is the very pattern of an operand in the
    // same partitions and visits each byte once - so streaming the rows in chunks and
    // splitting the partitions over threads gives what reading everything first gives.
    bool streams(std::initializer_list<const Pattern*> reads, const Pattern& dst, uint32_t nch, bool elementwise) const;
    // reduce, copy, reciprocal and bn_stats on the fast path when streams() allows: false when
    // the instruction is left to the reference path.
    bool streamed_fast(uint8_t code, const Pattern& src, model::fp::Dtype in, const Pattern& dst, model::fp::Dtype out, uint32_t nch, uint8_t reduce_code,
                       bool negate);

    DveTiming timing_;
};

}  // namespace neuronsim::platform
