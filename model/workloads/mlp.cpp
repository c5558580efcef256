// mlp: a transformer's MLP block over TensorE, ScalarE and VectorE, in the layout a compiler
// gives it (the hidden size on partitions, tokens on the free axis, so no transposes):
//   gated (silu, LLaMA):  a = silu(W_gate^T x) * (W_up^T x);  y = W_down^T a
//   plain (gelu, BERT):   a = gelu(W_1^T x);                   y = W_2^T a
// x and y are [hidden rows, tokens] in DRAM (x^T, as the previous block leaves it). Tokens go
// in blocks of Tb <= 512 (one PSUM bank of fp32): per block, x's hidden k-tiles stay in SBUF;
// for each 128-column block m of the intermediate size TensorE accumulates the gate (and up)
// projection over the k-tiles into a PSUM bank, ScalarE applies the activation from PSUM into
// a[m] in SBUF and VectorE multiplies by up (from PSUM); then for each 128-row block of the
// hidden size TensorE accumulates W_down^T a over the intermediate tiles into a PSUM bank and
// VectorE converts it into a staging slot that the store engine writes out (the phase's tiles).
// linear (`act` "none"): y = W^T x alone, [I rows, tokens] from x [hidden rows, tokens] (a
// projection: the down-projection loop over x's k-tiles instead of a's).
// Weights are stored pre-tiled (docs/workloads.md, "mlp"): weight W [K, M] is rows
// (m-block, partition p) of KT x 128 elements, element (k, c) at row (c/128)*128 + k%128,
// column (k/128)*128 + c%128, zero padded, so a chunk of k-tiles of a column block is one
// 2D transfer; they stream through a ring of SBUF slots on their own DMA queue (dma.2).
// Semaphores (tile_pipeline.h):
//   x loaded (45) DMA -> PE; weight chunk loaded (46) DMA -> PE; chunk read (47) PE -> DMA;
//   gate/up in PSUM (48) PE -> ACT, VectorE; activation written (49) ACT -> VectorE;
//   a[m] complete and its banks free (50) -> PE; down projection in PSUM (51) PE -> VectorE;
//   the staging copy counts `computed` (40), the stores `stored` (20).
#include <cmath>
#include <deque>

#include "model/common/error.h"
#include "model/workloads/kernel_steps.h"

namespace neuronsim::model::workloads {

namespace {

constexpr uint32_t kSemX = 45, kSemW = 46, kSemWRead = 47, kSemGU = 48, kSemAct = 49, kSemA = 50, kSemDown = 51;
constexpr uint64_t kChunkBytes = 8192;  // per partition: a 1 MiB transfer of 128 partitions
constexpr uint32_t kWeightSlots = 4;
const char* const kXQueue = "dma.0";
const char* const kWeightQueue = "dma.2";

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// A weight [k, m] in the pre-tiled layout, its values drawn in stored order.
DramTensor weight(KernelContext& k, const Phase& p, const std::string& name, uint64_t kdim, uint64_t mdim, Rng& rng) {
    const uint64_t P = k.limits().partitions, db = fp::dtype_bytes(p.dtype);
    const uint64_t kt = ceil_div(kdim, P), mb = ceil_div(mdim, P);
    DramTensor t = k.tensor(mb * P, kt * P * db);
    const float a = 2.0f / std::sqrt(static_cast<float>(kdim));
    std::vector<float> v(t.ring_rows * kt * P, 0.0f);
    for (uint64_t r = 0; r < t.ring_rows; ++r)
        for (uint64_t j = 0; j < kt; ++j)
            for (uint64_t c = 0; c < P; ++c) {
                const uint64_t kk = j * P + r % P, col = (r / P % mb) * P + c;
                if (kk < kdim && col < mdim) v[(r * kt + j) * P + c] = rng.uniform(-a, a);
            }
    k.input(t, p.tag + name, encode_values(v, p.dtype));
    return t;
}

struct Mlp {
    KernelContext& k;
    const Phase& p;
    uint64_t P, db, T, H, I, kt, it, Tb;
    uint64_t x_at = 0, a_at = 0, w_at = 0, chunk_tiles = 0, xs = 0;
    std::deque<uint64_t> read_counts;  // chunk-read counts of the chunks in the ring
    uint64_t chunks = 0;
    std::vector<uint32_t> gu_banks, down_banks;
    uint64_t bank_bytes;

