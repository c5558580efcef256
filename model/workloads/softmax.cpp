// softmax over rows, as attention computes it on ScalarE: y = exp(x - max) / sum(exp(x - max)).
// The row max is computed on VectorE in a real kernel, which neuronsim does not model: it is
// an input here, the negated max of each row stored after the row (an fp32 at the next 4-byte
// boundary), so it arrives with the row's DMA at the cost of 4 to 7 bytes, as if VectorE had
// left it beside the tile; the exp takes it as its per-partition bias pointer. Per tile: exp in place with the row sum accumulated
// (ZERO_ACCUMULATE) and read out; per group of G tiles, one reciprocal over the G sums (one
// table switch per group instead of one per tile: exp and reciprocal are in different sets);
// then each tile scaled in place by its reciprocal (identity, scale pointer). G is the most
// tiles whose slots, twice (double buffering), fit SBUF, at most 16.
#include <algorithm>
#include <cmath>

#include "model/workloads/act_functions.h"
#include "model/workloads/kernel_steps.h"

namespace neuronsim::model::workloads {

void emit_softmax(KernelContext& k, const Phase& p) {
    check_free_size(p, "softmax");
    const uint64_t db = fp::dtype_bytes(p.dtype), P = k.limits().partitions;
    const uint64_t nm_at = (p.cols * db + 3) & ~uint64_t{3};  // the negated max after the row
    const uint64_t row_bytes = nm_at + 4, slot_bytes = align64(row_bytes);
    const uint32_t kMaxGroup = 16;
    const uint64_t private_bytes = 2 * align64(4 * kMaxGroup);  // the group's sums and reciprocals
    const uint32_t slots = slots_that_fit(k, p, "softmax", private_bytes, slot_bytes, 2, 2 * kMaxGroup);
    const uint64_t tiles = (p.rows + P - 1) / P;
    const uint32_t group = static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>(slots / 2, tiles)));
    const uint64_t sums = 0, recips = align64(4 * kMaxGroup);

    // Input rows: x uniform in [-8, 8) in the dtype, then -max(x) as fp32.
    DramTensor x = k.tensor(p.rows, row_bytes);
    {
        Rng rng(p.seed);
        std::vector<uint8_t> bytes(x.stored_bytes(), 0);
        for (uint64_t r = 0; r < x.ring_rows; ++r) {
            uint8_t* row = bytes.data() + r * row_bytes;
            float m = -INFINITY;
            for (uint64_t c = 0; c < p.cols; ++c) {
                fp::from_f32(p.dtype, rng.uniform(-8.0f, 8.0f), row + c * db);
                m = std::max(m, fp::to_f32(p.dtype, row + c * db));
            }
            fp::from_f32(fp::Dtype::Fp32, -m, row + nm_at);
        }
        k.input(x, p.tag + "x", bytes);
    }
    DramTensor y = k.tensor(p.rows, p.cols * db);
    y.ring_rows = x.ring_rows;

    TilePipeline& pipe = k.pipe();
    TraceWriter& w = k.writer();
    pipe.begin_phase(private_bytes, slots, slot_bytes);
    const uint32_t n = static_cast<uint32_t>(p.cols);
    for (uint64_t t0 = 0; t0 < tiles; t0 += group) {
        std::vector<Tile> g;
        for (uint64_t t = t0; t < std::min(tiles, t0 + group); ++t) {
            g.push_back(pipe.next_tile(t * P, tile_rows(k, p, t * P)));
            pipe.load(g.back(), {{&x, 0}});
        }
        pipe.ensure_resident({"exp"});
        for (size_t j = 0; j < g.size(); ++j) {
            const Tile& t = g[j];
            pipe.wait_loaded("act", t);
            ActivateSpec e{"exp", t.rows, t.slot, t.slot, n, p.dtype, p.dtype};
            e.bias = ActOperand::at(t.slot + nm_at);
            e.acc = Accumulate::ZeroAdd;
            w.instr("act", "activate", activate_fields(e), j == 0 ? "exp(x - max), row sums accumulated" : "");
            w.instr("act", "read_accumulator", read_accumulator_fields(t.rows, sums + 4 * j));
        }
        pipe.ensure_resident({"reciprocal", "identity"});
        ActivateSpec rc{"reciprocal", g.front().rows, sums, recips, static_cast<uint32_t>(g.size())};
        w.instr("act", "activate", activate_fields(rc), "1/sum for the group's tiles");
        for (size_t j = 0; j < g.size(); ++j) {
            const Tile& t = g[j];
            ActivateSpec s{"identity", t.rows, t.slot, t.slot, n, p.dtype, p.dtype};
            s.scale = ActOperand::at(recips + 4 * j);
            Fields f = activate_fields(s);
            f.push_back(inc(kSemComputed));
            w.instr("act", "activate", f, j == 0 ? "exp / sum" : "");
        }
        for (const Tile& t : g) pipe.store(t, {{&y, 0}});
    }
    k.output(y, p.tag + "y");
    const uint64_t groups = (tiles + group - 1) / group;
    if (groups > 1) {
        const auto set_of = [](const std::vector<std::string>& f) { return trainium_sets()[static_cast<size_t>(first_set_covering(f))].name; };
        k.note(describe(p, "softmax") + ": each of its " + std::to_string(groups) + " groups of up to " + std::to_string(group) + " tiles switches from " +
               set_of({"exp"}) + " to " + set_of({"reciprocal", "identity"}) + " for 1/sum and back, 2 table loads a group; a compiler keeps " +
               set_of({"exp"}) +
               " resident and computes 1/sum and the scale on VectorE (nisa.reciprocal, nisa.tensor_scalar), which neuronsim "
               "does not model yet");
    }
}

}  // namespace neuronsim::model::workloads
