#include "model/isa/opcodes.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "model/common/error.h"
#include "model/common/words.h"
#include "model/fp/bits.h"
#include "model/isa/address.h"
#include "model/isa/field_names.h"
#include "model/isa/layouts.h"

namespace neuronsim::model::isa {

using namespace std::string_view_literals;  // word == "lit"sv: sizes compared first, no strlen per line

namespace {

#define OFF(type, member) static_cast<uint16_t>(offsetof(type, member))

std::vector<Field> tensor(const std::string& name, uint16_t off, int dims) {
    if (dims == 1)
        return {{name, off, FieldKind::Addr4},
                {name + ".step", static_cast<uint16_t>(off + 4), FieldKind::I16x, 1},
                {name + ".num", static_cast<uint16_t>(off + 6), FieldKind::U16x, 1}};
    return {{name, off, FieldKind::Addr4},
            {name + ".step", static_cast<uint16_t>(off + 4), FieldKind::I16x, static_cast<uint8_t>(dims)},
            {name + ".num", static_cast<uint16_t>(off + 4 + 2 * dims), FieldKind::U16x, static_cast<uint8_t>(dims)}};
}

std::vector<Field> cat(std::vector<Field> a, const std::vector<Field>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

std::vector<OpcodeInfo> build() {
    std::vector<OpcodeInfo> t;
    t.push_back({kActivate, "activate", kOnAct, "out = f(scale*in + bias) over a TENSOR3D (S3D3_AC)",
                 cat(cat({{"imm_src", OFF(ActivateOp, imm_src), FieldKind::U8},
                          {"scale_src", OFF(ActivateOp, scale_src), FieldKind::U8},
                          {"accumulator_cmd", OFF(ActivateOp, accumulator_cmd), FieldKind::U8},
                          {"bias_src_n", OFF(ActivateOp, bias_src_n), FieldKind::U8}},
                         tensor("src", OFF(ActivateOp, src), 3)),
                     cat({{"in_bias_dtype", OFF(ActivateOp, in_bias_dtype), FieldKind::U8},
                          {"out_dtype", OFF(ActivateOp, out_dtype), FieldKind::U8},
                          {"num_active_channels", OFF(ActivateOp, num_active_channels), FieldKind::U8},
                          {"func", OFF(ActivateOp, activation_func), FieldKind::U8},
                          {"scale", OFF(ActivateOp, scale_value), FieldKind::F32},
                          {"bias", OFF(ActivateOp, bias), FieldKind::F32},
                          {"imm", OFF(ActivateOp, imm), FieldKind::F32}},
                         tensor("dst", OFF(ActivateOp, dst), 3)))});
    t.push_back({kActivateQuantize, "activate_quantize", kOnAct, "requantising activation to UINT8 (S3D3_AQ)",
                 cat(cat({{"quant_scale", OFF(ActivateQuantizeOp, quant_scale_value), FieldKind::F32}}, tensor("src", OFF(ActivateQuantizeOp, src), 3)),
                     cat({{"in_bias_dtype", OFF(ActivateQuantizeOp, in_bias_dtype), FieldKind::U8},
                          {"out_dtype", OFF(ActivateQuantizeOp, out_dtype), FieldKind::U8},
                          {"num_active_channels", OFF(ActivateQuantizeOp, num_active_channels), FieldKind::U8},
                          {"func", OFF(ActivateQuantizeOp, activation_func), FieldKind::U8},
                          {"dequant_scale", OFF(ActivateQuantizeOp, dequant_scale_value), FieldKind::F32},
                          {"bias_addr", OFF(ActivateQuantizeOp, bias_addr), FieldKind::Addr4},
                          {"quant_zero", OFF(ActivateQuantizeOp, quant_zero_value), FieldKind::F32}},
                         tensor("dst", OFF(ActivateQuantizeOp, dst), 3)))});
    t.push_back({kTableLoad,
                 "load_act_func_set",
                 kOnAct,
                 "LoadActFuncSet: DMA a function set into table memory (CTRL_NO, set at +0x23)",
                 {{"set", OFF(TableLoadOp, act_tbl_sel), FieldKind::U8}}});
    t.push_back({kReadAccumulator, "read_accumulator", kOnAct, "drain the per-partition accumulator (D1_RD)",
                 cat({{"count", OFF(ReadAccumulatorOp, dst_element_count), FieldKind::U32},
                      {"dtype", OFF(ReadAccumulatorOp, dtype), FieldKind::U8},
                      {"negated", OFF(ReadAccumulatorOp, negated), FieldKind::U8},
                      {"num_active_channels", OFF(ReadAccumulatorOp, num_active_channels), FieldKind::U8}},
                     tensor("dst", OFF(ReadAccumulatorOp, dst), 1))});
    t.push_back({kActivate2, "activate2", kOnAct, "dual ALU, function, reduction (S2D2_AC, v4+)",
                 cat(cat(tensor("src", OFF(Activate2Op, src), 2), {{"relu_param_src", OFF(Activate2Op, relu_param_src), FieldKind::U8},
                                                                   {"reduce_cmd", OFF(Activate2Op, reduce_cmd), FieldKind::U8},
                                                                   {"op0", OFF(Activate2Op, op0), FieldKind::U8},
                                                                   {"op1", OFF(Activate2Op, op1), FieldKind::U8},
                                                                   {"reduce_op", OFF(Activate2Op, reduce_op), FieldKind::U8},
                                                                   {"in_dtype", OFF(Activate2Op, in_dtype), FieldKind::U8},
                                                                   {"out_dtype", OFF(Activate2Op, out_dtype), FieldKind::U8},
                                                                   {"num_active_channels", OFF(Activate2Op, num_active_channels), FieldKind::U8},
                                                                   {"func", OFF(Activate2Op, activation_func), FieldKind::U8},
                                                                   {"imm0", OFF(Activate2Op, imm0), FieldKind::F32},
                                                                   {"imm1", OFF(Activate2Op, imm1), FieldKind::F32},
                                                                   {"relu_param", OFF(Activate2Op, relu_param), FieldKind::F32}}),
                     tensor("dst", OFF(Activate2Op, dst), 2))});
    auto convlut = [&](std::vector<Field> head) {
        return cat(cat(head, tensor("src", OFF(ConvLutOp, src), 2)),
                   cat({{"in_dtype", OFF(ConvLutOp, in_dtype), FieldKind::U8},
                        {"out_dtype", OFF(ConvLutOp, out_dtype), FieldKind::U8},
                        {"num_active_rows", OFF(ConvLutOp, num_active_rows), FieldKind::U8},
                        {"num_active_cols", OFF(ConvLutOp, num_active_cols), FieldKind::U8},
                        {"mconst0", OFF(ConvLutOp, multiplicative_const), FieldKind::U16},
                        {"mconst1", static_cast<uint16_t>(OFF(ConvLutOp, multiplicative_const) + 2), FieldKind::U16},
                        {"row_grp", OFF(ConvLutOp, row_grp), FieldKind::U8},
                        {"col_grp", OFF(ConvLutOp, col_grp), FieldKind::U8},
                        {"block_size", OFF(ConvLutOp, block_size), FieldKind::U8},
                        {"lut_dtype", OFF(ConvLutOp, lut_dtype), FieldKind::U8}},
                       tensor("dst", OFF(ConvLutOp, dst), 3)));
    };
    t.push_back({kConvLutLoad, "conv_lut_load", kOnPool, "ConvLutLoad: legacy PE LUT load, or CPTC decode when lut_dtype is CPTC (S2_CONVLUT)", convlut({})});
    t.push_back({kExtended, "ext", kOnPool, "extended opcode: spec 0 Nop, 1 Copy, 7 CPTC decode (ExtendedInstCptcDecode)",
                 convlut({{"spec", OFF(ConvLutOp, spec), FieldKind::U8}})});
    // VectorE (docs/vector-engine.md; layouts.h: neuronsim's byte layouts).
    auto dve_unary = [&](std::vector<Field> head, bool src, bool imms) {
        std::vector<Field> f = head;
        if (src) f = cat(f, tensor("src", OFF(DveUnaryOp, src), 2));
        f = cat(f, tensor("dst", OFF(DveUnaryOp, dst), 2));
        if (imms)
            f = cat(f, {{"imm0", OFF(DveUnaryOp, imm0), FieldKind::U32},
                        {"imm1", OFF(DveUnaryOp, imm1), FieldKind::U32},
                        {"imm2", OFF(DveUnaryOp, imm2), FieldKind::U32}});
        if (src) f.push_back({"in_dtype", OFF(DveUnaryOp, in_dtype), FieldKind::U8});
        return cat(f, {{"out_dtype", OFF(DveUnaryOp, out_dtype), FieldKind::U8}, {"num_active_channels", OFF(DveUnaryOp, num_active_channels), FieldKind::U8}});
    };
    t.push_back(
        {kDveTensorTensor, "tensor_tensor", kOnDve, "VectorE: dst = src0 <op> src1, elementwise (TENSOR2D operands)",
         cat(cat({{"op", OFF(DveTensorTensorOp, op), FieldKind::U8},
                  {"in0_dtype", OFF(DveTensorTensorOp, in0_dtype), FieldKind::U8},
                  {"in1_dtype", OFF(DveTensorTensorOp, in1_dtype), FieldKind::U8},
                  {"out_dtype", OFF(DveTensorTensorOp, out_dtype), FieldKind::U8}},
                 cat(tensor("src0", OFF(DveTensorTensorOp, src0), 2), tensor("src1", OFF(DveTensorTensorOp, src1), 2))),
             cat(tensor("dst", OFF(DveTensorTensorOp, dst), 2), {{"num_active_channels", OFF(DveTensorTensorOp, num_active_channels), FieldKind::U8}}))});
    t.push_back({kDveTensorScalar, "tensor_scalar", kOnDve, "VectorE: dst = (src <op0> operand0) <op1> operand1; an operand is imm* or one value per partition",
                 cat(cat({{"op0", OFF(DveTensorScalarOp, op0), FieldKind::U8},
                          {"op1", OFF(DveTensorScalarOp, op1), FieldKind::U8},
                          {"reverse0", OFF(DveTensorScalarOp, reverse0), FieldKind::U8},
                          {"reverse1", OFF(DveTensorScalarOp, reverse1), FieldKind::U8}},
                         cat(tensor("src", OFF(DveTensorScalarOp, src), 2), tensor("dst", OFF(DveTensorScalarOp, dst), 2))),
                     {{"imm0", OFF(DveTensorScalarOp, imm0), FieldKind::F32},
                      {"imm1", OFF(DveTensorScalarOp, imm1), FieldKind::F32},
                      {"operand0", OFF(DveTensorScalarOp, operand0_addr), FieldKind::Addr4},
                      {"operand1", OFF(DveTensorScalarOp, operand1_addr), FieldKind::Addr4},
                      {"in_dtype", OFF(DveTensorScalarOp, in_dtype), FieldKind::U8},
                      {"out_dtype", OFF(DveTensorScalarOp, out_dtype), FieldKind::U8},
                      {"operand_dtype", OFF(DveTensorScalarOp, operand_dtype), FieldKind::U8},
                      {"num_active_channels", OFF(DveTensorScalarOp, num_active_channels), FieldKind::U8},
                      {"operand0_src", OFF(DveTensorScalarOp, operand0_src), FieldKind::U8},
                      {"operand1_src", OFF(DveTensorScalarOp, operand1_src), FieldKind::U8}})});
    t.push_back({kDveTensorReduce, "tensor_reduce", kOnDve, "VectorE: dst[p] = reduce_op over src's free elements, in element order (negate: of the result)",
                 dve_unary({{"reduce_op", OFF(DveUnaryOp, reduce_op), FieldKind::U8}, {"negate", OFF(DveUnaryOp, negate), FieldKind::U8}}, true, false)});
    t.push_back({kDveTensorCopy, "tensor_copy", kOnDve, "VectorE: dst = src, converted between element types", dve_unary({}, true, false)});
    t.push_back({kDveMemset, "memset", kOnDve, "VectorE: every dst element = imm0 (an fp32 bit pattern: value=)",
                 dve_unary({{"value", OFF(DveUnaryOp, imm0), FieldKind::F32}}, false, false)});
    t.push_back({kDveIota, "iota", kOnDve, "VectorE: dst[p][i] = base + p * partition_step + i * step (int32 fields)",
                 dve_unary({{"base", OFF(DveUnaryOp, imm0), FieldKind::U32},
                            {"partition_step", OFF(DveUnaryOp, imm1), FieldKind::U32},
                            {"step", OFF(DveUnaryOp, imm2), FieldKind::U32}},
                           false, false)});
    t.push_back({kDveReciprocal, "reciprocal", kOnDve, "VectorE: dst = 1 / src (IEEE division)", dve_unary({}, true, false)});
    t.push_back({kDveTranspose, "transpose", kOnDve, "VectorE: dst[j][p] = src[p][j], a block of at most 32 x 32", dve_unary({}, true, false)});
    t.push_back(
        {kDveBnStats, "bn_stats", kOnDve, "VectorE: dst[p] = (count, mean, M2) of src's even, then odd elements (at most 512)", dve_unary({}, true, false)});
    t.push_back({kDveBnAggr, "bn_aggr", kOnDve, "VectorE: dst[p] = (mean, variance) of src's (count, mean, M2) triples", dve_unary({}, true, false)});
    // TensorE (docs/tensor-engine.md).
    t.push_back({kPeLoadStationary, "load_stationary", kOnPe, "TensorE: hold src (K partitions x M <= 128 elements) as the stationary tile",
                 cat({{"in_dtype", OFF(PeLoadStationaryOp, in_dtype), FieldKind::U8},
                      {"num_active_channels", OFF(PeLoadStationaryOp, num_active_channels), FieldKind::U8}},
                     tensor("src", OFF(PeLoadStationaryOp, src), 2))});
    t.push_back({kPeMatmul, "matmul", kOnPe, "TensorE: dst (M PSUM partitions x N fp32) (+)= stationary^T x moving (K x N <= 512); start 1 begins the group",
                 cat(cat({{"in_dtype", OFF(PeMatmulOp, in_dtype), FieldKind::U8},
                          {"num_active_channels", OFF(PeMatmulOp, num_active_channels), FieldKind::U8},
                          {"start", OFF(PeMatmulOp, start), FieldKind::U8},
                          {"mx", OFF(PeMatmulOp, mx), FieldKind::U8}},
                         tensor("moving", OFF(PeMatmulOp, moving), 2)),
                     tensor("dst", OFF(PeMatmulOp, dst), 2))});
    t.push_back({kSync, "sync", kOnAll, "semaphore wait and/or update only (EventSemaphore)", {}});
    t.push_back({kHalt, "halt", kOnAll, "end of this engine's stream (the rest is not executed)", {}});
    t.push_back({kDmaCopy,
                 "copy",
                 kOnAct | kOnPool | kOnDma,  // (VectorE triggers no DMA here)
                 "DMA copy of `partitions` rows of `bytes` (neuronsim's descriptor); on act/pool a DGE trigger",
                 {{"src", OFF(DmaCopyOp, src_space), FieldKind::SpaceAddr, 1, OFF(DmaCopyOp, src_addr)},
                  {"dst", OFF(DmaCopyOp, dst_space), FieldKind::SpaceAddr, 1, OFF(DmaCopyOp, dst_addr)},
                  {"partitions", OFF(DmaCopyOp, partitions), FieldKind::U16},
                  {"bytes", OFF(DmaCopyOp, bytes), FieldKind::U32},
                  {"src_stride", OFF(DmaCopyOp, src_row_stride), FieldKind::U32},
                  {"dst_stride", OFF(DmaCopyOp, dst_row_stride), FieldKind::U32}}});
    return t;
}

bool parse_u64(const std::string& s, uint64_t& out) {
    if (s.empty() || s[0] == '-' || s[0] == '+') return false;
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(s.c_str(), &end, 0);
    if (errno || end != s.c_str() + s.size()) return false;
    out = v;
    return true;
}

bool parse_i64(const std::string& s, int64_t& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(s.c_str(), &end, 0);
    if (errno || end != s.c_str() + s.size()) return false;
    out = v;
    return true;
}

std::vector<std::string> split(const std::string& s, char c) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string p; std::getline(ss, p, c);) out.push_back(p);
    if (!s.empty() && s.back() == c) out.push_back("");
    return out;
}

uint64_t unsigned_value(const std::string& field, const std::string& v, uint64_t max) {
    uint64_t u;
    if (!parse_u64(v, u) || u > max) throw Error(field + "=" + v + ": expected an integer in [0, " + std::to_string(max) + "]");
    return u;
}

// A byte field: a number, or a name of its values (field_names.h).
uint8_t u8_value(const std::string& field, const std::string& v) {
    uint64_t u;
    if (parse_u64(v, u) && u <= 0xFF) return static_cast<uint8_t>(u);
    if (field_has_names(field)) {
        if (const auto code = field_code(field, v)) return *code;
        throw Error(field + "=" + v + ": expected an integer in [0, 255] or one of " + field_names_list(field));
    }
    return static_cast<uint8_t>(unsigned_value(field, v, 0xFF));
}

// "sbuf:P:OFF", "psum:P:OFF", "dram:ADDR"
Location parse_location(const std::string& field, const std::string& v) {
    auto parts = split(v, ':');
    Location l;
    if (parts.size() == 2 && parts[0] == "dram"sv) {
        l.space = MemSpace::Dram;
        l.offset = unsigned_value(field, parts[1], UINT64_MAX);
        return l;
    }
    if (parts.size() == 3 && (parts[0] == "sbuf"sv || parts[0] == "psum"sv)) {
        l.space = parts[0] == "sbuf"sv ? MemSpace::Sbuf : MemSpace::Psum;
        l.partition = static_cast<uint32_t>(unsigned_value(field + " partition", parts[1], 127));
        l.offset = unsigned_value(field + " offset", parts[2], UINT32_MAX);
        return l;
    }
    throw Error(field + "=" + v + ": expected dram:ADDR, sbuf:PARTITION:OFFSET or psum:PARTITION:OFFSET");
}

void parse_events(const std::string& key, const std::string& v, Events& e) {
    auto num = [&](const std::string& s, uint64_t max) { return unsigned_value(key, s, max); };
    if (key == "wait"sv) {
        size_t p;
        if ((p = v.find(">=")) != std::string::npos) e.wait = WaitMode::Ge;
        else if ((p = v.find("==")) != std::string::npos) e.wait = WaitMode::Eq;
        else throw Error("wait=" + v + ": expected SEM>=VALUE or SEM==VALUE");
        e.wait_idx = static_cast<uint8_t>(num(v.substr(0, p), 255));
        uint32_t val = static_cast<uint32_t>(num(v.substr(p + 2), UINT32_MAX));
        if (e.update == UpdateMode::Set && e.value != val)
            throw Error("wait=" + v + ": a set update shares the EVENTS value with the wait (" + std::to_string(e.value) + ")");
        e.value = val;
        return;
    }
    // update=SEM+1 | SEM-1 | SEM=VALUE
    size_t p = v.find_first_of("+-=");
    if (p == std::string::npos || p == 0) throw Error("update=" + v + ": expected SEM+1, SEM-1 or SEM=VALUE");
    e.update_idx = static_cast<uint8_t>(num(v.substr(0, p), 255));
    std::string rest = v.substr(p);
    if (rest == "+1"sv) e.update = UpdateMode::Inc;
    else if (rest == "-1"sv) e.update = UpdateMode::Dec;
    else if (rest[0] == '=') {
        e.update = UpdateMode::Set;
        uint32_t val = static_cast<uint32_t>(num(rest.substr(1), UINT32_MAX));
        if (e.wait != WaitMode::None && e.value != val)
            throw Error("update=" + v + ": a set update shares the EVENTS value with the wait (" + std::to_string(e.value) + ")");
        e.value = val;
    } else throw Error("update=" + v + ": expected SEM+1, SEM-1 or SEM=VALUE");
}

}  // namespace

