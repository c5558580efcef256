#include "firmware_model/pool_firmware.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "model/common/error.h"
#include "model/cptc/cptc.h"
#include "model/cptc/decode.h"
#include "model/cptc/decode_tap.h"
#include "model/fp/dtype.h"
#include "model/isa/access_pattern.h"
#include "model/isa/address.h"
#include "model/isa/layouts.h"

namespace neuronsim::firmware_model {

using model::fp::Dtype;
using namespace model::isa;

namespace {

std::string fmt(const char* f, long a, long b = 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, f, a, b);
    return buf;
}

// The legs of the six kernels (§F.5): code signedness and the output types each stores.
struct Leg {
    bool is_signed;
    std::vector<uint8_t> outs;  // accepted out_dtype codes
    bool integer;  // impl<5>: no fp ops, s0 is an integer multiplier
};

const Leg& leg(unsigned impl) {
    static const Leg legs[7] = {
        {false, {}, false},
        {true, {0x0A}, false},  // <1> SIGNED / FP32
        {false, {0x07}, false},  // <2> UNSIGNED / FP16
        {true, {0x07}, false},  // <3> SIGNED / FP16 (24-bit intermediate)
        {true, {0x07, 0x0A}, false},  // <4> MIXED-SIGN / FP16 + FP32
        {false, {0x03}, true},  // <5> UNSIGNED / INTEGER
        {true, {0x07, 0x0A, 0x02, 0x03}, false},  // <6> MIXED / WIDEST (UINT8 output decodes unsigned)
    };
    return legs[impl];
}

using model::isa::AccessPattern;
using Pattern = AccessPattern;  // the one tensor access pattern (model/isa/access_pattern.h)

Pattern make_pattern(uint64_t start, const int16_t* step, const uint16_t* num, int dims, size_t eb, const char* what) {
    return model::isa::make_access_pattern(start, step, num, dims, eb, what);
}

}  // namespace

const std::vector<KernelInfo>& extisa3_kernel_info() {
    static const std::vector<KernelInfo> t = {
        {0x7e, 0, 0x01000080, "iota"},
        {0x7c, 0, 0x010003f8, "clr arith"},
        {0x7d, 0, 0x01000410, "clr bitvec"},
        {0x45, 0, 0x01000b90, "decode_pool"},
        {0xbe, 0, 0x01000dac, "get_sequence_bounds"},
        {0xf2, 0, 0x010013f4, "nonzero"},
        {0x7b, 0, 0x01001964, "decode_tensor_dequantize"},
        {0xe4, 0, 0x01002258, "pool_conv_lut_load"},
        {0xf0, 7, 0x01003b64, "ExtendedInstCptcDecode"},
    };
    return t;
}

const std::vector<KernelInfo>& main_kernel_info() {
    static const std::vector<KernelInfo> t = {
        {0x7e, 0, 0x01000080, "iota"},
        {0x7c, 0, 0x010003f8, "cross-lane reduce arith"},
        {0x7d, 0, 0x01000410, "cross-lane reduce bitvec"},
        {0x45, 0, 0x01000b90, "decode_pool"},
        {0x51, 0, 0x0100105c, "-"},
        {0x41, 0, 0x01000f1c, "-"},
        {0xf0, 0, 0x01003370, "ExtendedInstEngineNop"},
        {0xf0, 1, 0x01003380, "ExtendedInstCopy"},
        {0xf0, 2, 0x01003484, "ExtendedInstTensorTensorArith"},
        {0xf0, 4, 0x010037a8, "RandSetState"},
        {0xf0, 3, 0x01003a60, "RandGetState"},
        {0x52, 0, 0x01003b40, "-"},
        {0x46, 0, 0x010040c0, "Copy"},
        {0x47, 0, 0x01004160, "Cast"},
        {0xbe, 0, 0x01004204, "get_sequence_bounds"},
        {0xf2, 0, 0x0100484c, "nonzero"},
        {0x7b, 0, 0x01004dc4, "tensor dequantize"},
    };
    return t;
}

