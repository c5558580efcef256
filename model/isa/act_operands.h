#pragma once
// What the fields of an ACT Activate mean (hardware-facts §A, seed 003 §1), in one place for
// the engine that executes them, the advisor that reads their dependencies and the writers
// that produce them: where scale, bias and imm come from, the two dtypes packed in
// in_bias_dtype, the accumulator commands, and when imm is read at all.
#include <cstdint>
#include <optional>

namespace neuronsim::model::isa {

// Where a per-partition operand comes from: the instruction's own field (an fp32 immediate), a
// pointer in the field (one value per partition at that ADDR4), or engine register field & 0xff
// holding such a pointer (REG_PTR).
enum class OperandSource : uint8_t { Immediate = 0, Pointer = 1, Register = 2 };  // (scale_src's codes)

// scale_src and imm_src: 0 immediate, 1 pointer, 2 register; nullopt for any other value.
std::optional<OperandSource> scale_or_imm_source(uint8_t field);
inline uint8_t scale_or_imm_src_of(OperandSource s) { return static_cast<uint8_t>(s); }
// bias_src_n is inverted ("n"): 0 pointer, 1 immediate, 2 register; nullopt otherwise.
std::optional<OperandSource> bias_source(uint8_t field);
uint8_t bias_src_n_of(OperandSource s);

// in_bias_dtype: the input dtype in the low nibble, the bias dtype (of a pointer or register
// bias) in the high nibble.
inline uint8_t input_dtype_code(uint8_t in_bias_dtype) { return in_bias_dtype & 0x0F; }
inline uint8_t bias_dtype_code(uint8_t in_bias_dtype) { return in_bias_dtype >> 4; }
inline uint8_t in_bias_dtype_of(uint8_t input, uint8_t bias) { return static_cast<uint8_t>((input & 0x0F) | (bias << 4)); }

// accumulator_cmd (0..4).
enum AccumulatorCmd : uint8_t { kAccIdle = 0, kAccZero = 1, kAccAccumulate = 2, kAccZeroAccumulate = 3, kAccLoad = 4 };

// imm is read only as parametric ReLU's slope alpha (seed 003 §1: ActFn(in*scale + bias; alpha))
// or as the value LoadAccumulate loads; otherwise the field is ignored, whatever imm_src says.
inline bool activate_reads_imm(bool parametric_relu, uint8_t accumulator_cmd) { return parametric_relu || accumulator_cmd == kAccLoad; }

}  // namespace neuronsim::model::isa
