#include "config/features.h"

#include <algorithm>
#include <cctype>

#include "model/common/error.h"
#include "model/fp/dtype.h"

namespace neuronsim {

bool isa_has_cptc_dtypes(const Config& c) { return model::fp::dtype_exists(0x19, c.generation.nc_version); }

bool gpsimd_ships_cptc_library(const Config& c) { return c.generation.nc_version >= 3 && c.gpsimd.cptc_library; }

bool gpsimd_can_stage_cptc_library(const Config& c) { return gpsimd_ships_cptc_library(c) && c.gpsimd.coretype_perf; }

bool can_decode_cptc(const Config& c) { return isa_has_cptc_dtypes(c) && gpsimd_can_stage_cptc_library(c); }

namespace {
std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::toupper(ch); });
    return s;
}
std::string join(const std::vector<std::string>& v, const std::string& last) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i == 0 ? "" : i + 1 == v.size() ? last : ", ") + v[i];
    return out;
}
}  // namespace

const std::vector<Feature>& features() {
    static const std::vector<Feature> f = {
        {"cptc_dtypes", "the ISA names the CPTC dtypes (lut_dtype 0x19..0x1f)", isa_has_cptc_dtypes},
        {"cptc_library", "the GPSIMD firmware ships the CPTC library (EXTISA_3)", gpsimd_ships_cptc_library},
        {"cptc_stageable", "... and this core type (PERF) can stage it", gpsimd_can_stage_cptc_library},
        {"cptc_decode", "a kernel may decode CPTC tensors (the dtypes, and a stageable library; the run opts in)", can_decode_cptc},
    };
    return f;
}

std::vector<std::string> select_generations(const std::string& selection) {
    const std::vector<std::string>& all = generation_names();
    if (selection == "all") return all;
    const bool negated = selection.rfind("no_", 0) == 0;
    const std::string feature = negated ? selection.substr(3) : selection;
    for (const Feature& f : features())
        if (f.name == feature) {
            std::vector<std::string> out;
            for (const std::string& g : all)
                if (f.has(parse_config(builtin_config_text(g), g)) != negated) out.push_back(g);
            return out;
        }
    std::vector<std::string> out;
    std::string names;
    for (size_t at = 0; at <= selection.size();) {
        const size_t comma = std::min(selection.find(',', at), selection.size());
        std::string g = selection.substr(at, comma - at);
        std::transform(g.begin(), g.end(), g.begin(), [](unsigned char ch) { return std::tolower(ch); });
        if (std::find(all.begin(), all.end(), g) == all.end()) {
            std::string accepted;
            for (const Feature& f : features()) accepted += ", " + f.name + ", no_" + f.name;
            throw Error("generations \"" + selection + "\": \"" + g + "\" is not a generation (" + generation_list(false, ", ") + ") or a selection (all" +
                        accepted + ")");
        }
        out.push_back(g);
        at = comma + 1;
    }
    return out;
}

std::vector<std::string> generations_with(const std::function<bool(const Config&)>& feature) {
    std::vector<std::string> names;
    for (const std::string& g : generation_names())
        if (feature(parse_config(builtin_config_text(g), g))) names.push_back(upper(g));
    return names;
}

std::string generation_list(bool up, const std::string& last_separator) {
    std::vector<std::string> names;
    for (const std::string& g : generation_names()) names.push_back(up ? upper(g) : g);
    return join(names, last_separator);
}

}  // namespace neuronsim
