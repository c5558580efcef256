#include "platform/core/hazard_report.h"

#include <cstdio>

#include "model/fp/bits.h"
#include "model/isa/address.h"

namespace neuronsim {

namespace {

// Integer picoseconds as ns with 3 decimals: exact.
std::string ns(uint64_t ps) {
    char b[32];
    std::snprintf(b, sizeof b, "%llu.%03llu ns", static_cast<unsigned long long>(ps / 1000), static_cast<unsigned long long>(ps % 1000));
    return b;
}

std::string who(const Hazard::Side& s, const std::string& place) {
    std::string t = s.engine + "#" + std::to_string(s.index) + " (" + s.mnemonic;
    if (!place.empty()) t += ", " + place;
    return t + ")";
}

}  // namespace

std::string Hazard::describe(const std::string& first_place, const std::string& second_place) const {
    std::string where = memory;
    if (memory != "dram")
        where += partition_first == partition_last ? " partition " + std::to_string(partition_first)
                                                   : " partitions " + std::to_string(partition_first) + "-" + std::to_string(partition_last);
    where += (memory == "dram" ? " [" : " bytes [") + model::fp::hex(byte_first) + ", " + model::fp::hex(byte_end) + ")";
    const std::string b = who(second, second_place);
    if (first.engine.empty()) return kind + ": " + b + " reads bytes that nothing had written, within " + where;
    const std::string a = who(first, first_place);
    std::string t = kind + ": " + b + (kind == "read after write" ? " reads " : " writes ") + where + ", which " + a +
                    (kind == "write after read"    ? " reads"
                     : kind == "write after write" ? " also writes"
                                                   : " writes") +
                    ", and no semaphore orders them";
    const std::string first_name = first.engine + "#" + std::to_string(first.index), second_name = second.engine + "#" + std::to_string(second.index);
    if (!first.completed) return t + "; " + first_name + " had not completed when " + second_name + " issued at " + ns(second.issue_ps);
    if (first.end_ps > second.issue_ps)
        return t + "; in this run they overlapped: " + first_name + " completed at " + ns(first.end_ps) + ", after " + second_name + " issued at " +
               ns(second.issue_ps);
    return t + "; in this run only its timing kept them apart: " + first_name + " completed at " + ns(first.end_ps) + ", before " + second_name +
           " issued at " + ns(second.issue_ps);
}

namespace platform {

Hazard public_hazard(const model::isa::HazardDetector& d, const model::isa::HazardDetector::Hazard& h) {
    using Kind = model::isa::HazardDetector::Kind;
    Hazard o;
    o.kind = model::isa::hazard_kind_name(h.kind);
    auto side = [&](const model::isa::HazardDetector::Access& a, Hazard::Side& s) {
        s.engine = d.stream_name(a.stream);
        s.index = a.index;
        s.mnemonic = a.mnemonic ? *a.mnemonic : "";
        s.issue_ps = a.issue_ps;
    };
    if (h.kind != Kind::UninitialisedRead) {
        side(h.first, o.first);
        o.first.completed = d.end_of(h.first, o.first.end_ps);
    }
    side(h.second, o.second);
    o.memory = model::isa::space_name(h.where.space);
    o.partition_first = h.where.p0;
    o.partition_last = h.where.p1 ? h.where.p1 - 1 : 0;
    o.byte_first = static_cast<uint64_t>(h.where.lo);
    o.byte_end = static_cast<uint64_t>(h.where.hi);
    return o;
}

}  // namespace platform
}  // namespace neuronsim
