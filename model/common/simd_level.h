#pragma once
// The run-time SIMD dispatch the fast paths share (ACT's element pass, TensorE's matmul): the
// baseline build runs on any x86-64 and picks AVX2 or AVX-512 kernels when the CPU has them.
namespace neuronsim::model {

enum class SimdLevel { Scalar = 0, Avx2 = 1, Avx512 = 2 };

const char* simd_name(SimdLevel l);
// The widest level this CPU runs.
SimdLevel best_simd_level();
// best_simd_level(), lowered by the environment variable NEURONSIM_SIMD=scalar|avx2|avx512
// (never raised above what the CPU runs): tests and benchmarks pin a level with it.
SimdLevel active_simd_level();

}  // namespace neuronsim::model
