#include "stats/stat.h"

namespace neuronsim::stats {

std::string_view unit_name(Unit u) {
    switch (u) {
        case Unit::none: return "-";
        case Unit::ps: return "ps";
        case Unit::bytes: return "bytes";
        case Unit::cycles: return "cycles";
        case Unit::ghz: return "GHz";
        case Unit::elements: return "elements";
        case Unit::hex: return "hex";
        case Unit::seconds: return "s";
        case Unit::ns_per_second: return "ns/s";
        case Unit::per_second: return "1/s";
        case Unit::fraction: return "0..1";
        case Unit::gbps: return "GB/s";
    }
    return "-";
}

}  // namespace neuronsim::stats
