// `neuronsim cptc encode`: turn float values into a CPTC-K stream (docs/cptc-format.md).
#include <cmath>
#include <cstdio>

#include "apps/commands.h"
#include "model/common/error.h"
#include "model/cptc/cptc.h"
#include "model/fp/dtype.h"
#include "model/io/bits_file.h"
#include "model/pwp/packer.h"

namespace neuronsim::apps {

namespace {

int run_encode(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()
        ("bits", po::value<unsigned>()->required(), "code width K, 1..7 (lut_dtype CPTC<K> = 0x18 + K)")
        ("block", po::value<unsigned>()->default_value(64), "block_size: elements per block scale, a multiple of 8")
        ("unsigned", po::bool_switch(), "unsigned codes (the kernels with an unsigned leg: values 2, 3 by default); signed otherwise")
        ("partitions", po::value<unsigned>()->default_value(128), "the values are split evenly over this many partitions")
        ("in", po::value<std::string>()->required(), "input values (element file: hex binary32 lines, or --format f32)")
        ("format", po::value<std::string>()->default_value("hex"), "input format: hex or f32")
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
    auto in = model::io::read_elements(vm["in"].as<std::string>(), model::io::parse_element_format(vm["format"].as<std::string>()));
    if (in.values.size() % parts) throw Error(vm["in"].as<std::string>() + ": " + std::to_string(in.values.size()) + " values do not split evenly over " + std::to_string(parts) + " partitions");
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
