// rmsnorm and layernorm over rows (tokens on partitions, the hidden size on the free axis),
// the statistics on ScalarE and the learned weight and bias on VectorE. Every function ScalarE
// needs (square, identity, reciprocal_sqrt) is in reciprocal_sqrt_and_small, so one table load
// serves the whole phase. gamma (and beta) are rows of the hidden size, loaded once per phase
// into every partition (a broadcast DMA).
//   rmsnorm:   s = sum x^2 (square, accumulated); r = rsqrt(s/D + eps); y = r * x   (ScalarE)
//              y = y * gamma                                                    (VectorE)
//   layernorm: s1 = sum x; nm = -s1/D; s2 = sum (x + nm)^2; r = rsqrt(s2/D + eps);
//              nb = r * nm; y = r * x + nb                                      (ScalarE)
//              y = y * gamma; y = y + beta                                      (VectorE)
// Each sum is the accumulator of an Activate whose element outputs go to an ACT scratch row.
#include <cmath>

#include "model/workloads/kernel_steps.h"

namespace neuronsim::model::workloads {

namespace {

struct NormPlan {
    DramTensor x, y;
    // Private to the phase: a row of ACT outputs nobody reads, the per-row values, gamma and beta.
    uint64_t scratch = 0, scalars = 0, gamma = 0, beta = 0;
    uint64_t constants_ready = 0;  // the constants count VectorE waits for
    uint32_t n = 0;
};

// `affine` rows (gamma; gamma and beta) follow x in the seed's stream: gamma in [0.5, 1.5),
// beta in [-0.5, 0.5).
NormPlan plan_norm(KernelContext& k, const Phase& p, const std::string& kernel, float lo, float hi, unsigned affine) {
    check_free_size(p, kernel);
    const uint64_t db = fp::dtype_bytes(p.dtype);
    NormPlan plan;
    plan.n = static_cast<uint32_t>(p.cols);
    const uint64_t row = align64(p.cols * db);
    plan.scratch = 0;
    plan.scalars = row;
    plan.gamma = row + 64;
    plan.beta = plan.gamma + row;
    const uint64_t private_bytes = row + 64 + affine * row;
    const uint32_t slots = slots_that_fit(k, p, kernel, private_bytes, row, 2, 4);
    plan.x = k.tensor(p.rows, p.cols * db);
    Rng rng(p.seed);
    std::vector<float> xv(plan.x.ring_rows * p.cols);
    for (float& v : xv) v = rng.uniform(lo, hi);
    k.input(plan.x, p.tag + "x", encode_values(xv, p.dtype));
    std::vector<DramTensor> rows;
    for (unsigned a = 0; a < affine; ++a) {
        rows.push_back(k.tensor(1, p.cols * db));
        std::vector<float> v(p.cols);
        for (float& e : v) e = a == 0 ? rng.uniform(0.5f, 1.5f) : rng.uniform(-0.5f, 0.5f);
        k.input(rows.back(), p.tag + (a == 0 ? "gamma" : "beta"), encode_values(v, p.dtype));
    }
    plan.y = k.tensor(p.rows, p.cols * db);
    plan.y.ring_rows = plan.x.ring_rows;
    k.pipe().begin_phase(private_bytes, slots, row);
    for (unsigned a = 0; a < affine; ++a) plan.constants_ready = k.pipe().load_constant(rows[a], a == 0 ? plan.gamma : plan.beta);
    k.writer().instr("dve", "sync", {wait_ge(kSemConstants, plan.constants_ready)});
    k.pipe().ensure_resident({"square", "identity", "reciprocal_sqrt"});
    return plan;
}

// ScalarE's last instruction on a tile hands it to VectorE (to_dve), which applies gamma (and
// beta) in place and finishes the tile.
void apply_affine(KernelContext& k, const Phase& p, const NormPlan& plan, const Tile& t, Fields act_last, const std::string& act_note, bool beta, bool first) {
    TraceWriter& w = k.writer();
    act_last.push_back(inc(kSemToDve));
    w.instr("act", "activate", act_last, first ? act_note : "");
    const uint64_t ready = k.pipe().signal(kSemToDve);
    const DveRow y{t.slot, plan.n, p.dtype};
    Fields g = dve_tensor_tensor_fields(t.rows, y, "mult", {plan.gamma, plan.n, p.dtype}, y);
    g.push_back(wait_ge(kSemToDve, ready));
    if (!beta) g.push_back(inc(kSemComputed));
    w.instr("dve", "tensor_tensor", g, first ? "* gamma" : "");
    if (!beta) return;
    Fields b = dve_tensor_tensor_fields(t.rows, y, "add", {plan.beta, plan.n, p.dtype}, y);
    b.push_back(inc(kSemComputed));
    w.instr("dve", "tensor_tensor", b, first ? "+ beta" : "");
}

}  // namespace

void emit_rmsnorm(KernelContext& k, const Phase& p) {
    const NormPlan plan = plan_norm(k, p, "rmsnorm", -3.0f, 3.0f, 1);
    TilePipeline& pipe = k.pipe();
    TraceWriter& w = k.writer();
    const uint64_t P = k.limits().partitions, s = plan.scalars, r = plan.scalars + 4;
    for (uint64_t row0 = 0; row0 < p.rows; row0 += P) {
        const Tile t = pipe.next_tile(row0, tile_rows(k, p, row0));
        pipe.load(t, {{&plan.x, 0}});
        pipe.wait_loaded("act", t);
        ActivateSpec sq{"square", t.rows, t.slot, plan.scratch, plan.n, p.dtype, p.dtype};
        sq.acc = Accumulate::ZeroAdd;
        w.instr("act", "activate", activate_fields(sq), row0 == 0 ? "sum x^2" : "");
        w.instr("act", "read_accumulator", read_accumulator_fields(t.rows, s));
        ActivateSpec rs{"reciprocal_sqrt", t.rows, s, r, 1};
        rs.scale = ActOperand::imm(1.0f / static_cast<float>(p.cols));
        rs.bias = ActOperand::imm(p.eps);
        w.instr("act", "activate", activate_fields(rs), row0 == 0 ? "rsqrt(sum/D + eps)" : "");
        ActivateSpec y{"identity", t.rows, t.slot, t.slot, plan.n, p.dtype, p.dtype};
        y.scale = ActOperand::at(r);
        apply_affine(k, p, plan, t, activate_fields(y), "x * rsqrt, to VectorE", false, row0 == 0);
        pipe.store(t, {{&plan.y, 0}});
    }
    k.output(plan.y, p.tag + "y");
}

void emit_layernorm(KernelContext& k, const Phase& p) {
    const NormPlan plan = plan_norm(k, p, "layernorm", -1.0f, 3.0f, 2);
    TilePipeline& pipe = k.pipe();
    TraceWriter& w = k.writer();
    const uint64_t P = k.limits().partitions;
    const uint64_t s1 = plan.scalars, nm = s1 + 4, s2 = s1 + 8, r = s1 + 12, nb = s1 + 16;
    const float inv_d = 1.0f / static_cast<float>(p.cols);
    for (uint64_t row0 = 0; row0 < p.rows; row0 += P) {
        const Tile t = pipe.next_tile(row0, tile_rows(k, p, row0));
        const bool first = row0 == 0;
        pipe.load(t, {{&plan.x, 0}});
        pipe.wait_loaded("act", t);
        ActivateSpec sum{"identity", t.rows, t.slot, plan.scratch, plan.n, p.dtype, p.dtype};
        sum.acc = Accumulate::ZeroAdd;
        w.instr("act", "activate", activate_fields(sum), first ? "sum x" : "");
        w.instr("act", "read_accumulator", read_accumulator_fields(t.rows, s1));
        ActivateSpec mean{"identity", t.rows, s1, nm, 1};
        mean.scale = ActOperand::imm(-inv_d);
        w.instr("act", "activate", activate_fields(mean), first ? "-mean" : "");
        ActivateSpec var{"square", t.rows, t.slot, plan.scratch, plan.n, p.dtype, p.dtype};
        var.bias = ActOperand::at(nm);
        var.acc = Accumulate::ZeroAdd;
        w.instr("act", "activate", activate_fields(var), first ? "sum (x - mean)^2" : "");
        w.instr("act", "read_accumulator", read_accumulator_fields(t.rows, s2));
        ActivateSpec rs{"reciprocal_sqrt", t.rows, s2, r, 1};
        rs.scale = ActOperand::imm(inv_d);
        rs.bias = ActOperand::imm(p.eps);
        w.instr("act", "activate", activate_fields(rs), first ? "rsqrt(var + eps)" : "");
        ActivateSpec b{"identity", t.rows, nm, nb, 1};
        b.scale = ActOperand::at(r);
        w.instr("act", "activate", activate_fields(b), first ? "-mean * rsqrt" : "");
        ActivateSpec y{"identity", t.rows, t.slot, t.slot, plan.n, p.dtype, p.dtype};
        y.scale = ActOperand::at(r);
        y.bias = ActOperand::at(nb);
        apply_affine(k, p, plan, t, activate_fields(y), "(x - mean) * rsqrt, to VectorE", true, first);
        pipe.store(t, {{&plan.y, 0}});
    }
    k.output(plan.y, p.tag + "y");
}

}  // namespace neuronsim::model::workloads