const std::vector<OpcodeInfo>& opcode_table() {
    static const std::vector<OpcodeInfo> t = build();
    return t;
}

const OpcodeInfo* find_opcode(uint8_t opcode) {
    for (const auto& o : opcode_table())
        if (o.opcode == opcode) return &o;
    return nullptr;
}

const OpcodeInfo* find_mnemonic(const std::string& m) {
    // Once per assembled instruction: a hash lookup, built on first use.
    static const std::unordered_map<std::string, const OpcodeInfo*> by_name = [] {
        std::unordered_map<std::string, const OpcodeInfo*> t;
        for (const auto& o : opcode_table()) t.emplace(o.mnemonic, &o);  // the first of a name, as the scan found
        return t;
    }();
    auto it = by_name.find(m);
    return it == by_name.end() ? nullptr : it->second;
}

StreamName parse_stream_name(const std::string& e) {
    StreamName n;
    if (e == "act"sv) n.cls = kOnAct;
    else if (e == "pool"sv) n.cls = kOnPool;
    else if (e == "dve"sv) n.cls = kOnDve;
    else if (e == "pe"sv) n.cls = kOnPe;
    else if (e.rfind("dma", 0) == 0) {
        const auto dot = e.find('.');
        const std::string eng = e.substr(3, dot == std::string::npos ? std::string::npos : dot - 3);
        const std::string q = dot == std::string::npos ? "0" : e.substr(dot + 1);
        uint64_t ev = 0, qv = 0;
        const bool spread = eng.empty();
        if (q.empty() || (!spread && eng.find_first_not_of("0123456789") != std::string::npos) || q.find_first_not_of("0123456789") != std::string::npos ||
            eng.size() > 6 || q.size() > 6 || (!spread && !parse_u64(eng, ev)) || !parse_u64(q, qv))
            return n;
        n.cls = kOnDma;
        n.spread = spread;
        n.dma_engine = static_cast<uint32_t>(ev);
        n.dma_queue = static_cast<uint32_t>(qv);
    }
    return n;
}

