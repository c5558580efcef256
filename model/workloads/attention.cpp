// attention: scaled dot-product attention of every head over TensorE, VectorE and ScalarE,
// in the layout the projections leave (hidden on partitions, tokens on the free axis):
//   O_h^T = V_h^T softmax(Q_h K_h^T / sqrt(d))^T      for each head h (d = hidden / heads)
// q, k, v and o are [hidden rows, S tokens] in DRAM; head h is rows h*d .. h*d+d-1. No mask
// (BERT's encoder; a causal decoder would skip or mask the upper blocks).
// Per head, q/k/v's rows are loaded into one of two head slots (dma.0), and V_h^T is turned
// into V_h (keys on partitions) by transposes on TensorE through an identity (copied out of
// PSUM by VectorE). Per unit of 128 queries (a q-tile):
//   TensorE: scores = Q^T block x K^T into ceil(S/512) PSUM banks                -> 53
//   VectorE: -max of each score row from PSUM, times 1/sqrt(d)                   -> 54
//   ScalarE: P = exp(s/sqrt(d) - max/sqrt(d)) from PSUM into SBUF, row sums
//            accumulated and read out                                            -> 55
//   VectorE: 1/sum, then P *= 1/sum in place                                     -> 56
//   TensorE: P^T by 128-key blocks, each block times the identity into PSUM      -> 57
//   VectorE: P^T out of PSUM into SBUF (four blocks a copy)                      -> 58
//   TensorE: O^T = sum over key blocks of V[kb]^T P^T[kb] into a PSUM bank       -> 59
//   VectorE: O^T into a staging slot (`computed`, 40), stored into o's rows (dma.1)
// TensorE works one unit ahead (the next scores before this unit's transposes), so it is
// busy while ScalarE and VectorE finish a softmax. PSUM: banks 0-3 scores (two buffers when
// S <= 1024), 4-5 transposes, 6-7 O^T. SBUF (per partition): two head slots (q, k, v^T and
// v), the identity, two P and two P^T buffers, two staging slots.
// Semaphores (tile_pipeline.h): head loaded 52, identity loaded 60, and 53-59 above.
#include <cmath>

#include "model/common/error.h"
#include "model/workloads/kernel_steps.h"

namespace neuronsim::model::workloads {

namespace {

constexpr uint32_t kSemHead = 52, kSemScores = 53, kSemBias = 54, kSemExp = 55, kSemP = 56, kSemT = 57, kSemTCopied = 58, kSemPV = 59, kSemIdent = 60;
const char* const kLoadQueue = "dma.0";
constexpr uint32_t kScoreBanks = 4;  // banks 0-3; 4-5 transposes, 6-7 O^T

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

struct Attention {
    KernelContext& k;
    const Phase& p;
    TraceWriter& w;
    TilePipeline& pipe;
    uint64_t P = 0, db = 0, S = 0, H = 0, d = 0, heads = 0, nq = 0, nkb = 0;
    uint64_t bank = 0, chunk = 0, nsb = 0, score_bufs = 1;
    uint64_t head_bytes = 0, q_off = 0, k_off = 0, vt_off = 0, v_off = 0, ident_at = 0;
    uint64_t p_at = 0, p_bytes = 0, pt_at = 0, pt_bytes = 0, scratch = 0;
    float scale = 1.0f;
    uint64_t groups = 0;  // transpose groups so far (they alternate between banks 4 and 5)
    std::vector<uint64_t> copied;  // kSemTCopied's count after each group's copy

    Attention(KernelContext& kc, const Phase& ph) : k(kc), p(ph), w(kc.writer()), pipe(kc.pipe()) {}

    uint64_t head_slot(uint64_t h) const { return (h % 2) * head_bytes; }
    uint64_t p_buf(uint64_t u) const { return p_at + (u % 2) * p_bytes; }
    uint64_t pt_buf(uint64_t u) const { return pt_at + (u % 2) * pt_bytes; }
    uint64_t score_bank(uint64_t u) const { return (u % score_bufs) * nsb * bank; }
    uint32_t q_rows(uint64_t qt) const { return static_cast<uint32_t>(std::min<uint64_t>(P, S - qt * P)); }

