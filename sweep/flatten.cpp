#include "sweep/flatten.h"

#include <cstdio>
#include <cstdlib>

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
        case Kind::integer: return std::to_string(i);
        case Kind::real: {
            // The shortest of %.15g..%.17g that reads back as the same double (0.8, not 0.80000000000000004).
            char buf[40];
            for (int digits = 15; digits <= 17; ++digits) {
                std::snprintf(buf, sizeof buf, "%.*g", digits, d);
                if (std::strtod(buf, nullptr) == d) break;
            }
            return buf;
        }
        case Kind::text: return s;
        case Kind::null: break;
    }
    return "";
}

std::vector<FlatStat> flatten(const nlohmann::ordered_json& j) {
    std::vector<FlatStat> out;
    walk(j, "", out);
    return out;
}

namespace {
bool match(const char* k, const char* g) {
    for (; *g; ++g, ++k) {
        if (g[0] == '*' && g[1] == '*') {
            for (const char* at = k;; ++at) {
                if (match(at, g + 2)) return true;
                if (!*at) return false;
            }
        }
        if (*g == '*') {
            for (const char* at = k;; ++at) {
                if (match(at, g + 1)) return true;
                if (!*at || *at == '.') return false;
            }
        }
        if (*k != *g) return false;
    }
    return !*k;
}
}  // namespace

bool stat_key_matches(const std::string& key, const std::string& glob) { return match(key.c_str(), glob.c_str()); }

bool keeps_stat(const std::vector<std::string>& globs, const std::string& key) {
    bool kept = false;
    for (const std::string& g : globs) {
        if (!g.empty() && g[0] == '!') {
            if (stat_key_matches(key, g.substr(1))) return false;
        } else {
            kept = kept || stat_key_matches(key, g);
        }
    }
    return kept;
}

const std::vector<std::string>& default_stat_globs() {
    static const std::vector<std::string> g = {"**",
                                               "!**.stalls.**",
                                               "!**.by_mnemonic.**",
                                               "!core.dma.engines.**",
                                               "!core.act.table_switches.**",
                                               "!core.semaphores.final_nonzero_values.**",
                                               "!core.pool.conv_lut.**"};
    return g;
}

}  // namespace neuronsim::sweep
