#include "model/isa/access_pattern.h"

#include "model/common/error.h"

namespace neuronsim::model::isa {

AccessPattern make_access_pattern(uint64_t start, const int16_t* step, const uint16_t* num, int dims, uint64_t eb, const std::string& what) {
    AccessPattern p;
    p.start = static_cast<int64_t>(start);
    p.elem_bytes = eb;
    p.n = 1;
    int64_t min = p.start, max = p.start;
    for (int i = 0; i < dims; ++i) {
        p.step[i] = int64_t{step[i]} * static_cast<int64_t>(eb);
        p.num[i] = num[i];
        p.n *= num[i];
        if (num[i] == 0) continue;
        const int64_t reach = p.step[i] * (num[i] - 1);
        (reach < 0 ? min : max) += reach;
    }
    if (p.n == 0) return p;
    if (min < 0) throw Error(what + ": the access pattern reaches " + std::to_string(-min) + " bytes below its partition's offset 0");
    p.lo = min;
    p.hi = max + static_cast<int64_t>(eb);
    return p;
}

void check_in_partition(const AccessPattern& p, uint64_t bytes, const std::string& what, const std::string& where, const std::string& kind) {
    if (!fits_partition(p, bytes))
        throw Error(what + " " + where + ": the pattern touches bytes [" + std::to_string(p.lo) + ", " + std::to_string(p.hi) + ") of a " +
                    std::to_string(bytes) + "-byte " + kind);
}

}  // namespace neuronsim::model::isa