const Field* find_field(const OpcodeInfo& op, const std::string& name) {
    for (const Field& f : op.fields)
        if (f.name == name) return &f;
    return nullptr;
}

std::optional<uint64_t> field_value(const OpcodeInfo& op, const Bundle& b, const std::string& name) {
    const Field* f = find_field(op, name);
    if (!f) return std::nullopt;
    switch (f->kind) {
        case FieldKind::U8: return b.u8(f->offset);
        case FieldKind::U16: return b.u16(f->offset);
        case FieldKind::U32:
        case FieldKind::Addr4: return b.u32(f->offset);
        case FieldKind::U64: return b.u64(f->offset);
        default: return std::nullopt;
    }
}

std::optional<TensorOperand> tensor_operand(const OpcodeInfo& op, const Bundle& b, const std::string& name) {
    const Field* at = find_field(op, name);
    const Field* step = find_field(op, name + ".step");
    const Field* num = find_field(op, name + ".num");
    if (!at || !step || !num || at->kind != FieldKind::Addr4 || step->count != num->count || step->count > 3) return std::nullopt;
    TensorOperand t;
    t.addr4 = b.u32(at->offset);
    t.dims = step->count;
    for (int i = 0; i < t.dims; ++i) {
        t.step[i] = static_cast<int16_t>(b.u16(step->offset + 2 * size_t(i)));
        t.num[i] = b.u16(num->offset + 2 * size_t(i));
    }
    return t;
}

