// `neuronsim cptc encode`: turn values into CPTC-K streams for the kernel that decodes them
// (docs/cptc-format.md): the routing picks cptc_decode_impl<N>, whose leg decides the
// signedness of the codes, the output types and whether there are block scales.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "apps/commands.h"
#include "model/common/error.h"
#include "model/cptc/cptc.h"
#include "model/fp/dtype.h"
#include "model/io/bits_file.h"
#include "model/pwp/packer.h"

namespace neuronsim::apps {

namespace {

namespace cptc = model::cptc;
using model::fp::Dtype;

std::string decimal(float x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.9g", static_cast<double>(x));
    return b;
}

std::string dtype_text(Dtype d) { return model::fp::dtype_name(static_cast<uint8_t>(d)); }

// --out-dtype: the output types some leg stores, and BF16 (refused by the routing with a reason).
Dtype parse_out_dtype(const std::string& prog, const std::string& name) {
    static const std::pair<const char*, Dtype> names[] = {{"fp32", Dtype::Fp32},         {"fp16", Dtype::Fp16}, {"bf16", Dtype::Bfloat16},
                                                          {"bfloat16", Dtype::Bfloat16}, {"int8", Dtype::Int8}, {"uint8", Dtype::Uint8}};
    for (const auto& [n, d] : names)
        if (name == n) return d;
    throw UsageError(prog + ": --out-dtype: expected fp16, fp32, int8 or uint8, got \"" + name + "\"");
}

// --route K=IMPL, as -p gpsimd.cptc_routing.K=IMPL.
cptc::Routing parse_routes(const std::string& prog, const po::variables_map& vm) {
    cptc::Routing r = cptc::default_routing();
    if (!vm.count("route")) return r;
    for (const std::string& s : vm["route"].as<std::vector<std::string>>()) {
        unsigned k = 0, impl = 0;
        char tail = 0;
        if (std::sscanf(s.c_str(), "%u=%u%c", &k, &impl, &tail) != 2) throw UsageError(prog + ": --route: expected K=IMPL (e.g. 7=4), got \"" + s + "\"");
        try {
            cptc::set_route(r, k, impl);
        } catch (const Error& e) {
            throw UsageError(prog + ": --route " + s + ": " + e.what());
        }
    }
    return r;
}

// "CPTC2 (impl<2>, FP16), CPTC3 (impl<5>, UINT8), ...": where unsigned codes are read.
std::string unsigned_choices(const cptc::Routing& r) {
    std::string s;
    for (unsigned k = 1; k <= 7; ++k) {
        try {
            for (Dtype d : cptc::kernel_leg(r.at(k)).outs)
                if (const cptc::Target t = cptc::route_target(k, r, d); !t.is_signed)
                    s += (s.empty() ? "" : ", ") + std::string("CPTC") + std::to_string(k) + " (impl<" + std::to_string(t.impl) + ">, " + dtype_text(d) + ")";
        } catch (const std::exception&) {  // not routed, or routed to a kernel that rejects it
        }
    }
    return s;
}

// The kernel for this command line; --unsigned only confirms what the leg reads.
cptc::Target target_of(const std::string& prog, const po::variables_map& vm, unsigned bits) {
    const cptc::Routing routing = parse_routes(prog, vm);
    const Dtype out = vm.count("out-dtype") ? parse_out_dtype(prog, vm["out-dtype"].as<std::string>()) : Dtype::Invalid;
    const cptc::Target t = cptc::route_target(bits, routing, out);
    if (vm["unsigned"].as<bool>() && t.is_signed)
        throw Error(
            "--unsigned: CPTC" + std::to_string(bits) + " -> " + dtype_text(t.out) + " is decoded by cptc_decode_impl<" + std::to_string(t.impl) +
            ">, which reads signed codes; drop --unsigned (the kernel's leg decides), or use a width and output read unsigned: " + unsigned_choices(routing));
    return t;
}

// The kernel and the instruction fields, in trace syntax (add src= and dst=).
void print_fields(const cptc::Target& t, unsigned block, uint16_t s0, uint16_t s1, uint64_t stream, uint64_t per) {
    std::printf("kernel: %s\n", cptc::describe(t).c_str());
    std::printf("fields: %s\n", cptc::instruction_fields(t, block, s0, s1, stream, per).c_str());
}

// The streams (and the decoded values) of all partitions, one after another.
struct Written {
    std::vector<uint8_t> streams, decoded;
    uint64_t stream = 0;
    uint16_t s0 = 0x3c00, s1 = 0;
};

void add(Written& w, const cptc::Encoded& e) {
    w.streams.insert(w.streams.end(), e.bytes.begin(), e.bytes.end());
    w.decoded.insert(w.decoded.end(), e.decoded.begin(), e.decoded.end());
    w.stream = e.bytes.size();
    w.s0 = e.s0;
    w.s1 = e.s1;
}

void write_out(const po::variables_map& vm, const cptc::Target& t, const Written& w, unsigned parts, uint64_t per, const char* what) {
    const std::string out = vm["out"].as<std::string>();
    model::pwp::write_bytes(out, w.streams);
    std::printf("wrote %s: %u partitions x %llu bytes (%llu 16-byte units) of CPTC%u%s, %llu elements each\n", out.c_str(), parts,
                static_cast<unsigned long long>(w.stream), static_cast<unsigned long long>(w.stream / 16), t.bits, what, static_cast<unsigned long long>(per));
    if (vm.count("decoded")) {
        model::pwp::write_bytes(vm["decoded"].as<std::string>(), w.decoded);
        std::printf("wrote %s: %u partitions x %llu bytes of %s, what cptc_decode_impl<%u> stores\n", vm["decoded"].as<std::string>().c_str(), parts,
                    static_cast<unsigned long long>(per * model::fp::dtype_bytes(t.out)), dtype_text(t.out).c_str(), t.impl);
    }
    print_fields(t, vm["block"].as<unsigned>(), w.s0, w.s1, w.stream, per);
}

// One decode instruction covers a partition's codes: its counts are 16-bit fields.
uint64_t per_partition(const std::string& in_path, size_t n, unsigned parts, unsigned bits, unsigned block) {
    if (n % parts) throw Error(in_path + ": " + std::to_string(n) + " values do not split evenly over " + std::to_string(parts) + " partitions");
    const uint64_t per = n / parts;
    if (per > 65535 || cptc::stream_bytes(bits, per, block, true) / 16 > 65535)
        throw Error(in_path + ": " + std::to_string(per) +
                    " values per partition exceed one decode instruction (dst.num and src.num are 16-bit): use more partitions or split the tensor");
    return per;
}

// --codes: the integers are the codes; each partition's groups, without block scales.
int write_codes(const po::variables_map& vm, const cptc::Target& t, const model::io::Elements& in, model::io::ElementFormat ef, unsigned parts) {
    const std::string in_path = vm["in"].as<std::string>();
    const auto [lo, hi] = cptc::code_range(t);
    std::vector<int32_t> codes(in.values.size());
    for (size_t i = 0; i < codes.size(); ++i) {
        const float x = in.values[i];
        if (!(x >= static_cast<float>(lo) && x <= static_cast<float>(hi)) || x != std::floor(x))
            throw Error(model::io::element_place(in_path, ef, in, i) + ": code " + decimal(x) + " is not an integer in [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "] (" + (t.is_signed ? "signed" : "unsigned") + " CPTC" + std::to_string(t.bits) + ", read by cptc_decode_impl<" +
                        std::to_string(t.impl) + "> for " + dtype_text(t.out) + ")");
        codes[i] = static_cast<int32_t>(x);
    }
    const uint64_t per = per_partition(in_path, codes.size(), parts, t.bits, vm["block"].as<unsigned>());
    Written w;
    for (unsigned p = 0; p < parts; ++p) add(w, cptc::encode_codes(std::vector<int32_t>(codes.begin() + p * per, codes.begin() + (p + 1) * per), t));
    write_out(vm, t, w, parts, per, " codes");
    return 0;
}

int run_encode(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("bits", po::value<unsigned>()->required(), "code width K, 1..7 (lut_dtype CPTC<K> = 0x18 + K)")(
        "out-dtype", po::value<std::string>(),
        "what the decode stores: fp16, fp32, int8 or uint8, as far as the routed kernel's leg stores it (default: the leg's first)")(
        "route", po::value<std::vector<std::string>>()->composing(),
        "K=IMPL: route CPTC<K> to cptc_decode_impl<IMPL>, as -p gpsimd.cptc_routing.K=IMPL (K = 2, 5, 6, 7)")(
        "block", po::value<unsigned>()->default_value(64), "block_size: elements per block scale, a multiple of 8 up to 248")(
        "unsigned", po::bool_switch(), "accepted when the routed kernel reads unsigned codes (the leg decides; this only confirms it)")(
        "partitions", po::value<unsigned>()->default_value(128), "the values are split evenly over this many partitions")(
        "codes", po::bool_switch(), "the values are integer codes, stored as they are: no scales (mconst1=0), each decodes to itself")(
        "in", po::value<std::string>()->required(), "input values (element file: hex binary32 lines, or --format f32 / i32)")(
        "format", po::value<std::string>()->default_value("hex"), "input format: hex, f32 (raw binary32) or i32 (raw little-endian int32: an integer tensor)")(
        "out", po::value<std::string>()->required(), "output: each partition's stream, one after another")(
        "decoded", po::value<std::string>(), "also write what the kernel stores (out-dtype elements, each partition's after another, as .dump writes them)");
    po::variables_map vm;
    if (parse_options(prog,
                      "Quantises values to CPTC-K for the kernel the routing sends CPTC-K to, and writes the\n"
                      "streams a conv_lut_load decode reads (its src, 16-byte units per partition). Prints\n"
                      "the kernel, the instruction fields to use and the quantisation error.",
                      opts, args, vm))
        return 0;
    const unsigned bits = vm["bits"].as<unsigned>(), block = vm["block"].as<unsigned>(), parts = vm["partitions"].as<unsigned>();
    if (bits < 1 || bits > 7) throw UsageError(prog + ": --bits must be 1..7");
    if (parts < 1 || parts > 128) throw UsageError(prog + ": --partitions must be 1..128");
    if (block == 0 || block % 8 || block > 248) throw UsageError(prog + ": --block must be a multiple of 8 in 8..248 (block_size is one byte)");
    const cptc::Target t = target_of(prog, vm, bits);
    const std::string in_path = vm["in"].as<std::string>(), format = vm["format"].as<std::string>();
    const bool integers = format == "i32";
    const model::io::ElementFormat ef = integers ? model::io::ElementFormat::F32 : model::io::parse_element_format(format);
    model::io::Elements in = model::io::read_elements(in_path, ef);
    if (integers)  // the same 4-byte records, read as int32 (exact in float up to 2^24)
        for (float& x : in.values) {
            int32_t i;
            std::memcpy(&i, &x, 4);
            x = static_cast<float>(i);
        }
    if (vm["codes"].as<bool>()) return write_codes(vm, t, in, ef, parts);
    const uint64_t per = per_partition(in_path, in.values.size(), parts, bits, block);
    // mconst0 is one field of the instruction: the integer leg's multiplier covers all partitions.
    const uint16_t multiplier = t.integer ? cptc::integer_multiplier(in.values, bits) : 0;
    const size_t ob = model::fp::dtype_bytes(t.out);
    Written w;
    double max_abs = 0, max_steps = 0;
    for (unsigned p = 0; p < parts; ++p) {
        std::vector<float> v(in.values.begin() + p * per, in.values.begin() + (p + 1) * per);
        cptc::Encoded e;
        try {
            e = cptc::encode(v, t, block, multiplier);
        } catch (const Error& x) {
            throw Error(in_path + ": partition " + std::to_string(p) + " (values " + std::to_string(p * per) + ".." + std::to_string((p + 1) * per - 1) +
                        " of the file): " + x.what());
        }
        // The error of what the kernel stores, output rounding and saturation included.
        for (uint64_t i = 0; i < per; ++i) {
            const double err = std::fabs(static_cast<double>(model::fp::to_f32(t.out, e.decoded.data() + i * ob)) - v[i]);
            max_abs = std::max(max_abs, err);
            max_steps = std::max(max_steps, err / e.steps[i]);
        }
        add(w, e);
    }
    write_out(vm, t, w, parts, per, "");
    // In steps: at most 0.5 unless a value sits beyond the top code (the fp16 rounding of the
    // scale, values of a sign the codes cannot hold) or the output type rounds or saturates it
    // (fp16's precision, the integers of INT8/UINT8).
    if (t.integer) std::printf("quantisation error: max abs %.6g, max %.4g steps of mconst0 = %u (unsigned codes)\n", max_abs, max_steps, multiplier);
    else
        std::printf("quantisation error: max abs %.6g, max %.4g steps of the block scale (%s codes, %s output)\n", max_abs, max_steps,
                    t.is_signed ? "signed" : "unsigned", dtype_text(t.out).c_str());
    return 0;
}

}  // namespace

Command cptc_command() {
    return {"cptc", "CPTC compressed tensors (encode)", [](const std::string& prog, const std::vector<std::string>& args) {
                return dispatch(prog, "The CPTC compressed-tensor format of docs/cptc-format.md.",
                                {{"encode", "quantise values into CPTC-K streams for their decode kernel", run_encode}}, args);
            }};
}

}  // namespace neuronsim::apps
