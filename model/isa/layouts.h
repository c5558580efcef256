#pragma once
// Operand layouts of the 64-byte bundles this simulator encodes, decodes and executes, as
// packed structs whose sizes and offsets are checked at compile time against the documented
// byte maps (hardware-facts §A.2-§A.5, §C, §J). Little-endian host assumed (checked).
#include <cstddef>
#include <cstdint>

namespace neuronsim::model::isa {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "bundle structs are little-endian");

#pragma pack(push, 1)
struct Tensor1D {  // 8 B
    uint32_t start_addr;
    int16_t step_elem;
    uint16_t num_elem;
};
struct Tensor2D {  // 12 B
    uint32_t start_addr;
    int16_t step_elem[2];
    uint16_t num_elem[2];
};
struct Tensor3D {  // 16 B: {ADDR4 start_addr; int16 step_elem[3]; uint16 num_elem[3]}
    uint32_t start_addr;
    int16_t step_elem[3];
    uint16_t num_elem[3];
};

struct Header {
    uint8_t opcode, inst_word_len, dbg0, dbg1;
};

// 0x21 Activate (S3D3_AC, §A.2)
struct ActivateOp {
    Header header;
    uint8_t events[8];
    uint8_t imm_src, scale_src, accumulator_cmd, bias_src_n;
    Tensor3D src;
    uint8_t in_bias_dtype, out_dtype, num_active_channels, activation_func;
    uint32_t scale_value, bias, imm;
    Tensor3D dst;
};

// 0x22 ActivateQuantize (S3D3_AQ, §A.3)
struct ActivateQuantizeOp {
    Header header;
    uint8_t events[8];
    uint32_t quant_scale_value;
    Tensor3D src;
    uint8_t in_bias_dtype, out_dtype, num_active_channels, activation_func;
    uint32_t dequant_scale_value, bias_addr, quant_zero_value;
    Tensor3D dst;
};

// 0x23 ActivationTableLoad (CTRL_NO, §C): only the set index at +0x23.
struct TableLoadOp {
    Header header;
    uint8_t events[8];
    uint8_t reserved0[23];
    uint8_t act_tbl_sel;
    uint8_t reserved1[28];
};

// 0x24 ActivationReadAccumulator (D1_RD, §A.4)
struct ReadAccumulatorOp {
    Header header;
    uint8_t events[8];
    uint8_t reserved0[16];
    uint32_t dst_element_count;
    uint8_t dtype, negated, num_active_channels;
    uint8_t reserved1[9];
    Tensor1D dst;
    uint8_t reserved2[12];
};

// 0x25 Activate2 (S2D2_AC, §A.5). The byte positions of relu_param_src, reduce_cmd, op0, op1,
// reduce_op, activation_func and the three immediates are documented; src (12..23), the
// dtypes (32, 33) and dst (48..59) are placed where the remaining bytes are (inferred).
struct Activate2Op {
    Header header;
    uint8_t events[8];
    Tensor2D src;
    uint8_t relu_param_src, reserved0, reduce_cmd, reserved1, reserved2, op0, op1, reduce_op;
    uint8_t in_dtype, out_dtype, num_active_channels, activation_func;
    uint32_t imm0, imm1, relu_param;
    Tensor2D dst;
    uint8_t reserved3[4];
};

// 0xA0 sync (EventSemaphore) and 0xA1 halt: the EVENTS field only.
struct ControlOp {
    Header header;
    uint8_t events[8];
    uint8_t reserved[52];
};