    // Transposes `cols` elements of `kp` partitions at SBUF `src` on TensorE, 128 columns a
    // block: block b lands at SBUF `dst` + b*kp elements on partitions 0..(its columns - 1).
    // Four blocks share a PSUM bank and one VectorE copy (a partial last block its own). The
    // first stationary load waits for `wait` ("" for none). Returns the first group's number.
    uint64_t transpose(uint64_t src, uint32_t kp, uint64_t cols, uint64_t dst, const std::string& wait, bool first_note) {
        const uint64_t nb = ceil_div(cols, P), per = std::min<uint64_t>(4, bank / (uint64_t{kp} * 4));
        const uint64_t first_group = groups;
        for (uint64_t b0 = 0; b0 < nb; b0 += per, ++groups) {
            const uint64_t n = std::min(per, nb - b0), tb = (4 + groups % 2) * bank;
            if (groups >= 2) w.instr("pe", "sync", {wait_ge(kSemTCopied, copied[groups - 2])});
            for (uint64_t b = b0; b < b0 + n; ++b) {
                const uint32_t m = static_cast<uint32_t>(std::min<uint64_t>(P, cols - b * P));
                Fields ls = pe_load_stationary_fields(kp, p.dtype, src + b * P * db, m);
                if (b == 0 && !wait.empty()) ls.push_back(wait);
                w.instr("pe", "load_stationary", ls);
                Fields mm = pe_matmul_fields(kp, p.dtype, true, ident_at, kp, tb + (b - b0) * kp * 4);
                if (b + 1 == b0 + n) mm.push_back(inc(kSemT));
                w.instr("pe", "matmul", mm, first_note && b == 0 ? "transpose: x identity" : "");
            }
            const uint64_t ready = pipe.signal(kSemT);
            // Full blocks in one copy; a partial last block (fewer partitions) in its own.
            const uint64_t last_m = std::min<uint64_t>(P, cols - (b0 + n - 1) * P), full = last_m == P ? n : n - 1;
            const auto copy = [&](uint32_t parts, uint64_t first, uint64_t count, bool last) {
                Fields c = dve_copy_fields(parts, {tb + first * kp * 4, static_cast<uint32_t>(count * kp), fp::Dtype::Fp32, true},
                                           {dst + (b0 + first) * kp * db, static_cast<uint32_t>(count * kp), p.dtype});
                if (first == 0) c.push_back(wait_ge(kSemT, ready));
                if (last) c.push_back(inc(kSemTCopied));
                w.instr("dve", "tensor_copy", c);
            };
            if (full) copy(static_cast<uint32_t>(P), 0, full, full == n);
            if (full < n) copy(static_cast<uint32_t>(last_m), full, 1, true);
            copied.push_back(pipe.signal(kSemTCopied));
        }
        return first_group;
    }
};

}  // namespace

void emit_attention(KernelContext& k, const Phase& p) {
    Attention a(k, p);
    a.P = k.limits().partitions, a.db = fp::dtype_bytes(p.dtype);
    a.S = p.rows, a.H = p.cols, a.heads = p.heads;
    const std::string what = describe(p, "attention");
    if (a.S == 0 || a.H == 0) throw Error(what + ": the sequence and hidden sizes must be positive");
    if (a.heads == 0 || a.H % a.heads) throw Error(what + ": --heads " + std::to_string(a.heads) + " must divide the hidden size " + std::to_string(a.H));
    a.d = a.H / a.heads;
    const uint64_t P = a.P, db = a.db, S = a.S, d = a.d;
    if (d > P) throw Error(what + ": a head of " + std::to_string(d) + " rows exceeds the " + std::to_string(P) + " partitions TensorE contracts over");
    a.bank = k.limits().psum_bank_bytes;
    a.chunk = a.bank / 4;  // fp32 scores a bank holds per partition
    a.nsb = ceil_div(S, a.chunk);
    if (k.limits().psum_banks < 8)
        throw Error(what + ": needs 8 PSUM banks (scores, transposes, O^T); " + k.limits().name + " has " + std::to_string(k.limits().psum_banks));
    if (a.nsb > kScoreBanks)
        throw Error(what + ": the scores of 128 queries over " + std::to_string(S) + " keys need " + std::to_string(a.nsb) + " PSUM banks of " +
                    std::to_string(a.chunk) + " fp32; " + std::to_string(kScoreBanks) + " are theirs, so at most " + std::to_string(kScoreBanks * a.chunk) +
                    " keys (longer sequences need the flash form, which is not built)");
    a.score_bufs = 2 * a.nsb <= kScoreBanks ? 2 : 1;
    a.nq = ceil_div(S, P), a.nkb = ceil_div(S, P);
    a.scale = 1.0f / std::sqrt(static_cast<float>(d));

    // SBUF per partition.
    a.q_off = 0, a.k_off = align64(S * db), a.vt_off = 2 * align64(S * db), a.v_off = 3 * align64(S * db);
    a.head_bytes = a.v_off + align64(a.nkb * d * db);
    a.ident_at = 2 * a.head_bytes;
    a.p_at = a.ident_at + align64(P * db);
    a.scratch = (S * db + 3) & ~uint64_t{3};  // -max, its scaled form, the sum, 1/sum (fp32 each)
    a.p_bytes = align64(a.scratch + 16);
    a.pt_at = a.p_at + 2 * a.p_bytes;
    a.pt_bytes = align64(a.nkb * P * db);
    const uint64_t staging = a.pt_at + 2 * a.pt_bytes, slot = align64(P * db);
    if (staging + 2 * slot > k.limits().sbuf_bytes)
        throw Error(what + ": two heads' q, k and v, the P and P^T buffers and the staging need " + std::to_string(staging + 2 * slot) +
                    " bytes per partition; " + k.limits().name + "'s SBUF has " + std::to_string(k.limits().sbuf_bytes) + " (memory.sbuf_bytes_per_partition)");

    Rng rng(p.seed);
    const auto input = [&](const std::string& name, float lo, float hi) {
        DramTensor t = k.tensor(a.H, S * db);
        std::vector<float> v(t.ring_rows * S);
        for (float& x : v) x = rng.uniform(lo, hi);
        k.input(t, p.tag + name, encode_values(v, p.dtype));
        return t;
    };
    const DramTensor q = input("q", -2.0f, 2.0f), kk = input("k", -2.0f, 2.0f), v = input("v", -1.0f, 1.0f);
    if (q.ring_rows % d)  // a head's rows would straddle the ring's end
        throw Error(what + ": the inputs over --max-data-mib are stored as a ring of " + std::to_string(q.ring_rows) + " rows, which heads of " +
                    std::to_string(d) + " rows do not divide; a larger --max-data-mib stores them whole");
    DramTensor ident = k.tensor(P, P * db);
    {
        std::vector<float> iv(P * P, 0.0f);
        for (uint64_t i = 0; i < P; ++i) iv[i * P + i] = 1.0f;
        k.input(ident, p.tag + "identity", encode_values(iv, p.dtype));
    }
    DramTensor o = k.tensor(a.H, S * db);
    o.ring_rows = q.ring_rows;

    TilePipeline& pipe = k.pipe();
    TraceWriter& w = k.writer();
    pipe.begin_phase(staging, 2, slot);
    pipe.ensure_resident({"exp"});
    const uint64_t pv0 = pipe.signalled(kSemPV), exp0 = pipe.signalled(kSemExp);
    pipe.copy(kLoadQueue, dram(ident.addr), sbuf(0, a.ident_at), static_cast<uint32_t>(P), P * db, ident.row_bytes, 0, pipe.wait_earlier_phases(kLoadQueue),
              inc(kSemIdent));
    w.instr("pe", "sync", {wait_ge(kSemIdent, pipe.signal(kSemIdent))});
    // Head h's rows into its slot, once the PV matmuls of the head two before are done.
    std::vector<uint64_t> head_ready;
    const auto load_head = [&](uint64_t h) {
        const uint64_t at = a.head_slot(h);
        const std::string wait = h >= 2 ? wait_ge(kSemPV, pv0 + (h - 1) * a.nq) : "";
        const uint32_t rows = static_cast<uint32_t>(d);
        pipe.copy(kLoadQueue, dram(q.row_addr(h * d)), sbuf(0, at + a.q_off), rows, S * db, q.row_bytes, 0, wait, "");
        pipe.copy(kLoadQueue, dram(kk.row_addr(h * d)), sbuf(0, at + a.k_off), rows, S * db, kk.row_bytes, 0, "", "");
        pipe.copy(kLoadQueue, dram(v.row_addr(h * d)), sbuf(0, at + a.vt_off), rows, S * db, v.row_bytes, 0, "", inc(kSemHead));
        head_ready.push_back(pipe.signal(kSemHead));
    };
    // V_h^T [d, S] -> V_h by key blocks [keys, d]: PE transposes, VectorE copies.
    std::vector<uint64_t> v_copied;  // per head: kSemTCopied's count once V_h is in SBUF
    const auto transpose_v = [&](uint64_t h) {
        const uint64_t at = a.head_slot(h);
        a.transpose(at + a.vt_off, static_cast<uint32_t>(d), S, at + a.v_off, wait_ge(kSemHead, head_ready[h]), h == 0);
        v_copied.push_back(a.copied.back());
    };
    // The scores of unit u into its banks (the banks' previous unit's exp must have read them).
    const auto scores = [&](uint64_t u) {
        const uint64_t h = u / a.nq, qt = u % a.nq, at = a.head_slot(h);
        const uint32_t qn = a.q_rows(qt);
        Fields ls = pe_load_stationary_fields(static_cast<uint32_t>(d), p.dtype, at + a.q_off + qt * P * db, qn);
        if (qt == 0) w.instr("pe", "sync", {wait_ge(kSemHead, head_ready[h])});
        if (u >= a.score_bufs) ls.push_back(wait_ge(kSemExp, exp0 + u - a.score_bufs + 1));
        w.instr("pe", "load_stationary", ls);
        for (uint64_t c = 0; c < a.nsb; ++c) {
            const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(a.chunk, S - c * a.chunk));
            Fields mm = pe_matmul_fields(static_cast<uint32_t>(d), p.dtype, true, at + a.k_off + c * a.chunk * db, n, a.score_bank(u) + c * a.bank);
            if (c + 1 == a.nsb) mm.push_back(inc(kSemScores));
            w.instr("pe", "matmul", mm, u == 0 && c == 0 ? "scores: Q^T x K^T" : "");
        }
        const uint64_t ready = pipe.signal(kSemScores);
        // VectorE: -max/sqrt(d) (ScalarE's bias)
        const uint64_t sc = a.p_buf(u) + a.scratch;
        Fields m = dve_reduce_fields(qn, {a.score_bank(u), static_cast<uint32_t>(S), fp::Dtype::Fp32, true}, "max", true, {sc, 1, fp::Dtype::Fp32});
        m.push_back(wait_ge(kSemScores, ready));
        w.instr("dve", "tensor_reduce", m, u == 0 ? "-max" : "");
        Fields s = dve_scalar_fields(qn, {sc, 1, fp::Dtype::Fp32}, "mult", ActOperand::imm(a.scale), {sc + 4, 1, fp::Dtype::Fp32});
        s.push_back(inc(kSemBias));
        w.instr("dve", "tensor_scalar", s, u == 0 ? "-max / sqrt(d)" : "");
        const uint64_t bias = pipe.signal(kSemBias);
        // ScalarE: P = exp(s / sqrt(d) - max / sqrt(d)) and its row sums.
        ActivateSpec e{"exp", qn, a.score_bank(u), a.p_buf(u), static_cast<uint32_t>(S), fp::Dtype::Fp32, p.dtype};
        e.src_psum = true;
        e.scale = ActOperand::imm(a.scale);
        e.bias = ActOperand::at(sc + 4);
        e.acc = Accumulate::ZeroAdd;
        Fields ef = activate_fields(e);
        ef.push_back(wait_ge(kSemBias, bias));
        w.instr("act", "activate", ef, u == 0 ? "exp from PSUM, row sums accumulated" : "");
        Fields rf = read_accumulator_fields(qn, sc + 8);
        rf.push_back(inc(kSemExp));
        w.instr("act", "read_accumulator", rf);
        pipe.signal(kSemExp);
    };