bool is_activation(const OpcodeInfo& op) { return (op.engines & kOnAct) && find_field(op, "src") && find_field(op, "dst") && find_field(op, "func"); }

uint32_t engine_class(const std::string& e) { return parse_stream_name(e).cls; }

Bundle assemble(const std::string& engine, const std::string& mnemonic, const std::vector<std::string>& fields) {
    const uint32_t cls = engine_class(engine);
    if (!cls) throw Error("unknown engine '" + engine + "' (expected act, pool, dma<E>, dma<E>.<Q>, dma or dma.<Q>)");
    Bundle b;
    Events ev;
    bool raw = false;
    const OpcodeInfo* info = nullptr;
    if (mnemonic != "raw"sv) {
        info = find_mnemonic(mnemonic);
        if (!info) throw Error("unknown mnemonic '" + mnemonic + "'");
        if (!(info->engines & cls)) throw Error("'" + mnemonic + "' does not run on engine " + engine);
        b = make_bundle(info->opcode);
    }
    uint8_t raw_events[8] = {};
    bool have_raw_events = false;
    for (size_t fi = 0; fi < fields.size(); ++fi) {
        const std::string& kv = fields[fi];
        auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) throw Error("expected key=value, got '" + kv + "'");
        const std::string key = kv.substr(0, eq), val = kv.substr(eq + 1);
        // Given twice: an earlier field with the same key (a handful of fields: no set needed).
        for (size_t pi = 0; pi < fi; ++pi)
            if (fields[pi].size() > eq && fields[pi][eq] == '=' && fields[pi].compare(0, eq, key) == 0) throw Error("field '" + key + "' given twice");
        if (key == "raw"sv) {
            if (mnemonic != "raw"sv) throw Error("raw= goes with the mnemonic 'raw'");
            if (val.size() != 128) throw Error("raw=: expected 128 hex digits (64 bytes), got " + std::to_string(val.size()));
            for (size_t i = 0; i < 64; ++i) {
                uint32_t byte;
                if (!fp::parse_hex8("000000" + val.substr(2 * i, 2), byte)) throw Error("raw=: not hex at digit " + std::to_string(2 * i));
                b.b[i] = static_cast<uint8_t>(byte);
            }
            raw = true;
            continue;
        }
        if (key == "wait"sv || key == "update"sv) {
            parse_events(key, val, ev);
            continue;
        }
        if (key == "events"sv) {  // the 8 EVENTS bytes as they are, for what wait=/update= cannot say
            if (val.size() != 16) throw Error("events=: expected 16 hex digits (bytes 4..11), got " + std::to_string(val.size()));
            for (size_t i = 0; i < 8; ++i) {
                uint32_t byte;
                if (!fp::parse_hex8("000000" + val.substr(2 * i, 2), byte)) throw Error("events=: not hex at digit " + std::to_string(2 * i));
                raw_events[i] = static_cast<uint8_t>(byte);
            }
            have_raw_events = true;
            continue;
        }
        if (!info) throw Error("field '" + key + "' needs a mnemonic (raw takes only raw=)");
        const Field* f = nullptr;
        for (const Field& x : info->fields)
            if (x.name == key) f = &x;
        if (!f) {
            std::string names;
            for (const Field& x : info->fields) names += (names.empty() ? "" : ", ") + x.name;
            throw Error("'" + mnemonic + "' has no field '" + key + "' (fields: " + (names.empty() ? "none" : names) + ", wait, update)");
        }
        switch (f->kind) {
            case FieldKind::U8: b.set_u8(f->offset, u8_value(key, val)); break;
            case FieldKind::U16: b.set_u16(f->offset, static_cast<uint16_t>(unsigned_value(key, val, 0xFFFF))); break;
            case FieldKind::U32: b.set_u32(f->offset, static_cast<uint32_t>(unsigned_value(key, val, UINT32_MAX))); break;
            case FieldKind::U64: b.set_u64(f->offset, unsigned_value(key, val, UINT64_MAX)); break;
            case FieldKind::F32: {
                // The ACTIVATION_IMM union: a float, or (with a pointer/register source) an
                // SBUF/PSUM location or a register number.
                if (val.rfind("sbuf:", 0) == 0 || val.rfind("psum:", 0) == 0) {
                    Location l = parse_location(key, val);
                    try {
                        b.set_u32(f->offset, encode_addr4(l.space, l.partition, static_cast<uint32_t>(l.offset)));
                    } catch (const Error& e) {
                        throw Error(key + "=" + val + ": " + e.what());
                    }
                    break;
                }
                if (val.rfind("reg:", 0) == 0) {
                    b.set_u32(f->offset, static_cast<uint32_t>(unsigned_value(key, val.substr(4), 255)));
                    break;
                }
                float x;
                if (!fp::parse_float_operand(val, x))
                    throw Error(key + "=" + val + ": expected a float32 (0.5), a bit pattern (0x3f000000), a location (sbuf:P:OFF) or reg:N");
                b.set_u32(f->offset, fp::bits_of(x));
                break;
            }
            case FieldKind::Addr4: {
                uint64_t u;
                if (parse_u64(val, u)) {
                    if (u > UINT32_MAX) throw Error(key + "=" + val + ": an ADDR4 is 32 bits");
                    b.set_u32(f->offset, static_cast<uint32_t>(u));
                } else {
                    Location l = parse_location(key, val);
                    if (l.space == MemSpace::Dram) throw Error(key + "=" + val + ": this operand addresses SBUF or PSUM, not DRAM");
                    try {
                        b.set_u32(f->offset, encode_addr4(l.space, l.partition, static_cast<uint32_t>(l.offset)));
                    } catch (const Error& e) {
                        throw Error(key + "=" + val + ": " + e.what());
                    }
                }
                break;
            }
            case FieldKind::I16x:
            case FieldKind::U16x: {
                auto parts = split(val, ',');
                if (parts.size() != f->count) throw Error(key + "=" + val + ": expected " + std::to_string(f->count) + " comma-separated values");
                for (size_t i = 0; i < parts.size(); ++i) {
                    int64_t v;
                    bool ok = parse_i64(parts[i], v);
                    if (f->kind == FieldKind::I16x ? (!ok || v < -32768 || v > 32767) : (!ok || v < 0 || v > 65535))
                        throw Error(key + "=" + val + ": value " + std::to_string(i) + " must be " + (f->kind == FieldKind::I16x ? "an int16" : "a uint16"));
                    b.set_u16(f->offset + 2 * i, static_cast<uint16_t>(v));
                }
                break;
            }
            case FieldKind::SpaceAddr: {
                if (auto at = val.find('@'); at != std::string::npos) {
                    // SPACE@ADDR: the space byte and the 64-bit address as they are (what
                    // disasm prints when SPACE:P:OFF cannot say it, e.g. partition >= 128).
                    const std::string sp = val.substr(0, at);
                    uint64_t space;
                    if (sp == "dram"sv) space = 0;
                    else if (sp == "sbuf"sv) space = 1;
                    else if (sp == "psum"sv) space = 2;
                    else if (!parse_u64(sp, space) || space > 255)
                        throw Error(key + "=" + val + ": expected SPACE@ADDR with SPACE dram, sbuf, psum or a byte value");
                    b.set_u8(f->offset, static_cast<uint8_t>(space));
                    b.set_u64(f->offset2, unsigned_value(key, val.substr(at + 1), UINT64_MAX));
                    break;
                }
                Location l = parse_location(key, val);
                b.set_u8(f->offset, static_cast<uint8_t>(l.space));
                if (l.space == MemSpace::Dram) b.set_u64(f->offset2, l.offset);
                else {
                    try {
                        b.set_u64(f->offset2, encode_addr4(l.space, l.partition, static_cast<uint32_t>(l.offset)));
                    } catch (const Error& e) {
                        throw Error(key + "=" + val + ": " + e.what());
                    }
                }
                break;
            }
        }
    }
    if (raw && (ev.wait != WaitMode::None || ev.update != UpdateMode::None || have_raw_events))
        throw Error("raw= gives the EVENTS bytes too; wait=/update=/events= cannot be combined with it");
    if (have_raw_events && (ev.wait != WaitMode::None || ev.update != UpdateMode::None))
        throw Error("events= gives the whole EVENTS field; wait=/update= cannot be combined with it");
    if (mnemonic == "raw"sv && !raw) throw Error("'raw' needs raw=<128 hex digits>");
    if (have_raw_events) std::copy(raw_events, raw_events + 8, b.b.begin() + kEventsOffset);
    else if (!raw) write_events(b, ev);
    return b;
}