// 0xD1 DMA copy: neuronsim's own descriptor for a DMA queue stream (the queue descriptor
// format is not published). Copies `partitions` rows of `bytes` each; DRAM rows are
// `*_row_stride` bytes apart, SBUF/PSUM rows are consecutive partitions.
struct DmaCopyOp {
    Header header;
    uint8_t events[8];
    uint8_t src_space, dst_space;  // MemSpace
    uint16_t partitions;
    uint64_t src_addr, dst_addr;  // DRAM byte address, or an SBUF/PSUM ADDR4
    uint32_t bytes;
    uint32_t src_row_stride, dst_row_stride;
    uint8_t reserved[20];
};
// 0xe4 ConvLutLoad (NEURON_ISA_TPB_S2_CONVLUT, §F.3): the legacy PE conversion-LUT load and
// the CPTC decode, told apart by lut_dtype. The struct has no destination; neuronsim puts the
// decoded tensor's TENSOR3D where reserved4 is (48..63) and its out_dtype in reserved2[0] (33).
// 0xf0 (the extended opcode) carries its spec in reserved0[0] (12) with the same layout.
struct ConvLutOp {
    Header header;
    uint8_t events[8];
    uint8_t spec;  // 0xf0 only (reserved0[0])
    uint8_t reserved0[3];
    Tensor2D src;
    uint8_t reserved1[4];
    uint8_t in_dtype;
    uint8_t out_dtype;  // neuronsim (reserved2[0])
    uint8_t reserved2[4];
    uint8_t num_active_rows, num_active_cols;
    uint16_t multiplicative_const[2];
    uint8_t row_grp, col_grp, block_size, lut_dtype;
    Tensor3D dst;  // neuronsim (reserved4)
};
// VectorE (docs/vector-engine.md): neuronsim's own layouts. The vendor's DVE structs are not
// published beyond their families (hardware-facts §J.1); these keep the header, the EVENTS field
// and TENSOR2D operands (a start partition, two free dimensions, num_active_channels partitions).
// tensor_tensor: out = src0 <op> src1.
struct DveTensorTensorOp {
    Header header;
    uint8_t events[8];
    uint8_t op, in0_dtype, in1_dtype, out_dtype;
    Tensor2D src0, src1, dst;
    uint8_t num_active_channels;
    uint8_t reserved[11];
};
// tensor_scalar: out = (src <op0> operand0) <op1> operand1 (op1 bypass: one step). An operand is
// the fp32 immediate, or (operand*_src 1) the first element of each partition at operand*_addr.
struct DveTensorScalarOp {
    Header header;
    uint8_t events[8];
    uint8_t op0, op1, reverse0, reverse1;
    Tensor2D src, dst;
    uint32_t imm0, imm1;
    uint32_t operand0_addr, operand1_addr;
    uint8_t in_dtype, out_dtype, operand_dtype, num_active_channels;
    uint8_t operand0_src, operand1_src;
    uint8_t reserved[2];
};
// The one-tensor operations: tensor_reduce (reduce_op, negate), tensor_copy, memset (value),
// iota (base, partition_step, step as int32), reciprocal, transpose.
struct DveUnaryOp {
    Header header;
    uint8_t events[8];
    uint8_t reduce_op, negate, reserved0[2];
    Tensor2D src, dst;
    uint32_t imm0, imm1, imm2;
    uint8_t in_dtype, out_dtype, num_active_channels;
    uint8_t reserved1[9];
};
// TensorE (docs/tensor-engine.md): neuronsim's layouts, as for VectorE. load_stationary holds a
// K x M tile (K = num_active_channels partitions, M <= 128 elements each) in the array;
// matmul streams a K x N moving tile (N <= 512) through it into M PSUM partitions x N fp32,
// starting the accumulation group (start 1: from +0) or adding to it (start 0).
struct PeLoadStationaryOp {
    Header header;
    uint8_t events[8];
    uint8_t in_dtype, num_active_channels, reserved0[2];
    Tensor2D src;
    uint8_t reserved1[36];
};
struct PeMatmulOp {
    Header header;
    uint8_t events[8];
    uint8_t in_dtype, num_active_channels, start, mx;  // mx: nc_matmul_mx's rate (timing only)
    Tensor2D moving, dst;
    uint8_t reserved1[24];
};
#pragma pack(pop)

static_assert(sizeof(Tensor1D) == 8 && sizeof(Tensor2D) == 12 && sizeof(Tensor3D) == 16);
static_assert(sizeof(ActivateOp) == 64 && offsetof(ActivateOp, imm_src) == 12 && offsetof(ActivateOp, bias_src_n) == 15 && offsetof(ActivateOp, src) == 16 &&
              offsetof(ActivateOp, in_bias_dtype) == 32 && offsetof(ActivateOp, activation_func) == 35 && offsetof(ActivateOp, scale_value) == 36 &&
              offsetof(ActivateOp, bias) == 40 && offsetof(ActivateOp, imm) == 44 && offsetof(ActivateOp, dst) == 48);
static_assert(sizeof(ActivateQuantizeOp) == 64 && offsetof(ActivateQuantizeOp, quant_scale_value) == 12 && offsetof(ActivateQuantizeOp, src) == 16 &&
              offsetof(ActivateQuantizeOp, dequant_scale_value) == 36 && offsetof(ActivateQuantizeOp, bias_addr) == 40 &&
              offsetof(ActivateQuantizeOp, quant_zero_value) == 44 && offsetof(ActivateQuantizeOp, dst) == 48);
