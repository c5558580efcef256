#pragma once
// Names for the values of enumerated bundle fields, so that a trace can say `func=gelu
// set=gelu_and_others out_dtype=fp32 accumulator_cmd=zero_accumulate op0=mult` and `disasm`
// prints them; codes keep working (traces/README.md, "Names"). The names and their codes:
//   func            the catalog's functions on the resident target, trainium (their func_id)
//   set             the trainium roster's sets (their act_func_set_id, hardware-facts §B.3)
//   in_dtype, out_dtype, dtype, lut_dtype   dtype names (fp32, bfloat16 or bf16, ..., cptc4)
//   in_bias_dtype   IN or IN:BIAS (the two nibbles: input low, bias high)
//   accumulator_cmd idle, zero, accumulate, zero_accumulate, load (0..4)
//   op0, op1, reduce_op   ALU ops (hardware-facts §A.5): bypass, add, subtract, mult, divide,
//                   max, min, abs_max, abs_min, relu, square, symmetric_clamp
//   reduce_cmd      idle, reset, reduce, reset_reduce
//   scale_src, imm_src, relu_param_src   immediate, pointer, register (0, 1, 2)
//   bias_src_n      pointer, immediate, register (0, 1, 2: inverted)
// Names are matched without regard to case.
#include <cstdint>
#include <optional>
#include <string>

namespace neuronsim::model::isa {

// Whether field `field` (of an ACT or POOL instruction) takes names.
bool field_has_names(const std::string& field);
// The code of `text` for the field; nullopt when it names nothing (the caller tries a number).
std::optional<uint8_t> field_code(const std::string& field, const std::string& text);
// The name of `code`, "" when it has none (the caller prints the number).
std::string field_name(const std::string& field, uint8_t code);
// "fp32, bf16, ..." for messages.
std::string field_names_list(const std::string& field);

}  // namespace neuronsim::model::isa