namespace {

std::string hex_bytes(const uint8_t* p, size_t n) {
    std::string s;
    char h[3];
    for (size_t i = 0; i < n; ++i) {
        std::snprintf(h, sizeof h, "%02x", p[i]);
        s += h;
    }
    return s;
}

// A field's text, or "" when the field is zero (left out). Every form re-assembles to the
// same bytes: an ADDR4 whose partition is past 127 is written as its raw number, a DMA
// endpoint that SPACE:P:OFF cannot say as SPACE@ADDR.
std::string field_text(const Field& f, const Bundle& b) {
    switch (f.kind) {
        case FieldKind::U8: {
            const uint8_t v = b.u8(f.offset);
            if (!v) return "";
            const std::string name = field_name(f.name, v);
            return name.empty() ? std::to_string(v) : name;
        }
        case FieldKind::U16: return b.u16(f.offset) ? std::to_string(b.u16(f.offset)) : "";
        case FieldKind::U32: return b.u32(f.offset) ? std::to_string(b.u32(f.offset)) : "";
        case FieldKind::U64: return b.u64(f.offset) ? std::to_string(b.u64(f.offset)) : "";
        case FieldKind::F32: {
            const uint32_t u = b.u32(f.offset);
            if (!u) return "";
            char buf[48];
            // A decimal when it reads back to the same bits, else the pattern.
            std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(fp::float_of(u)));
            float back;
            return (fp::parse_float_operand(buf, back) && fp::bits_of(back) == u) ? std::string(buf) : "0x" + fp::hex8(u);
        }
        case FieldKind::Addr4: {
            const uint32_t a = b.u32(f.offset);
            if (!a) return "";
            const Location l = decode_addr4(a);
            return l.partition < 128 ? format_location(l) : fp::hex(a);
        }
        case FieldKind::I16x:
        case FieldKind::U16x: {
            bool any = false;
            std::string list;
            for (int i = 0; i < f.count; ++i) {
                const uint16_t u = b.u16(f.offset + 2 * i);
                any |= u != 0;
                list += (i ? "," : "") + (f.kind == FieldKind::I16x ? std::to_string(static_cast<int16_t>(u)) : std::to_string(u));
            }
            return any ? list : "";
        }
        case FieldKind::SpaceAddr: {
            const uint8_t sp = b.u8(f.offset);
            const uint64_t a = b.u64(f.offset2);
            if (sp == static_cast<uint8_t>(MemSpace::Dram)) return a ? "dram:" + fp::hex(a) : "";
            if (sp <= 2 && a <= UINT32_MAX) {
                const Location l = decode_addr4(static_cast<uint32_t>(a));
                if (static_cast<uint8_t>(l.space) == sp && l.partition < 128) return format_location(l);
            }
            return (sp <= 2 ? space_name(static_cast<MemSpace>(sp)) : std::to_string(sp)) + "@" + fp::hex(a);
        }
    }
    return "";
}