static_assert(sizeof(TableLoadOp) == 64 && offsetof(TableLoadOp, act_tbl_sel) == 0x23);
static_assert(sizeof(ReadAccumulatorOp) == 64 && offsetof(ReadAccumulatorOp, dst_element_count) == 28 && offsetof(ReadAccumulatorOp, dtype) == 32 &&
              offsetof(ReadAccumulatorOp, negated) == 33 && offsetof(ReadAccumulatorOp, num_active_channels) == 34 && offsetof(ReadAccumulatorOp, dst) == 44);
static_assert(sizeof(Activate2Op) == 64 && offsetof(Activate2Op, relu_param_src) == 24 && offsetof(Activate2Op, reduce_cmd) == 26 &&
              offsetof(Activate2Op, op0) == 29 && offsetof(Activate2Op, op1) == 30 && offsetof(Activate2Op, reduce_op) == 31 &&
              offsetof(Activate2Op, activation_func) == 35 && offsetof(Activate2Op, imm0) == 36 && offsetof(Activate2Op, imm1) == 40 &&
              offsetof(Activate2Op, relu_param) == 44 && offsetof(Activate2Op, dst) == 48);
static_assert(sizeof(ConvLutOp) == 64 && offsetof(ConvLutOp, src) == 16 && offsetof(ConvLutOp, in_dtype) == 32 && offsetof(ConvLutOp, num_active_rows) == 38 &&
              offsetof(ConvLutOp, num_active_cols) == 39 && offsetof(ConvLutOp, multiplicative_const) == 40 && offsetof(ConvLutOp, row_grp) == 44 &&
              offsetof(ConvLutOp, col_grp) == 45 && offsetof(ConvLutOp, block_size) == 46 && offsetof(ConvLutOp, lut_dtype) == 47 &&
              offsetof(ConvLutOp, dst) == 48);
static_assert(sizeof(DveTensorTensorOp) == 64 && offsetof(DveTensorTensorOp, src0) == 16 && offsetof(DveTensorTensorOp, dst) == 40 &&
              offsetof(DveTensorTensorOp, num_active_channels) == 52);
static_assert(sizeof(DveTensorScalarOp) == 64 && offsetof(DveTensorScalarOp, src) == 16 && offsetof(DveTensorScalarOp, imm0) == 40 &&
              offsetof(DveTensorScalarOp, operand0_addr) == 48 && offsetof(DveTensorScalarOp, in_dtype) == 56 &&
              offsetof(DveTensorScalarOp, operand0_src) == 60);
static_assert(sizeof(DveUnaryOp) == 64 && offsetof(DveUnaryOp, src) == 16 && offsetof(DveUnaryOp, imm0) == 40 && offsetof(DveUnaryOp, in_dtype) == 52);
static_assert(sizeof(PeLoadStationaryOp) == 64 && offsetof(PeLoadStationaryOp, src) == 16);
static_assert(sizeof(PeMatmulOp) == 64 && offsetof(PeMatmulOp, moving) == 16 && offsetof(PeMatmulOp, dst) == 28);
static_assert(sizeof(ControlOp) == 64 && sizeof(DmaCopyOp) == 64 && offsetof(DmaCopyOp, src_addr) == 16 && offsetof(DmaCopyOp, bytes) == 32);

enum Opcode : uint8_t {
    kPeLoadStationary = 0x01,  // TensorE: two of CAYMAN's matmul-band codes {0x01, 0x02, 0x03, 0x06,
    kPeMatmul = 0x02,  // 0x07} (§J.3); which code is which is not public (neuronsim's choice)
    kActivate = 0x21,
    kActivateQuantize = 0x22,
    kTableLoad = 0x23,
    kReadAccumulator = 0x24,
    kActivate2 = 0x25,
    kDveTensorTensor = 0x50,  // VectorE: 0x43 and 0x46 are the ISA's TensorScalar and Copy (§A.1);
    kDveTensorScalar = 0x43,  // the others are neuronsim's codes in the 0x41-0x68 tensor band (§J.3)
    kDveTensorReduce = 0x51,
    kDveTensorCopy = 0x46,
    kDveMemset = 0x52,
    kDveIota = 0x53,
    kDveReciprocal = 0x54,
    kDveTranspose = 0x55,
    kDveBnStats = 0x56,
    kDveBnAggr = 0x57,
    kSync = 0xA0,
    kHalt = 0xA1,
    kDmaCopy = 0xD1,
    kConvLutLoad = 0xE4,
    kExtended = 0xF0,
};

enum class MemSpace : uint8_t { Dram = 0, Sbuf = 1, Psum = 2 };

}  // namespace neuronsim::model::isa
