// cptc-dequant-act: CPTC-K compressed weights [rows, cols] DMA'd into SBUF, decoded on GPSIMD
// (conv_lut_load, the routed cptc_decode_impl<N>) into the kernel's output type (fp16 for the
// default CPTC4), then an activation on ScalarE into the requested dtype, DMA'd back. The
// streams are model/cptc's encoding of seeded weights (docs/cptc-format.md), one per
// partition row; the decode needs all 128 partitions, so rows are a multiple of 128.
#include <sstream>

#include "model/common/error.h"
#include "model/cptc/cptc.h"
#include "model/workloads/kernel_steps.h"

#include "config/features.h"

namespace neuronsim::model::workloads {

std::string cptc_generations() {
    std::string names;
    for (const std::string& g : generations_with(can_decode_cptc)) names += (names.empty() ? "" : ", ") + g;
    return names;
}

void emit_cptc_dequant_act(KernelContext& k, const Phase& p) {
    const GenLimits& g = k.limits();
    if (!g.cptc_decode)
        throw Error("cptc-dequant-act: " + g.name + " cannot decode CPTC (its ISA names no CPTC dtypes or its firmware ships no CPTC library; " +
                    "generations that stage it: " + cptc_generations() + ")");
    check_free_size(p, "cptc-dequant-act");
    const uint64_t P = g.partitions;
    if (p.rows % P)
        throw Error("cptc-dequant-act --shape " + std::to_string(p.rows) + "x" + std::to_string(p.cols) + ": rows must be a multiple of " + std::to_string(P) +
                    " (a CPTC decode runs on all 128 partitions: num_active_rows must be 128)");
    const cptc::Target target = cptc::route_target(p.bits, cptc::default_routing());
    const unsigned block = 64;
    const uint64_t stream = cptc::stream_bytes(p.bits, p.cols, block, !target.integer);
    const uint64_t dec_bytes = fp::dtype_bytes(target.out), db = fp::dtype_bytes(p.dtype);
    const uint64_t s_off = 0, d_off = align64(stream), y_off = d_off + align64(p.cols * dec_bytes);
    const uint64_t slot_bytes = y_off + align64(p.cols * db);
    const uint32_t slots = slots_that_fit(k, p, "cptc-dequant-act", 0, slot_bytes, 2, 4);

    // (the ring of compressed rows is as long as the decoded outputs' may be: 7.5 times the
    // bytes at 4 bits, the outputs would otherwise pass --max-data-mib by as much)
    DramTensor w = k.tensor(p.rows, stream, p.cols * db);
    uint16_t s0 = 0, s1 = 0;
    {
        Rng rng(p.seed);
        std::vector<float> v(w.ring_rows * p.cols);
        for (float& x : v) x = target.integer ? rng.uniform(0.0f, 14.0f) : rng.uniform(-1.0f, 1.0f);
        const uint16_t m = target.integer ? cptc::integer_multiplier(v, p.bits) : 0;
        std::vector<uint8_t> bytes;
        bytes.reserve(w.stored_bytes());
        for (uint64_t r = 0; r < w.ring_rows; ++r) {
            const std::vector<float> row(v.begin() + static_cast<long>(r * p.cols), v.begin() + static_cast<long>((r + 1) * p.cols));
            const cptc::Encoded e = cptc::encode(row, target, block, m);
            if (e.bytes.size() != stream)
                throw Error("cptc-dequant-act: the encoder wrote " + std::to_string(e.bytes.size()) + " bytes per row, expected " + std::to_string(stream));
            s0 = e.s0, s1 = e.s1;
            bytes.insert(bytes.end(), e.bytes.begin(), e.bytes.end());
        }
        k.input(w, p.tag + "w_cptc" + std::to_string(p.bits), bytes);
    }
    DramTensor y = k.tensor(p.rows, p.cols * db);
    y.ring_rows = w.ring_rows;

    // The decode's fields as `cptc encode` prints them, plus the operands.
    Fields decode;
    {
        std::istringstream in(cptc::instruction_fields(target, block, s0, s1, stream, p.cols));
        for (std::string f; in >> f;) decode.push_back(f);
    }
    TilePipeline& pipe = k.pipe();
    TraceWriter& tw = k.writer();
    pipe.begin_phase(0, slots, slot_bytes);
    pipe.ensure_resident({p.act});
    for (uint64_t row0 = 0; row0 < p.rows; row0 += P) {
        const Tile t = pipe.next_tile(row0, static_cast<uint32_t>(P));
        pipe.load(t, {{&w, s_off}});
        pipe.wait_loaded("pool", t);
        Fields f = decode;
        f.insert(f.end(), {"src=" + sbuf(0, t.slot + s_off), "dst=" + sbuf(0, t.slot + d_off), inc(kSemDecoded)});
        tw.instr("pool", "conv_lut_load", f, row0 == 0 ? cptc::describe(target) : "");
        const uint64_t decoded = pipe.signal(kSemDecoded);
        ActivateSpec a{p.act, t.rows, t.slot + d_off, t.slot + y_off, static_cast<uint32_t>(p.cols), target.out, p.dtype};
        Fields af = activate_fields(a);
        af.insert(af.end(), {wait_ge(kSemDecoded, decoded), inc(kSemComputed)});
        tw.instr("act", "activate", af, row0 == 0 ? p.act + " of the decoded weights" : "");
        pipe.store(t, {{&y, y_off}});
    }
    k.output(y, p.tag + "y");
}

}  // namespace neuronsim::model::workloads