bool FirmwareConfig::extisa3_staged() const {
    const char* env = std::getenv("NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE");
    return nc_version >= 3 && cptc_library && coretype_perf && (cptc_flag || env != nullptr);
}

unsigned PoolFirmware::route(unsigned value) const {
    auto it = cfg_.routing.find(value);
    return it == cfg_.routing.end() ? 0 : it->second;
}

PoolFirmware::PoolFirmware(FirmwareConfig cfg) : cfg_(std::move(cfg)) {
    // SUNDA has no 0xe4/0xf0 rows at all; EXTISA_3 only when staged.
    if (cfg_.nc_version >= 3)
        for (const auto& r : main_kernel_info()) rows_.push_back(&r);
    if (cfg_.extisa3_staged())
        for (const auto& r : extisa3_kernel_info()) rows_.push_back(&r);
}

const KernelInfo& PoolFirmware::dispatch(const Bundle& b) const {
    const uint8_t op = b.opcode();
    const uint8_t spec = op == kExtended ? b.u8(offsetof(ConvLutOp, spec)) : 0;
    // The packed-key linear scan over the staged tables.
    bool opcode_known = false;
    for (const KernelInfo* r : rows_) {
        if (r->opcode != op) continue;
        opcode_known = true;
        if (r->spec == spec) return *r;
    }
    if (op == kExtended && opcode_known) throw Error(fmt("UNKNOWN EXTENDED OPCODE=%d", spec));
    throw Error(fmt("UNKNOWN OPCODE=0x%x", op));
}

ExecResult PoolFirmware::execute(const Bundle& b, unsigned core, const SbufAccess& sbuf, uint32_t first_partition, uint32_t partition_count) {
    ExecResult r = apply(b, core, sbuf, first_partition, partition_count);
    keep(r);
    return r;
}

ExecResult PoolFirmware::apply(const Bundle& b, unsigned core, const SbufAccess& sbuf, uint32_t first_partition, uint32_t partition_count) const {
    return run(b, {core, first_partition, partition_count, &sbuf});
}

void PoolFirmware::keep(const ExecResult& r) {
    if (r.conv_lut.size() != lut_.size()) return;
    std::copy(r.conv_lut.begin(), r.conv_lut.end(), lut_.begin());
    lut_loaded_ = true;
}

ExecResult PoolFirmware::plan(const Bundle& b, unsigned core, uint32_t first_partition, uint32_t partition_count) const {
    return run(b, {core, first_partition, partition_count, nullptr});
}

ExecResult PoolFirmware::run(const Bundle& b, const Slice& slice) const {
    const unsigned core = slice.core;
    const KernelInfo* hit = &dispatch(b);
    const uint8_t op = b.opcode(), spec = hit->spec;
    const std::string role = hit->role;
    if (role == "pool_conv_lut_load") return conv_lut_load(b, slice, false);
    if (role == "ExtendedInstCptcDecode") return conv_lut_load(b, slice, true);
    if (role == "ExtendedInstEngineNop") {
        ExecResult r;
        r.kernel = role;
        r.log.push_back(fmt("P%i: ExtendedInstEngineNop : processing complete", static_cast<long>(core)));
        return r;
    }
    if (role == "ExtendedInstCopy") return ext_copy(b, slice);
    throw Error("firmware kernel " + role + " (opcode " + fmt("0x%x spec %d", op, spec) + ") is registered but not modelled");
}

void PoolFirmware::check_work(const std::string& kernel, const Slice& c, uint64_t per_partition, uint32_t end) const {
    const uint64_t parts = end > c.first ? end - c.first : 0;
    if (parts && per_partition > cfg_.max_elements / parts)
        throw Error(fmt("P%i: ", static_cast<long>(c.core)) + kernel + ": " + std::to_string(per_partition) + " elements x " + std::to_string(parts) +
                    " partitions exceed the per-instruction limit of " + std::to_string(cfg_.max_elements) + " elements");
}

