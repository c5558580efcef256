#include "model/workloads/kernels.h"

#include <cctype>
#include <filesystem>
#include <sstream>

#include "model/common/error.h"
#include "model/io/write_file.h"
#include "model/workloads/act_functions.h"
#include "model/workloads/kernel_steps.h"

namespace neuronsim::model::workloads {

namespace {

struct KernelInfo {
    std::string name;
    uint64_t rows, cols;  // default shape
    std::string params;  // for --list
    void (*emit)(KernelContext&, const Phase&);
};

const std::vector<KernelInfo>& kernels() {
    static const std::vector<KernelInfo> k = {
        {"softmax", 1024, 2048, "--shape ROWSxCOLS (rows: heads x queries, cols: keys), --dtype; the max, 1/sum and scale on VectorE, exp on ScalarE",
         emit_softmax},
        {"rmsnorm", 2048, 4096, "--shape TOKENSxHIDDEN, --dtype, --eps; gamma on VectorE", emit_rmsnorm},
        {"layernorm", 512, 768, "--shape TOKENSxHIDDEN, --dtype, --eps; gamma and beta on VectorE", emit_layernorm},
        {"mlp-act", 2048, 11008, "--shape TOKENSxINTERMEDIATE, --dtype, --act gelu|silu (default gelu)", emit_elementwise},
        {"mlp", 512, 768,
         "--shape TOKENSxHIDDEN, --intermediate I (default 3072), --dtype, --act gelu (W_1, gelu, W_2) | silu (silu(x W_gate) * x W_up, W_down); "
         "the matmuls on TensorE",
         emit_mlp},
        {"linear", 512, 768, "--shape TOKENSxIN, --features OUT (default IN), --dtype; y = W^T x on TensorE (a projection), x and y hidden-major", emit_linear},
        {"attention", 512, 768,
         "--shape SEQxHIDDEN (at most 2048 keys), --heads N (default hidden/64), --dtype; per head QK^T and PV on TensorE (P^T by identity "
         "transposes), the softmax on VectorE and ScalarE; no causal mask",
         emit_attention},
        {"cptc-dequant-act", 1024, 4096,
         std::string("--shape ROWSxCOLS (rows a multiple of 128), --dtype (ACT output), --bits K (CPTC-K, default 4), --act gelu|silu|identity; ") +
             cptc_generations() + ", run with -p gpsimd.cptc_flag=true",
         emit_cptc_dequant_act},
    };
    return k;
}

const KernelInfo& find_kernel(const std::string& name) {
    for (const KernelInfo& k : kernels())
        if (k.name == name) return k;
    std::string names;
    for (const KernelInfo& k : kernels()) names += (names.empty() ? "" : ", ") + k.name;
    throw Error("unknown kernel '" + name + "' (kernels: " + names + "; --list shows their parameters)");
}

// The transformer presets: one layer at the model's real sizes, each block a phase with its own
// seeded inputs (the phases do not pass data on; their times add up to the layer's).
struct ModelInfo {
    std::string name;
    uint32_t layers, hidden, heads, intermediate;
    std::string norm, act;
};
const std::vector<ModelInfo>& models() {
    static const std::vector<ModelInfo> m = {
        {"bert-base", 12, 768, 12, 3072, "layernorm", "gelu"},
        {"llama2-7b", 32, 4096, 32, 11008, "rmsnorm", "silu"},
    };
    return m;
}

// The phases of one layer, in execution order.
std::vector<std::pair<std::string, Phase>> model_phases(const KernelRequest& r) {
    const ModelInfo* m = nullptr;
    for (const ModelInfo& x : models())
        if (x.name == r.model) m = &x;
    if (!m) throw Error("--model " + r.model + ": expected bert-base or llama2-7b");
    if (r.layer >= m->layers) throw Error("--layer " + std::to_string(r.layer) + ": " + m->name + " has layers 0.." + std::to_string(m->layers - 1));
    if (r.seq == 0) throw Error("--model " + m->name + " needs --seq S (the sequence length, e.g. 2048)");
    const uint64_t seed = r.seed * 1000003 + r.layer * 16;
    auto phase = [&](const std::string& tag, uint64_t rows, uint64_t cols, uint64_t k, uint64_t inner = 0) {
        Phase p;
        p.tag = tag;
        p.rows = rows, p.cols = cols, p.dtype = r.dtype, p.seed = seed + k, p.eps = r.eps, p.act = m->act, p.buffers = r.buffers;
        p.inner = inner, p.heads = m->heads;
        return p;
    };
    const uint64_t S = r.seq, H = m->hidden;
    const std::pair<std::string, Phase> qkv{"linear", phase("qkv_", S, H, 1, 3 * H)}, attn{"attention", phase("attn_", S, H, 2)},
        out{"linear", phase("attn_out_", S, H, 3, H)}, mlp{"mlp", phase("mlp_", S, H, 5, m->intermediate)};
    if (m->norm == "layernorm")  // post-norm BERT: attention, add & norm, FFN, add & norm
        return {qkv, attn, out, {m->norm, phase("attn_norm_", S, H, 4)}, mlp, {m->norm, phase("mlp_norm_", S, H, 6)}};
    return {{m->norm, phase("attn_norm_", S, H, 0)}, qkv, attn, out, {m->norm, phase("mlp_norm_", S, H, 4)}, mlp};  // pre-norm LLaMA
}

// The tiles a phase stores, before it is written (mlp's token blocks are at most 512; when SBUF
// makes them smaller, the count after writing is checked too).
uint64_t phase_tiles(const std::string& kernel, const Phase& p, uint64_t P) {
    const auto cdiv = [](uint64_t a, uint64_t b) { return (a + b - 1) / b; };
    if (kernel == "attention") return p.heads * cdiv(p.rows, P);
    if (kernel == "mlp") return cdiv(p.rows, 512) * cdiv(p.cols, P);
    if (kernel == "linear") return cdiv(p.rows, 512) * cdiv(p.inner, P);
    return cdiv(p.rows, P);
}

}  // namespace

std::string describe(const Phase& p, const std::string& kernel) {
    return kernel + " " + std::to_string(p.rows) + "x" + std::to_string(p.cols) + " " + kernel_dtype_name(p.dtype) +
           (p.act.empty() || kernel == "softmax" || kernel == "rmsnorm" || kernel == "layernorm" || kernel == "linear" || kernel == "attention" ? ""
                                                                                                                                                : " " + p.act) +
           (kernel == "attention" ? " " + std::to_string(p.heads) + " heads"
            : kernel == "mlp"     ? " intermediate " + std::to_string(p.inner)
            : kernel == "linear"  ? " to " + std::to_string(p.inner)
                                  : "");
}

void check_free_size(const Phase& p, const std::string& kernel) {
    if (p.rows == 0 || p.cols == 0) throw Error(kernel + ": --shape " + std::to_string(p.rows) + "x" + std::to_string(p.cols) + " is empty");
    if (p.cols > kMaxFreeElements)
        throw Error(describe(p, kernel) + ": a row of " + std::to_string(p.cols) + " elements exceeds the ACT free-size limit of " +
                    std::to_string(kMaxFreeElements) + " elements per instruction (TENSOR3D num[0] is 16-bit; public-figures §1.1: 64K from SBUF)");
}

uint32_t slots_that_fit(const KernelContext& k, const Phase& p, const std::string& kernel, uint64_t private_bytes, uint64_t slot_bytes, uint32_t min,
                        uint32_t want) {
    if (p.buffers) min = want = p.buffers;
    const uint64_t sbuf = k.limits().sbuf_bytes;
    const uint64_t fit = sbuf > private_bytes ? (sbuf - private_bytes) / slot_bytes : 0;
    if (fit < min)
        throw Error(describe(p, kernel) + ": " + std::to_string(min) + " SBUF slots of " + std::to_string(slot_bytes) + " bytes (a row and its values) and " +
                    std::to_string(private_bytes) + " bytes of scratch and constants need " + std::to_string(min * slot_bytes + private_bytes) +
                    " bytes per partition; " + k.limits().name + "'s SBUF has " + std::to_string(sbuf) + " (memory.sbuf_bytes_per_partition)");
    return static_cast<uint32_t>(std::min<uint64_t>(fit, want));
}

std::vector<std::string> kernel_names() {
    std::vector<std::string> n;
    for (const KernelInfo& k : kernels()) n.push_back(k.name);
    return n;
}

std::vector<std::string> model_names() {
    std::vector<std::string> n;
    for (const ModelInfo& m : models()) n.push_back(m.name);
    return n;
}

void parse_kernel_shape(const std::string& text, KernelRequest& r) {
    const size_t x = text.find('x');
    auto num = [&](const std::string& t) {
        size_t used = 0;
        unsigned long long v = 0;
        try {
            v = std::stoull(t, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (t.empty() || used != t.size() || v == 0 || t[0] == '-' || t[0] == '+' || std::isspace(static_cast<unsigned char>(t[0])))
            throw Error("--shape " + text + ": expected ROWSxCOLS with positive integers, e.g. 2048x11008");
        return static_cast<uint64_t>(v);
    };
    if (x == std::string::npos) throw Error("--shape " + text + ": expected ROWSxCOLS, e.g. 2048x11008");
    r.rows = num(text.substr(0, x));
    r.cols = num(text.substr(x + 1));
}

fp::Dtype parse_kernel_dtype(const std::string& name) {
    if (name == "fp32") return fp::Dtype::Fp32;
    if (name == "bf16") return fp::Dtype::Bfloat16;
    if (name == "fp16") return fp::Dtype::Fp16;
    throw Error("--dtype " + name + ": expected fp32, bf16 or fp16");
}

std::string kernel_dtype_name(fp::Dtype d) { return d == fp::Dtype::Bfloat16 ? "bf16" : d == fp::Dtype::Fp16 ? "fp16" : "fp32"; }

std::string kernel_list() {
    std::ostringstream o;
    o << "kernels (default --shape in brackets):\n";
    for (const KernelInfo& k : kernels()) o << "  " << k.name << " [" << k.rows << "x" << k.cols << "]: " << k.params << "\n";
    o << "presets: --model NAME --layer N --seq S (at most 2048), one layer at the model's sizes:\n";
    for (const ModelInfo& m : models())
        o << "  " << m.name << " (" << m.layers << " layers, hidden " << m.hidden << ", " << m.heads << " heads, intermediate " << m.intermediate << "): "
          << (m.norm == "layernorm" ? "linear QKV [S x hidden to 3 hidden], attention, linear out, layernorm [S x hidden], mlp (gelu), layernorm"
                                    : "rmsnorm [S x hidden], linear QKV [S x hidden to 3 hidden], attention, linear out, rmsnorm, mlp (gated silu)")
          << "\n";
    o << "common: --dtype fp32|bf16|fp16 (default fp32), --gen G, --seed S (default 1), --dma-lanes K, --buffers N, --max-data-mib M (default 64)\n";
    return o.str();
}

KernelSummary write_kernel(const KernelRequest& r, const GenLimits& g, const std::string& trace_path) {
    std::vector<std::pair<std::string, Phase>> phases;
    if (!r.model.empty()) {
        if (!r.kernel.empty()) throw Error("give a kernel NAME or --model, not both");
        if (!r.act.empty() || r.bits != 4 || r.intermediate || r.heads || r.features)
            throw Error("--act, --bits, --intermediate, --heads and --features do not apply to --model (the model decides its sizes and activation)");
        phases = model_phases(r);
    } else {
        const KernelInfo& k = find_kernel(r.kernel);
        Phase p;
        p.rows = r.rows ? r.rows : k.rows;
        p.cols = r.cols ? r.cols : k.cols;
        p.dtype = r.dtype, p.seed = r.seed, p.eps = r.eps, p.bits = r.bits, p.buffers = r.buffers;
        p.act = r.act.empty() ? "gelu" : r.act;
        p.inner = r.intermediate ? r.intermediate : 3072;
        if (k.name != "mlp" && r.intermediate) throw Error("--intermediate applies to mlp only");
        if (k.name != "attention" && r.heads) throw Error("--heads applies to attention only");
        if (k.name != "linear" && r.features) throw Error("--features applies to linear only");
        if (k.name == "linear") p.inner = r.features ? r.features : p.cols;
        p.heads = r.heads ? r.heads : std::max<uint64_t>(1, p.cols / 64);
        if (k.name == "attention" && !r.heads && p.cols % p.heads)
            throw Error("attention: the default --heads (hidden / 64 = " + std::to_string(p.heads) + ") does not divide the hidden size " +
                        std::to_string(p.cols) + "; give --heads N");
        const bool has_act = k.name == "mlp-act" || k.name == "mlp" || k.name == "cptc-dequant-act";
        if (!has_act && !r.act.empty()) throw Error("--act applies to mlp-act, mlp and cptc-dequant-act, not " + k.name);
        if ((k.name == "mlp-act" || k.name == "mlp") && p.act != "gelu" && p.act != "silu")
            throw Error("--act " + p.act + ": " + k.name + " takes gelu or silu");
        if (k.name == "cptc-dequant-act" && p.act != "gelu" && p.act != "silu" && p.act != "identity")
            throw Error("--act " + p.act + ": cptc-dequant-act takes gelu, silu or identity");
        if (k.name != "cptc-dequant-act" && r.bits != 4) throw Error("--bits applies to cptc-dequant-act only");
        if (r.bits < 1 || r.bits > 7) throw Error("--bits " + std::to_string(r.bits) + ": CPTC-K has K in 1..7");
        phases.push_back({k.name, p});
    }
    if (r.max_data_bytes < uint64_t{g.partitions} * 4) throw Error("--max-data-mib must hold at least one tile");
    uint64_t tiles = 0;  // as the kernels count them: a staged output block is a tile
    for (const auto& [kernel, ph] : phases) tiles += phase_tiles(kernel, ph, g.partitions);
    if (tiles > kMaxTiles)
        throw Error(std::to_string(tiles) + " tiles of " + std::to_string(g.partitions) + " rows: at most " + std::to_string(kMaxTiles) +
                    " fit one trace (the semaphores count tiles; the trace would be over 2 GB)");
    std::filesystem::path tp(trace_path);
    if (tp.has_parent_path()) std::filesystem::create_directories(tp.parent_path());

    std::ostringstream body;
    TraceWriter w(body);
    KernelContext ctx(w, g, trace_path, r.lanes, r.max_data_bytes);
    KernelSummary s;
    try {
        for (auto& [kernel, p] : phases) {
            s.phases.push_back(describe(p, kernel));
            w.blank();
            w.comment("phase: " + s.phases.back());
            find_kernel(kernel).emit(ctx, p);
            s.elements += p.rows * p.cols;
            if (kernel == "cptc-dequant-act") s.run_flags.push_back("-p gpsimd.cptc_flag=true");
        }
    } catch (...) {
        for (const WrittenFile& f : ctx.files()) std::filesystem::remove(f.path);  // no inputs without their trace
        throw;
    }
    if (ctx.pipe().tiles() > kMaxTiles) {
        for (const WrittenFile& f : ctx.files()) std::filesystem::remove(f.path);
        throw Error(std::to_string(ctx.pipe().tiles()) + " tiles: at most " + std::to_string(kMaxTiles) + " fit one trace (the semaphores count tiles)");
    }
    s.trace = trace_path;
    s.files = ctx.files();
    s.dumps = ctx.dumps();
    s.tiles = ctx.pipe().tiles();
    s.table_loads = ctx.pipe().table_loads();
    s.instructions = w.instructions();
    s.ringed = ctx.ringed();
    s.notes = ctx.notes();

    std::ostringstream head;
    head << "# " << tp.filename().string() << ": written by `neuronsim kernel` (docs/workloads.md) for " << g.name << ", seed " << r.seed << ".\n";
    if (!r.model.empty()) head << "# " << r.model << " layer " << r.layer << ", sequence " << r.seq << ": one layer, each block with its own seeded inputs.\n";
    if (ctx.pipe().spread())
        head << "# " << s.tiles << " tiles of up to " << g.partitions << " rows; each tile's load one transfer on dma.0 and its store one on dma.1, "
             << "spread over the DMA engines; " << s.table_loads << " table loads.\n";
    else
        head << "# " << s.tiles << " tiles of up to " << g.partitions << " rows; DMA loads on " << ctx.pipe().lanes() << " engines, stores on "
             << ctx.pipe().lanes() << " others; " << s.table_loads << " table loads.\n";
    if (s.ringed)
        head << "# Inputs over " << (r.max_data_bytes >> 20) << " MiB are stored as a ring of whole tiles that the loads cycle through (the\n"
             << "# outputs land in a ring of the same size): every tile is still loaded, computed and stored.\n";
    for (const auto& f : s.run_flags) head << "# Run with " << f << ".\n";
    for (const auto& n : s.notes) head << "# Note: " << n << "\n";
    std::string text = head.str() + body.str();
    model::io::write_file_atomic(trace_path, text);  // whole, or not at all
    s.trace_bytes = text.size();
    return s;
}

}  // namespace neuronsim::model::workloads