    Mlp(KernelContext& kc, const Phase& ph) : k(kc), p(ph) {}

    // Streams weight `w`'s column block `blk` k-tile by k-tile through TensorE: `each(j)` is
    // called after the stationary of k-tile j is loaded.
    template <class Each>
    void stream(const DramTensor& w, uint64_t kdim, uint64_t mdim, uint64_t blk, Each each) {
        TraceWriter& wr = k.writer();
        const uint64_t ktiles = ceil_div(kdim, P), m = std::min<uint64_t>(P, mdim - blk * P);
        for (uint64_t j0 = 0; j0 < ktiles; j0 += chunk_tiles) {
            const uint64_t n = std::min<uint64_t>(chunk_tiles, ktiles - j0), slot = w_at + (chunks % kWeightSlots) * chunk_tiles * P * db;
            const std::string wait = chunks >= kWeightSlots ? wait_ge(kSemWRead, read_counts.front()) : "";
            if (chunks >= kWeightSlots) read_counts.pop_front();
            k.pipe().copy(kWeightQueue, dram(w.row_addr(blk * P) + j0 * P * db), sbuf(0, slot), static_cast<uint32_t>(P), n * P * db, w.row_bytes, 0, wait,
                          inc(kSemW));
            const uint64_t loaded = k.pipe().signal(kSemW);
            ++chunks;
            for (uint64_t j = j0; j < j0 + n; ++j) {
                const uint32_t kj = static_cast<uint32_t>(std::min<uint64_t>(P, kdim - j * P));
                Fields f = pe_load_stationary_fields(kj, p.dtype, slot + (j - j0) * P * db, static_cast<uint32_t>(m));
                if (j == j0) f.push_back(wait_ge(kSemW, loaded));
                if (j + 1 == j0 + n) f.push_back(inc(kSemWRead));
                wr.instr("pe", "load_stationary", f);
                if (j + 1 == j0 + n) read_counts.push_back(k.pipe().signal(kSemWRead));
                each(j, kj);
            }
        }
    }
};

}  // namespace

void emit_mlp(KernelContext& k, const Phase& p) {
    const bool gated = p.act == "silu", linear = p.act == "none";
    const std::string name = linear ? "linear" : "mlp";
    Mlp s(k, p);
    s.P = k.limits().partitions, s.db = fp::dtype_bytes(p.dtype);
    s.T = p.rows, s.H = p.cols, s.I = p.inner;
    if (s.T == 0 || s.H == 0 || s.I == 0) throw Error(describe(p, name) + ": the token, input and output sizes must be positive");
    const uint64_t P = s.P, db = s.db;
    s.kt = ceil_div(s.H, P), s.it = linear ? 0 : ceil_div(s.I, P);
    s.bank_bytes = k.limits().psum_bank_bytes;
    const uint32_t banks = k.limits().psum_banks, gu = linear ? 0 : gated ? 4 : 2;
    if (banks < gu + 1)
        throw Error(describe(p, name) + ": needs " + std::to_string(gu + 1) + " PSUM banks, " + k.limits().name + " has " + std::to_string(banks));
    for (uint32_t b = 0; b < gu; ++b) s.gu_banks.push_back(b);
    for (uint32_t b = gu; b < banks; ++b) s.down_banks.push_back(b);
    s.chunk_tiles = std::max<uint64_t>(1, kChunkBytes / (P * db));
    // The largest token block that fits SBUF: x's k-tiles, a's tiles, the weight ring, two staging slots.
    const uint64_t ring = kWeightSlots * s.chunk_tiles * P * db;
    uint64_t tb = std::min<uint64_t>({s.T, s.bank_bytes / 4, 512});
    auto need = [&](uint64_t t) { return (s.kt + s.it) * align64(t * db) + ring + 2 * align64(t * db); };
    while (tb > 1 && need(tb) > k.limits().sbuf_bytes) tb = tb > 128 ? tb - 128 : tb / 2;
    if (need(tb) > k.limits().sbuf_bytes)
        throw Error(describe(p, name) + ": x's " + std::to_string(s.kt) + (linear ? "" : " and a's " + std::to_string(s.it)) + " tiles do not fit " +
                    k.limits().name + "'s SBUF of " + std::to_string(k.limits().sbuf_bytes) +
                    " bytes per partition (memory.sbuf_bytes_per_partition) even for one token");
    s.Tb = tb;
    s.xs = align64(tb * db);
    s.x_at = 0, s.a_at = s.kt * s.xs, s.w_at = s.a_at + s.it * s.xs;
    const uint64_t staging = s.w_at + ring;

    Rng rng(p.seed);
    DramTensor x = k.tensor(s.H, s.T * db);
    {
        std::vector<float> xv(x.ring_rows * s.T);
        for (float& v : xv) v = rng.uniform(-1.0f, 1.0f);
        k.input(x, p.tag + "x", encode_values(xv, p.dtype));
    }
    // The projection the last loop computes: y [out rows] = wd^T src, contracting over `in` rows.
    const uint64_t in = linear ? s.H : s.I, out = linear ? s.I : s.H, in_tiles = ceil_div(in, P), src_at = linear ? s.x_at : s.a_at;
    DramTensor wg, wu;
    if (!linear) wg = weight(k, p, gated ? "w_gate" : "w_1", s.H, s.I, rng);
    if (gated) wu = weight(k, p, "w_up", s.H, s.I, rng);
    const DramTensor wd = weight(k, p, linear ? "w" : gated ? "w_down" : "w_2", in, out, rng);
    DramTensor y = k.tensor(out, s.T * db);
    if (!linear) y.ring_rows = x.ring_rows;

    TilePipeline& pipe = k.pipe();
    TraceWriter& w = k.writer();
    pipe.begin_phase(staging, 2, s.xs);
    if (!linear) pipe.ensure_resident({p.act});
    std::string first_wait = pipe.wait_earlier_phases(kXQueue);
    const std::string weight_wait = pipe.wait_earlier_phases(kWeightQueue);
    if (!weight_wait.empty()) w.instr(kWeightQueue, "sync", {weight_wait});
    std::string x_free;  // the wait after which x's slots may be overwritten (its last reader done)
    std::deque<uint64_t> a_done;  // per m-block (in order): a[m] complete, its banks free
    std::deque<uint64_t> down_tiles;  // the output tiles whose banks are in use
    uint64_t mblocks = 0;
    for (uint64_t b0 = 0; b0 < s.T; b0 += s.Tb) {
        const uint32_t tb_b = static_cast<uint32_t>(std::min<uint64_t>(s.Tb, s.T - b0));
        for (uint64_t j = 0; j < s.kt; ++j) {
            const uint32_t kj = static_cast<uint32_t>(std::min<uint64_t>(P, s.H - j * P));
            std::string wait = j == 0 ? (x_free.empty() ? first_wait : x_free) : "";
            pipe.copy(kXQueue, dram(x.row_addr(j * P) + b0 * db), sbuf(0, s.x_at + j * s.xs), kj, tb_b * db, x.row_bytes, 0, wait,
                      j + 1 == s.kt ? inc(kSemX) : "");
        }
        first_wait.clear();
        const uint64_t x_ready = pipe.signal(kSemX);
        w.instr("pe", "sync", {wait_ge(kSemX, x_ready)});
        for (uint64_t m = 0; m < s.it; ++m, ++mblocks) {
            const uint32_t mm = static_cast<uint32_t>(std::min<uint64_t>(P, s.I - m * P));
            const uint32_t pair = static_cast<uint32_t>(mblocks % 2), per = gated ? 2 : 1;
            const uint64_t gbank = s.gu_banks[pair * per] * s.bank_bytes, ubank = gated ? s.gu_banks[pair * per + 1] * s.bank_bytes : 0;
            if (a_done.size() >= 2) {  // the banks' previous m-block must be consumed
                w.instr("pe", "sync", {wait_ge(kSemA, a_done.front())});
                a_done.pop_front();
            }
            const auto project = [&](const DramTensor& wt, uint64_t bank, bool signal_done) {
                s.stream(wt, s.H, s.I, m, [&](uint64_t j, uint32_t kj) {
                    Fields f = pe_matmul_fields(kj, p.dtype, j == 0, s.x_at + j * s.xs, tb_b, bank);
                    if (signal_done && j + 1 == s.kt) f.push_back(inc(kSemGU));
                    w.instr("pe", "matmul", f, m == 0 && j == 0 && b0 == 0 ? (bank == gbank ? "gate" : "up") : "");
                });
            };
            project(wg, gbank, !gated);
            if (gated) project(wu, ubank, true);
            const uint64_t gu_ready = pipe.signal(kSemGU);
            x_free = wait_ge(kSemGU, gu_ready);
            ActivateSpec a{p.act, mm, gbank, s.a_at + m * s.xs, tb_b, fp::Dtype::Fp32, p.dtype};
            a.src_psum = true;
            Fields af = activate_fields(a);
            af.push_back(wait_ge(kSemGU, gu_ready));
            af.push_back(inc(gated ? kSemAct : kSemA));
            w.instr("act", "activate", af, m == 0 && b0 == 0 ? p.act + " from PSUM" : "");
            if (gated) {
                const uint64_t act_ready = pipe.signal(kSemAct);
                const DveRow ar{s.a_at + m * s.xs, tb_b, p.dtype};
                Fields f = dve_tensor_tensor_fields(mm, ar, "mult", {ubank, tb_b, fp::Dtype::Fp32, true}, ar);
                f.push_back(wait_ge(kSemAct, act_ready));
                f.push_back(inc(kSemA));
                w.instr("dve", "tensor_tensor", f, m == 0 && b0 == 0 ? "* up" : "");
            }
            a_done.push_back(pipe.signal(kSemA));
        }
        // The down projection reads every a[m] of the block: the last one's count covers them all.
        if (!linear) w.instr("pe", "sync", {wait_ge(kSemA, a_done.back())});
        for (uint64_t hb = 0; hb * P < out; ++hb) {
            const uint32_t mh = static_cast<uint32_t>(std::min<uint64_t>(P, out - hb * P));
            const Tile t = pipe.next_tile(hb * P, mh);
            const uint64_t bank = s.down_banks[t.index % s.down_banks.size()] * s.bank_bytes;
            if (down_tiles.size() >= s.down_banks.size()) {  // the bank's previous tile must be converted
                w.instr("pe", "sync", {wait_ge(kSemComputed, down_tiles.front() + 1)});
                down_tiles.pop_front();
            }
            s.stream(wd, in, out, hb, [&](uint64_t i, uint32_t ki) {
                Fields f = pe_matmul_fields(ki, p.dtype, i == 0, src_at + i * s.xs, tb_b, bank);
                if (i + 1 == in_tiles) f.push_back(inc(kSemDown));
                w.instr("pe", "matmul", f, hb == 0 && i == 0 && b0 == 0 ? (linear ? "W^T x" : "down") : "");
            });
            const uint64_t down_ready = pipe.signal(kSemDown);
            down_tiles.push_back(t.index);
            pipe.wait_slot_free("dve", t);
            Fields c = dve_copy_fields(mh, {bank, tb_b, fp::Dtype::Fp32, true}, {t.slot, tb_b, p.dtype});
            c.push_back(wait_ge(kSemDown, down_ready));
            c.push_back(inc(kSemComputed));
            w.instr("dve", "tensor_copy", c, hb == 0 && b0 == 0 ? "PSUM to SBUF" : "");
            pipe.store(t, {{&y, 0, b0 * db, tb_b * db}});
        }
        if (linear) x_free = wait_ge(kSemDown, pipe.signalled(kSemDown));  // the projection read x
    }
    if (!k.pipe().spread()) k.note(name + " moves x and the weights on spread queues dma.0 and dma.2 (--dma-lanes applies to its stores only)");
    k.output(y, p.tag + "y");
}

void emit_linear(KernelContext& k, const Phase& p) {
    Phase q = p;
    q.act = "none";
    emit_mlp(k, q);
}

}  // namespace neuronsim::model::workloads