ExecResult PoolFirmware::ext_copy(const Bundle& b, const Slice& c) const {
    ConvLutOp op;
    std::memcpy(&op, b.b.data(), sizeof op);
    ExecResult r;
    r.kernel = "ExtendedInstCopy";
    const Dtype dt = static_cast<Dtype>(op.in_dtype);
    const size_t eb = model::fp::dtype_bytes(dt);
    if (!eb || op.in_dtype == 0x0B) throw Error("ExtendedInstCopy: in_dtype " + model::fp::dtype_name(op.in_dtype) + " is not a copyable type");
    const uint64_t n = uint64_t{op.src.num_elem[0]} * op.src.num_elem[1];
    const uint64_t m = uint64_t{op.dst.num_elem[0]} * op.dst.num_elem[1] * op.dst.num_elem[2];
    if (n != m) throw Error("ExtendedInstCopy: src has " + std::to_string(n) + " elements, dst " + std::to_string(m));
    const uint32_t end = c.end(op.num_active_rows);
    Location s = decode_addr4(op.src.start_addr), d = decode_addr4(op.dst.start_addr);
    if (s.space != MemSpace::Sbuf || d.space != MemSpace::Sbuf) throw Error("ExtendedInstCopy: GPSIMD reaches SBUF only, not PSUM");
    check_work("ExtendedInstCopy", c, n, end);
    r.log.push_back(fmt("P%i: ExtendedInstCopy : num_tensor_elements = %d", c.core, static_cast<long>(n)));
    const Pattern sp = make_pattern(s.offset, op.src.step_elem, op.src.num_elem, 2, eb, "ExtendedInstCopy source");
    const Pattern dp = make_pattern(d.offset, op.dst.step_elem, op.dst.num_elem, 3, eb, "ExtendedInstCopy destination");
    if (n && end > c.first) {
        r.reads.push_back({MemSpace::Sbuf, s.partition + c.first, s.partition + end, sp.lo, sp.hi});
        r.writes.push_back({MemSpace::Sbuf, d.partition + c.first, d.partition + end, dp.lo, dp.hi});
    }
    for (uint32_t p = c.first; c.sbuf && cfg_.values && n && p < end; ++p) {
        const uint8_t* src = (*c.sbuf)(s.partition + p, static_cast<uint64_t>(sp.lo), sp.span());
        uint8_t* dst = (*c.sbuf)(d.partition + p, static_cast<uint64_t>(dp.lo), dp.span());
        // Element by element in order, as the kernel walks (overlapping patterns behave alike).
        Pattern::Cursor from(sp), to(dp);
        for (uint64_t k = 0; k < n; ++k) std::memmove(dst + to.next(), src + from.next(), eb);
    }
    r.partitions = end > c.first ? end - c.first : 0;
    r.bytes_per_partition = n * eb;
    return r;
}

