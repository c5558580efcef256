#include "model/pwp/func_map.h"

#include "model/common/error.h"
#include "model/io/json_path.h"
#include "model/pwp/func_map_builtin.h"

namespace neuronsim::model::pwp {

FuncMap parse_func_map(const std::string& json_text, const std::string& source) {
    nlohmann::ordered_json doc = io::parse_json_text(json_text, source);
    io::JsonNode root(doc, source);
    root.expect_object();
    FuncMap map;
    std::vector<bool> seen(kNumActFn, false);
    for (auto it = doc.begin(); it != doc.end(); ++it) {
        if (!it.key().empty() && it.key()[0] == '_') continue;
        io::JsonNode value(it.value(), source, "$[\"" + it.key() + "\"]");
        std::string name = value.as_string();
        auto fn = find_act_fn(name);
        if (!fn) throw Error(source + ": " + value.path() + ": \"" + name + "\" is not an activation name of the dispatch");
        if (*fn == ActFn::Prelu) throw Error(source + ": " + value.path() + ": Prelu has no PWP path and cannot have a profile");
        if (seen[static_cast<size_t>(*fn)]) throw Error(source + ": " + value.path() + ": " + name + " is mapped by more than one file");
        seen[static_cast<size_t>(*fn)] = true;
        map.push_back({it.key(), *fn});
    }
    return map;
}

FuncMap load_func_map(const std::string& path) { return parse_func_map(io::read_text_file(path, io::kMaxJsonFileBytes, "FuncMap"), path); }

const FuncMap& builtin_func_map() {
    static const FuncMap map = parse_func_map(kBuiltinFuncMapJson, "configs/pwp_funcmap.json (built in)");
    return map;
}

}  // namespace neuronsim::model::pwp