    const uint64_t units = a.heads * a.nq;
    load_head(0);
    if (a.heads > 1) load_head(1);
    scores(0);
    transpose_v(0);
    for (uint64_t u = 0; u < units; ++u) {
        const uint64_t h = u / a.nq, qt = u % a.nq, q0 = qt * P, pb = a.p_buf(u), sc = pb + a.scratch;
        const uint32_t qn = a.q_rows(qt);
        // VectorE: 1/sum, then P *= 1/sum.
        Fields r = dve_reciprocal_fields(qn, {sc + 8, 1, fp::Dtype::Fp32}, {sc + 12, 1, fp::Dtype::Fp32});
        r.push_back(wait_ge(kSemExp, exp0 + u + 1));
        w.instr("dve", "reciprocal", r, u == 0 ? "1/sum" : "");
        Fields n = dve_scalar_fields(qn, {pb, static_cast<uint32_t>(S), p.dtype}, "mult", ActOperand::at(sc + 12), {pb, static_cast<uint32_t>(S), p.dtype});
        n.push_back(inc(kSemP));
        w.instr("dve", "tensor_scalar", n, u == 0 ? "P / sum" : "");
        const uint64_t p_ready = pipe.signal(kSemP);
        // TensorE one unit ahead: the next scores (and the next head's V) before this unit's transposes.
        if (u + 1 < units) {
            const uint64_t nh = (u + 1) / a.nq;
            if (nh != h && nh + 1 < a.heads) load_head(nh + 1);
            scores(u + 1);
            if (nh != h) transpose_v(nh);
        }
        const uint64_t first = a.transpose(pb, qn, S, a.pt_buf(u), wait_ge(kSemP, p_ready), u == 0);
        // O^T = sum over key blocks of V[kb]^T x P^T[kb], into bank 6 or 7.
        const Tile t = pipe.next_tile(h * d, static_cast<uint32_t>(d));
        const uint64_t ob = (6 + u % 2) * a.bank;
        if (u >= 2) w.instr("pe", "sync", {wait_ge(kSemComputed, t.index - 1)});  // the bank's previous unit is copied out
        w.instr("pe", "sync", {wait_ge(kSemTCopied, v_copied[h])});
        const uint64_t per = std::min<uint64_t>(4, a.bank / (uint64_t{qn} * 4));
        for (uint64_t kb = 0; kb < a.nkb; ++kb) {
            const uint32_t kn = static_cast<uint32_t>(std::min<uint64_t>(P, S - kb * P));
            Fields ls = pe_load_stationary_fields(kn, p.dtype, a.head_slot(h) + a.v_off + kb * d * db, static_cast<uint32_t>(d));
            if (kb % per == 0) ls.push_back(wait_ge(kSemTCopied, a.copied[first + kb / per]));
            w.instr("pe", "load_stationary", ls);
            Fields mm = pe_matmul_fields(kn, p.dtype, kb == 0, a.pt_buf(u) + kb * qn * db, qn, ob);
            if (kb + 1 == a.nkb) mm.push_back(inc(kSemPV));
            w.instr("pe", "matmul", mm, u == 0 && kb == 0 ? "O^T: V^T x P^T" : "");
        }
        const uint64_t pv = pipe.signal(kSemPV);
        pipe.wait_slot_free("dve", t);
        Fields c = dve_copy_fields(static_cast<uint32_t>(d), {ob, qn, fp::Dtype::Fp32, true}, {t.slot, qn, p.dtype});
        c.push_back(wait_ge(kSemPV, pv));
        c.push_back(inc(kSemComputed));
        w.instr("dve", "tensor_copy", c, u == 0 ? "PSUM to SBUF" : "");
        pipe.store(t, {{&o, 0, q0 * db, qn * db}});
    }
    if (!pipe.spread()) k.note("attention moves q, k and v on the spread queue dma.0 (--dma-lanes applies to its stores only)");
    k.note("attention computes every score (no causal mask): a decoder's compiler would skip the blocks above the diagonal");
    k.output(o, p.tag + "o");
}

}  // namespace neuronsim::model::workloads
