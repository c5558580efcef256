// `neuronsim cptc encode`: turn float values into a CPTC-K stream (docs/cptc-format.md).
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

std::string decimal(float x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.9g", static_cast<double>(x));
    return b;
}

// --codes: the integers are the codes; each partition's groups, without block scales.
int write_codes(const po::variables_map& vm, const std::vector<int32_t>& codes, unsigned bits, unsigned parts) {
    const std::string in_path = vm["in"].as<std::string>();
    if (codes.size() % parts) throw Error(in_path + ": " + std::to_string(codes.size()) + " values do not split evenly over " + std::to_string(parts) + " partitions");
    const uint64_t per = codes.size() / parts;
    std::vector<uint8_t> out;
    uint64_t stream = 0;
    for (unsigned p = 0; p < parts; ++p) {
        const std::vector<uint8_t> bytes = model::cptc::pack_codes(std::vector<int32_t>(codes.begin() + p * per, codes.begin() + (p + 1) * per), bits);
        stream = bytes.size();
        out.insert(out.end(), bytes.begin(), bytes.end());
    }
    model::pwp::write_bytes(vm["out"].as<std::string>(), out);
    std::printf("wrote %s: %u partitions x %llu bytes (%llu 16-byte units) of CPTC%u codes, %llu elements each\n", vm["out"].as<std::string>().c_str(), parts,
                static_cast<unsigned long long>(stream), static_cast<unsigned long long>(stream / 16), bits, static_cast<unsigned long long>(per));
    std::printf("fields: in_dtype=9 lut_dtype=0x%x block_size=%u mconst0=0x3c00 mconst1=0x0 src.num=4,%llu src.step=1,4 dst.num=%llu,1,1\n", 0x18 + bits,
                vm["block"].as<unsigned>(), static_cast<unsigned long long>(stream / 16), static_cast<unsigned long long>(per));
    return 0;
}

int run_encode(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()
        ("bits", po::value<unsigned>()->required(), "code width K, 1..7 (lut_dtype CPTC<K> = 0x18 + K)")
        ("block", po::value<unsigned>()->default_value(64), "block_size: elements per block scale, a multiple of 8")
        ("unsigned", po::bool_switch(), "unsigned codes (the kernels with an unsigned leg: values 2, 3 by default); signed otherwise")
        ("partitions", po::value<unsigned>()->default_value(128), "the values are split evenly over this many partitions")
        ("codes", po::bool_switch(), "the values are integer codes, stored as they are: no scales (mconst1=0), each must fit K bits")
        ("in", po::value<std::string>()->required(), "input values (element file: hex binary32 lines, or --format f32 / i32)")
        ("format", po::value<std::string>()->default_value("hex"), "input format: hex, f32 (raw binary32) or i32 (raw little-endian int32: an integer tensor)")
        ("out", po::value<std::string>()->required(), "output: each partition's stream, one after another");
    po::variables_map vm;
    if (parse_options(prog, "Quantises values to CPTC-K with one fp16 scale per block and writes the streams a\n"
                            "conv_lut_load decode reads (its src, 16-byte units per partition). Prints the\n"
                            "instruction fields to use and the quantisation error.",
                      opts, args, vm))
        return 0;
    const unsigned bits = vm["bits"].as<unsigned>(), block = vm["block"].as<unsigned>(), parts = vm["partitions"].as<unsigned>();
    if (bits < 1 || bits > 7) throw UsageError(prog + ": --bits must be 1..7");
    if (parts < 1 || parts > 128) throw UsageError(prog + ": --partitions must be 1..128");
    const bool is_signed = !vm["unsigned"].as<bool>();
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
    if (vm["codes"].as<bool>()) {
        const int lo = is_signed ? -(1 << (bits - 1)) : 0, hi = is_signed ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
        std::vector<int32_t> codes(in.values.size());
        for (size_t i = 0; i < codes.size(); ++i) {
            const float x = in.values[i];
            if (!(x >= static_cast<float>(lo) && x <= static_cast<float>(hi)) || x != std::floor(x))
                throw Error(model::io::element_place(in_path, ef, in, i) + ": code " + decimal(x) + " is not an integer in [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + "] (" + (is_signed ? "signed" : "unsigned") + " CPTC" + std::to_string(bits) + ")");
            codes[i] = static_cast<int32_t>(x);
        }
        return write_codes(vm, codes, bits, parts);
    }
    if (in.values.size() % parts) throw Error(in_path + ": " + std::to_string(in.values.size()) + " values do not split evenly over " + std::to_string(parts) + " partitions");
    const uint64_t per = in.values.size() / parts;
    std::vector<uint8_t> out;
    double max_abs = 0, max_steps = 0;
    uint64_t stream = 0;
    uint16_t s1 = 0;
    for (unsigned p = 0; p < parts; ++p) {
        std::vector<float> v(in.values.begin() + p * per, in.values.begin() + (p + 1) * per);
        model::cptc::Encoded e;
        try {
            e = model::cptc::encode(v, bits, block, is_signed);
        } catch (const Error& x) {
            throw Error(vm["in"].as<std::string>() + ": partition " + std::to_string(p) + " (values " + std::to_string(p * per) + ".." +
                        std::to_string((p + 1) * per - 1) + " of the file): " + x.what());
        }
        s1 = e.s1;
        stream = e.bytes.size();
        auto codes = model::cptc::unpack_codes(e.bytes.data(), per, bits, is_signed);
        for (uint64_t i = 0; i < per; ++i) {
            const float step = model::cptc::block_scale(e.bytes.data(), bits, per, block, e.s1, i);
            const double err = std::fabs(static_cast<double>(static_cast<float>(codes[i]) * step) - v[i]);
            max_abs = std::max(max_abs, err);
            max_steps = std::max(max_steps, err / step);
        }
        out.insert(out.end(), e.bytes.begin(), e.bytes.end());
    }
    model::pwp::write_bytes(vm["out"].as<std::string>(), out);
    std::printf("wrote %s: %u partitions x %llu bytes (%llu 16-byte units) of CPTC%u, %llu elements each\n", vm["out"].as<std::string>().c_str(), parts,
                static_cast<unsigned long long>(stream), static_cast<unsigned long long>(stream / 16), bits, static_cast<unsigned long long>(per));
    std::printf("fields: in_dtype=9 lut_dtype=0x%x block_size=%u mconst0=0x3c00 mconst1=0x%x src.num=4,%llu src.step=1,4 dst.num=%llu,1,1\n",
                0x18 + bits, block, s1, static_cast<unsigned long long>(stream / 16), static_cast<unsigned long long>(per));
    // In steps of the block's scale: at most 0.5 unless a value sits beyond the top code
    // (the fp16 rounding of the scale, or negatives under unsigned codes).
    std::printf("quantisation error: max abs %.6g, max %.4g steps of the block scale (%s codes)\n", max_abs, max_steps, is_signed ? "signed" : "unsigned");
    return 0;
}

}  // namespace

Command cptc_command() {
    return {"cptc", "CPTC compressed tensors (encode)", [](const std::string& prog, const std::vector<std::string>& args) {
                return dispatch(prog, "The CPTC compressed-tensor format of docs/cptc-format.md.",
                                {{"encode", "quantise values into CPTC-K streams", run_encode}}, args);
            }};
}

}  // namespace neuronsim::apps