ExecResult PoolFirmware::conv_lut_load(const Bundle& b, const Slice& c, bool extended) const {
    ConvLutOp op;
    std::memcpy(&op, b.b.data(), sizeof op);
    ExecResult r;
    const long P = static_cast<long>(c.core);
    const bool is_cptc = op.lut_dtype != 0 && op.lut_dtype != 0x0A;  // FP32 is the unspecified default
    if (!is_cptc && !extended) {
        // The legacy PE conversion-LUT load: 16 UINT16 entries.
        r.kernel = "pool_conv_lut_load (legacy LUT)";
        if (op.in_dtype != 0x05) throw Error(fmt("P%i: legacy conversion LUT load needs in_dtype UINT16, got 0x%x", P, op.in_dtype));
        if (op.src.num_elem[0] != 16) throw Error(fmt("P%i: legacy conversion LUT load needs 16 source elements, got %d", P, op.src.num_elem[0]));
        Location s = decode_addr4(op.src.start_addr);
        if (s.space != MemSpace::Sbuf) throw Error("pool_conv_lut_load: GPSIMD reaches SBUF only, not PSUM");
        // (every entry's place checked before one is read: plan() reads none)
        int64_t off[16];
        for (unsigned i = 0; i < 16; ++i) {
            off[i] = static_cast<int64_t>(s.offset) + op.src.step_elem[0] * static_cast<int64_t>(i) * 2;
            if (off[i] < 0) throw Error("pool_conv_lut_load: the source pattern reaches below offset 0");
        }
        r.reads.push_back({MemSpace::Sbuf, s.partition, s.partition + 1, *std::min_element(off, off + 16), *std::max_element(off, off + 16) + 2});
        for (unsigned i = 0; c.sbuf && i < 16; ++i) {
            const uint8_t* e = (*c.sbuf)(s.partition, static_cast<uint64_t>(off[i]), 2);
            r.conv_lut.push_back(static_cast<uint16_t>(e[0] | e[1] << 8));
        }
        return r;
    }
    if (extended) r.log.push_back(fmt("P%i: Decode : ExtendedInstCptcDecode : num_active_chans = %d", P, op.num_active_rows));
    // Validators of the S2_CONVLUT struct (§F.3).
    // valid_nc = is_cptc && NeuronCoreVersion >= V3 (0xf0 spec 7 reaches here whatever lut_dtype says).
    if (!is_cptc) throw Error(fmt("P%i: CPTC decode needs a CPTC lut_dtype (is_cptc: not INVALID, not FP32), got 0x%x", P, op.lut_dtype));
    if (cfg_.nc_version < 3) throw Error("CPTC decode needs NeuronCore version V3 or later");
    if (op.block_size == 0 || op.block_size % 8) throw Error(fmt("P%i: CPTC block_size %d is not a non-zero multiple of 8", P, op.block_size));
    if (op.in_dtype != 0x09) throw Error(fmt("P%i: Error, unsupported in_dtype for cptc_decode : 0x%x", P, op.in_dtype));
    if (op.num_active_rows != 128 || op.num_active_cols != 128)
        throw Error(fmt("P%i: CPTC decode needs num_active_rows and num_active_cols 128, got %d", P,
                        op.num_active_rows == 128 ? op.num_active_cols : op.num_active_rows));
    if (op.row_grp != 0xf || op.col_grp != 0xf)
        throw Error(fmt("P%i: CPTC decode needs row_grp and col_grp 0xf (all groups), got 0x%x", P, op.row_grp != 0xf ? op.row_grp : op.col_grp));
    if (op.src.num_elem[0] != 4) throw Error(fmt("P%i: CPTC source rows are 4 UINT32 (one 16-byte unit), got %d", P, op.src.num_elem[0]));
    // The six-arm ladder on the 3-bit value.
    const unsigned value = op.lut_dtype & 7u;
    const unsigned impl = route(value);
    if (impl < 1 || impl > 6)
        throw Error(fmt("P%i: no cptc_decode_impl for CPTC value %d", P, value) + " (lut_dtype " + model::fp::dtype_name(op.lut_dtype) + ")");
    // The odd kernels re-check the value they serve; the even ones do not.
    static const unsigned guard[7] = {0, 1, 0, 4, 0, 3, 0};
    if (guard[impl] && guard[impl] != value)
        throw Error(fmt("P%i: cptc_decode_impl<%d> rejects CPTC value ", P, impl) + std::to_string(value) + " (it serves " + std::to_string(guard[impl]) + ")");
    const Leg& lg = leg(impl);
    bool out_ok = false;
    for (uint8_t o : lg.outs) out_ok |= o == op.out_dtype;
    if (!out_ok) throw Error(fmt("P%i: Error, unsupported out_dtype for cptc_decode : 0x%x", P, op.out_dtype));
    const unsigned bits = value;
    const Dtype out = static_cast<Dtype>(op.out_dtype);
    const bool is_signed = lg.is_signed && op.out_dtype != 0x03;
    const uint64_t elements = uint64_t{op.dst.num_elem[0]} * op.dst.num_elem[1] * op.dst.num_elem[2];
    const uint16_t s0 = op.multiplicative_const[0], s1 = op.multiplicative_const[1];
    const uint64_t need = model::cptc::stream_bytes(bits, elements, op.block_size, s1 & model::cptc::kFormatBlockScales);
    const uint64_t have = uint64_t{op.src.num_elem[1]} * 16;
    if (have < need)
        throw Error(fmt("P%i: CPTC source holds %d bytes per partition, ", P, static_cast<long>(have)) + std::to_string(elements) + " CPTC" +
                    std::to_string(bits) + " elements need " + std::to_string(need));
    Location s = decode_addr4(op.src.start_addr), d = decode_addr4(op.dst.start_addr);
    if (s.space != MemSpace::Sbuf || d.space != MemSpace::Sbuf) throw Error("cptc_decode: GPSIMD reaches SBUF only, not PSUM");
    if (op.src.step_elem[0] != 1 || op.src.step_elem[1] != 4) throw Error("cptc_decode: the source must be contiguous units (src.step=1,4)");
    const uint32_t end = c.end(op.num_active_rows);
    check_work("cptc_decode_impl<" + std::to_string(impl) + ">", c, elements, end);
    const size_t ob = model::fp::dtype_bytes(out);
    const Pattern dp = make_pattern(d.offset, op.dst.step_elem, op.dst.num_elem, 3, ob, "cptc_decode destination");
    const uint64_t blocks = (elements + op.block_size - 1) / op.block_size;
    model::cptc::DecodeParams dpar;
    dpar.bits = bits;
    dpar.is_signed = is_signed;
    dpar.integer = lg.integer;
    dpar.out = out;
    dpar.s0 = s0;
    dpar.s1 = s1;
    dpar.block_size = op.block_size;
    dpar.elements = elements;
    // Element order is the destination's byte order when the pattern is the plain row: the
    // decode writes SBUF directly; otherwise through a buffer and the pattern.
    const bool contiguous = dp.start == dp.lo && dp.span() == elements * ob && dp.step[0] == static_cast<int64_t>(ob) &&
                            (dp.num[1] <= 1 || dp.step[1] == static_cast<int64_t>(dp.num[0] * ob)) &&
                            (dp.num[2] <= 1 || dp.step[2] == static_cast<int64_t>(uint64_t{dp.num[0]} * dp.num[1] * ob));
    std::vector<uint8_t> buffer(contiguous || !c.sbuf || !cfg_.values ? 0 : elements * ob);
    if (end > c.first) {
        r.reads.push_back({MemSpace::Sbuf, s.partition + c.first, s.partition + end, static_cast<int64_t>(s.offset), static_cast<int64_t>(s.offset + need)});
        if (elements) r.writes.push_back({MemSpace::Sbuf, d.partition + c.first, d.partition + end, dp.lo, dp.hi});
    }
    for (uint32_t p = c.first; c.sbuf && cfg_.values && p < end; ++p) {
        const uint8_t* stream = (*c.sbuf)(s.partition + p, s.offset, need);
        if (!elements) continue;
        uint8_t* base = (*c.sbuf)(d.partition + p, static_cast<uint64_t>(dp.lo), dp.span());
        uint8_t* to_bytes = contiguous ? base : buffer.data();
        if (cfg_.reference_decode) model::cptc::decode_reference(dpar, stream, to_bytes);
        else {
            if (model::cptc::DecodeTap* tap = model::cptc::decode_tap()) tap->decode(dpar, stream, need);
            model::cptc::decode_fast(dpar, stream, to_bytes);
        }
        if (contiguous) continue;
        Pattern::Cursor to(dp);
        for (uint64_t k = 0; k < elements; ++k) std::memcpy(base + to.next(), buffer.data() + k * ob, ob);
    }
    r.kernel = "cptc_decode_impl<" + std::to_string(impl) + ">";
    r.impl = impl;
    r.scale_bytes = !lg.integer && (s1 & model::cptc::kFormatBlockScales) ? 2 * blocks : 0;  // the integer leg has no float scales
    r.bits = bits;
    r.elements = elements;
    r.groups = (elements + model::cptc::kGroup - 1) / model::cptc::kGroup;
    r.partitions = end > c.first ? end - c.first : 0;
    return r;
}

}  // namespace neuronsim::firmware_model
