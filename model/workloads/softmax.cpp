// softmax over rows, as attention computes it and a compiler schedules it across VectorE and
// ScalarE with one table set resident (exp_and_others): y = exp(x - max) / sum(exp(x - max)).
// Per tile:
//   VectorE: -max of each row (tensor_reduce max, negate)                       -> to_act
//   ScalarE: exp(x + (-max)) in place, the -max a per-partition bias pointer, the row sum
//            accumulated (ZERO_ACCUMULATE) and read out                         -> to_dve
//   VectorE: 1/sum (reciprocal), then x * (1/sum) in place (tensor_scalar)      -> computed
// VectorE's stream runs one tile behind: the next tile's max is issued before this tile's
// 1/sum, so VectorE finds a max while ScalarE computes an exp (with --buffers 1 it cannot: the
// next load waits for this tile's store). The per-row values sit after the row in its slot.
#include "model/workloads/kernel_steps.h"

namespace neuronsim::model::workloads {

void emit_softmax(KernelContext& k, const Phase& p) {
    check_free_size(p, "softmax");
    const uint64_t db = fp::dtype_bytes(p.dtype), P = k.limits().partitions;
    const uint64_t nm_at = (p.cols * db + 3) & ~uint64_t{3}, sum_at = nm_at + 4, rc_at = nm_at + 8;
    const uint64_t slot_bytes = align64(nm_at + 12);
    const uint32_t slots = slots_that_fit(k, p, "softmax", 0, slot_bytes, 2, 4);
    const uint64_t tiles = (p.rows + P - 1) / P;

    // Input rows: x uniform in [-8, 8) in the dtype.
    DramTensor x = k.tensor(p.rows, p.cols * db);
    {
        Rng rng(p.seed);
        std::vector<float> xv(x.ring_rows * p.cols);
        for (float& v : xv) v = rng.uniform(-8.0f, 8.0f);
        k.input(x, p.tag + "x", encode_values(xv, p.dtype));
    }
    DramTensor y = k.tensor(p.rows, p.cols * db);
    y.ring_rows = x.ring_rows;

    TilePipeline& pipe = k.pipe();
    TraceWriter& w = k.writer();
    pipe.begin_phase(0, slots, slot_bytes);
    pipe.ensure_resident({"exp"});
    const uint32_t n = static_cast<uint32_t>(p.cols);
    const auto at = [](const Tile& t, uint64_t off) { return DveRow{t.slot + off, 1, fp::Dtype::Fp32}; };
    // VectorE's second half of a tile: 1/sum once ScalarE has read out the sums, then the scale.
    const auto finish = [&](const Tile& t, uint64_t sums_ready, bool first) {
        Fields r = dve_reciprocal_fields(t.rows, at(t, sum_at), at(t, rc_at));
        r.push_back(wait_ge(kSemToDve, sums_ready));
        w.instr("dve", "reciprocal", r, first ? "1/sum" : "");
        Fields s = dve_scalar_fields(t.rows, {t.slot, n, p.dtype}, "mult", ActOperand::at(t.slot + rc_at), {t.slot, n, p.dtype});
        s.push_back(inc(kSemComputed));
        w.instr("dve", "tensor_scalar", s, first ? "exp / sum" : "");
        pipe.store(t, {{&y, 0}});
    };
    // With one slot the next load waits for this tile's store, so VectorE cannot run ahead.
    const bool lag = slots > 1;
    Tile prev;
    uint64_t prev_sums = 0;
    for (uint64_t i = 0; i < tiles; ++i) {
        const Tile t = pipe.next_tile(i * P, tile_rows(k, p, i * P));
        const bool first = i == 0;
        pipe.load(t, {{&x, 0}});
        pipe.wait_loaded("dve", t);
        Fields m = dve_reduce_fields(t.rows, {t.slot, n, p.dtype}, "max", true, at(t, nm_at));
        m.push_back(inc(kSemToAct));
        w.instr("dve", "tensor_reduce", m, first ? "-max" : "");
        const uint64_t max_ready = pipe.signal(kSemToAct);
        ActivateSpec e{"exp", t.rows, t.slot, t.slot, n, p.dtype, p.dtype};
        e.bias = ActOperand::at(t.slot + nm_at);
        e.acc = Accumulate::ZeroAdd;
        Fields ef = activate_fields(e);
        ef.push_back(wait_ge(kSemToAct, max_ready));
        w.instr("act", "activate", ef, first ? "exp(x - max), row sums accumulated" : "");
        Fields rf = read_accumulator_fields(t.rows, t.slot + sum_at);
        rf.push_back(inc(kSemToDve));
        w.instr("act", "read_accumulator", rf);
        const uint64_t sums = pipe.signal(kSemToDve);
        if (!lag) {
            finish(t, sums, first);
            continue;
        }
        if (i) finish(prev, prev_sums, i == 1);
        prev = t, prev_sums = sums;
    }
    if (lag) finish(prev, prev_sums, tiles == 1);
    k.output(y, p.tag + "y");
}

}  // namespace neuronsim::model::workloads
