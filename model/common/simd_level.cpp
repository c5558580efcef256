#include "model/common/simd_level.h"

#include <cstdlib>
#include <cstring>

namespace neuronsim::model {

const char* simd_name(SimdLevel l) {
    switch (l) {
        case SimdLevel::Avx512: return "avx512";
        case SimdLevel::Avx2: return "avx2";
        default: return "scalar";
    }
}

SimdLevel best_simd_level() {
#if defined(__x86_64__) || defined(__i386__)
    static const SimdLevel best = [] {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) return SimdLevel::Avx512;
        if (__builtin_cpu_supports("avx2")) return SimdLevel::Avx2;
        return SimdLevel::Scalar;
    }();
    return best;
#else
    return SimdLevel::Scalar;
#endif
}

SimdLevel active_simd_level() {
    static const SimdLevel active = [] {
        SimdLevel l = best_simd_level();
        if (const char* e = std::getenv("NEURONSIM_SIMD")) {
            SimdLevel want = l;
            if (std::strcmp(e, "scalar") == 0) want = SimdLevel::Scalar;
            else if (std::strcmp(e, "avx2") == 0) want = SimdLevel::Avx2;
            else if (std::strcmp(e, "avx512") == 0) want = SimdLevel::Avx512;
            if (static_cast<int>(want) < static_cast<int>(l)) l = want;
        }
        return l;
    }();
    return active;
}

}  // namespace neuronsim::model
