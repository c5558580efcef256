// mlp-act: one activation over the MLP's intermediate tensor [tokens, intermediate] (GELU in
// BERT, SiLU in LLaMA), tokens on partitions, applied in place. The LLaMA gate multiply
// (silu(gate) * up, on VectorE) is not modelled.
#include "model/workloads/kernel_steps.h"

namespace neuronsim::model::workloads {

void emit_elementwise(KernelContext& k, const Phase& p) {
    check_free_size(p, "mlp-act");
    const uint64_t db = fp::dtype_bytes(p.dtype), P = k.limits().partitions;
    const uint64_t row = align64(p.cols * db);
    const uint32_t slots = slots_that_fit(k, p, "mlp-act", 0, row, 2, 4);
    DramTensor x = k.tensor(p.rows, p.cols * db);
    {
        Rng rng(p.seed);
        std::vector<float> xv(x.ring_rows * p.cols);
        for (float& v : xv) v = rng.uniform(-6.0f, 6.0f);
        k.input(x, p.tag + "x", encode_values(xv, p.dtype));
    }
    DramTensor y = k.tensor(p.rows, p.cols * db);
    y.ring_rows = x.ring_rows;
    TilePipeline& pipe = k.pipe();
    pipe.begin_phase(0, slots, row);
    pipe.ensure_resident({p.act});
    for (uint64_t row0 = 0; row0 < p.rows; row0 += P) {
        const Tile t = pipe.next_tile(row0, tile_rows(k, p, row0));
        pipe.load(t, {{&x, 0}});
        pipe.wait_loaded("act", t);
        ActivateSpec a{p.act, t.rows, t.slot, t.slot, static_cast<uint32_t>(p.cols), p.dtype, p.dtype};
        Fields f = activate_fields(a);
        f.push_back(inc(kSemComputed));
        k.writer().instr("act", "activate", f, row0 == 0 ? p.act : "");
        pipe.store(t, {{&y, 0}});
    }
    k.output(y, p.tag + "y");
}

}  // namespace neuronsim::model::workloads