// wait=/update= when they say the EVENTS bytes exactly, else events=<16 hex digits>: a mode
// of "none" with a semaphore index, or a value that neither a wait nor a set update uses.
std::string events_text(const Bundle& b) {
    const Events e = read_events(b);
    const bool exact = (e.wait != WaitMode::None || e.wait_idx == 0) && (e.update != UpdateMode::None || e.update_idx == 0) &&
                       (e.value == 0 || e.wait != WaitMode::None || e.update == UpdateMode::Set);
    if (!exact) return " events=" + hex_bytes(b.b.data() + kEventsOffset, 8);
    std::string s;
    if (e.wait != WaitMode::None) s += " wait=" + std::to_string(e.wait_idx) + wait_mode_name(e.wait) + std::to_string(e.value);
    if (e.update == UpdateMode::Set) s += " update=" + std::to_string(e.update_idx) + "=" + std::to_string(e.value);
    else if (e.update != UpdateMode::None) s += " update=" + std::to_string(e.update_idx) + update_mode_name(e.update);
    return s;
}

}  // namespace

std::string disassemble(const std::string& engine, const Bundle& b) {
    const OpcodeInfo* info = find_opcode(b.opcode());
    auto raw = [&] { return engine + " raw raw=" + hex_bytes(b.b.data(), b.b.size()); };
    // Unknown opcodes, a bad header or mode, and an opcode this engine does not run are raw.
    if (!info || !check_header_and_events(b).empty() || !(info->engines & engine_class(engine))) return raw();
    // A bundle with bytes no field covers (reserved, or another opcode's) cannot be written as
    // fields; it is written raw so that the round trip stays exact.
    std::vector<bool> covered(64, false);
    for (int i = 0; i < 12; ++i) covered[i] = true;
    auto width = [](const Field& f) -> int {
        switch (f.kind) {
            case FieldKind::U8: return 1;
            case FieldKind::U16: return 2;
            case FieldKind::U32:
            case FieldKind::F32:
            case FieldKind::Addr4: return 4;
            case FieldKind::U64: return 8;
            case FieldKind::I16x:
            case FieldKind::U16x: return 2 * f.count;
            case FieldKind::SpaceAddr: return 1;
        }
        return 0;
    };
    for (const Field& f : info->fields) {
        for (int i = 0; i < width(f); ++i) covered[f.offset + i] = true;
        if (f.kind == FieldKind::SpaceAddr)
            for (int i = 0; i < 8; ++i) covered[f.offset2 + i] = true;
    }
    for (int i = 0; i < 64; ++i)
        if (!covered[i] && b.b[i] != 0) return raw();
    std::string s = engine + " " + info->mnemonic;
    for (const Field& f : info->fields)
        if (std::string v = field_text(f, b); !v.empty()) s += " " + f.name + "=" + v;
    s += events_text(b);
    // The promise is exact bytes: should any form above not read back, the bundle goes raw.
    try {
        const std::vector<std::string> w = split_words(s);
        if (assemble(w[0], w[1], std::vector<std::string>(w.begin() + 2, w.end())).b == b.b) return s;
    } catch (const Error&) {
    }
    return raw();
}

}  // namespace neuronsim::model::isa
