#include "sweep/flatten.h"

#include <cstdio>

namespace neuronsim::sweep {

namespace {

void walk(const nlohmann::ordered_json& j, const std::string& prefix, std::vector<FlatStat>& out) {
    auto name = [&](const std::string& k) { return prefix.empty() ? k : prefix + "." + k; };
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) walk(it.value(), name(it.key()), out);
        return;
    }
    if (j.is_array()) {
        for (size_t i = 0; i < j.size(); ++i) walk(j[i], name(std::to_string(i)), out);
        return;
    }
    FlatStat f;
    f.key = prefix.empty() ? "value" : prefix;
    if (j.is_boolean()) {
        f.value.kind = FlatValue::Kind::integer;
        f.value.i = j.get<bool>() ? 1 : 0;
    } else if (j.is_number_integer() && !j.is_number_unsigned()) {
        f.value.kind = FlatValue::Kind::integer;
        f.value.i = j.get<int64_t>();
    } else if (j.is_number_unsigned()) {
        const uint64_t u = j.get<uint64_t>();
        if (u <= uint64_t(INT64_MAX)) {
            f.value.kind = FlatValue::Kind::integer;
            f.value.i = int64_t(u);
        } else {
            f.value.kind = FlatValue::Kind::real;
            f.value.d = double(u);
        }
    } else if (j.is_number_float()) {
        f.value.kind = FlatValue::Kind::real;
        f.value.d = j.get<double>();
    } else if (j.is_string()) {
        f.value.kind = FlatValue::Kind::text;
        f.value.s = j.get<std::string>();
    }
    out.push_back(std::move(f));
}

}  // namespace

std::string FlatValue::to_text() const {
    switch (kind) {
        case Kind::integer:
            return std::to_string(i);
        case Kind::real: {
            char buf[40];
            std::snprintf(buf, sizeof buf, "%.17g", d);
            return buf;
        }
        case Kind::text:
            return s;
        case Kind::null:
            break;
    }
    return "";
}

std::vector<FlatStat> flatten(const nlohmann::ordered_json& j) {
    std::vector<FlatStat> out;
    walk(j, "", out);
    return out;
}

}  // namespace neuronsim::sweep
