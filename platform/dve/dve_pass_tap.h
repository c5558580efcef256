#pragma once
// A benchmark's window on VectorE's fast path (bench/run_vs_passes_bench.cpp), as act_pass_tap.h
// is on ACT's: while a tap is set, it sees every array pass the engine hands
// model/dve/vector_arrays.h, with its inputs, so that the benchmark can time the same passes
// alone. Unset (the default) it costs one atomic load per chunk of 512 elements. Process-wide
// and not for virtual platforms: passes come from whichever host thread runs them (a tap that
// keeps them runs the simulation on one).
#include <cstddef>
#include <cstdint>

namespace neuronsim::platform {

struct VectorPass {
    // alu_n(op, a, b), scalar_n(op, reverse, value, a), fold_n(op, value, a), reciprocal_n(a),
    // bn_stats_row(a).
    enum class Kind : uint8_t { Alu, Scalar, Fold, Reciprocal, BnStats };
    Kind kind = Kind::Alu;
    uint8_t op = 0;  // model::dve::AluOp (Alu, Scalar) or ReduceOp (Fold)
    bool reverse = false;
    float value = 0.0f;  // Scalar's operand, Fold's starting accumulator
};

class VectorPassTap {
public:
    virtual ~VectorPassTap() = default;
    // `b`: Alu's second operand, else null.
    virtual void pass(const VectorPass& p, const float* a, const float* b, size_t n) = 0;
};

// nullptr removes the tap. The caller keeps `tap` alive until it is removed.
void set_vector_pass_tap(VectorPassTap* tap);
VectorPassTap* vector_pass_tap();

}  // namespace neuronsim::platform
