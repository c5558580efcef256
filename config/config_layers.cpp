#include "config/config_layers.h"

#include <set>
#include <sstream>
#include <vector>

#include "model/common/error.h"

namespace neuronsim::config {

namespace {

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

std::vector<std::string> split(const std::string& path) {
    std::vector<std::string> parts;
    std::stringstream ss(path);
    for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
    return parts;
}

// Bounds on a layer once its aliases are expanded: a few hundred bytes of YAML aliasing
// aliases grow exponentially (nine levels of ten: 10^9 nodes), and everything that reads a
// layer walks the expansion. A real configuration has a few hundred values, 4 levels deep.
constexpr size_t kMaxNodes = 100000, kMaxDepth = 32;

// yaml-cpp keeps the first of duplicate keys silently; a layer must not say two things.
void check_layer(const YAML::Node& n, const std::string& path, const std::string& name, size_t depth, size_t& nodes) {
    if (++nodes > kMaxNodes)
        throw Error(name + ": more than " + std::to_string(kMaxNodes) + " values once its aliases are expanded (at " + (path.empty() ? "(root)" : path) +
                    "): a configuration has a few hundred; is it an alias bomb?");
    if (depth > kMaxDepth)
        throw Error(name + ":" + std::to_string(n.Mark().line + 1) + ": " + path + ": nested more than " + std::to_string(kMaxDepth) + " levels deep");
    if (n.IsSequence())
        for (size_t i = 0; i < n.size(); ++i) check_layer(n[i], path + "[" + std::to_string(i) + "]", name, depth + 1, nodes);
    if (!n.IsMap()) return;
    std::set<std::string> keys;
    for (auto it = n.begin(); it != n.end(); ++it) {
        if (!it->first.IsScalar())
            throw Error(name + ":" + std::to_string(it->first.Mark().line + 1) + ": " + (path.empty() ? "(root)" : path) + ": a key must be a plain name");
        const std::string k = it->first.Scalar();
        if (!keys.insert(k).second) throw Error(name + ":" + std::to_string(it->first.Mark().line + 1) + ": " + join(path, k) + ": duplicate key");
        check_layer(it->second, join(path, k), name, depth + 1, nodes);
    }
}

void check_layer(const YAML::Node& n, const std::string& path, const std::string& name) {
    size_t nodes = 0;
    check_layer(n, path, name, 0, nodes);
}

}  // namespace

void ConfigLayers::add_document(const std::string& text, const std::string& name) {
    YAML::Node doc;
    try {
        doc = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throw Error(name + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": malformed YAML: " + e.msg);
    }
    if (!doc || doc.IsNull()) throw Error(name + ": empty configuration");
    if (!doc.IsMap()) throw Error(name + ": expected a mapping of sections (generation, memory, ...) at the top level");
    check_layer(doc, "", name);
    const Origin o{name, true, ++layers_};
    if (description_.empty()) record("", o);  // the base layer answers for everything it holds
    merge(root_, doc, "", o);
    description_ += (description_.empty() ? "" : " + ") + name;
}

void ConfigLayers::add_override(const std::string& assignment) {
    const std::string name = "-p " + assignment;
    const auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) throw Error(name + ": expected dotted.key=value");
    const std::string key = assignment.substr(0, eq), value = assignment.substr(eq + 1);
    const std::vector<std::string> parts = split(key);
    if (key.back() == '.' || parts.empty()) throw Error(name + ": empty key component");
    for (const auto& p : parts)
        if (p.empty()) throw Error(name + ": empty key component");
    YAML::Node parsed;
    try {
        parsed = YAML::Load(value);
    } catch (const YAML::Exception& e) {
        throw Error(name + ": value is not valid YAML: " + e.msg);
    }
    check_layer(parsed, key, name);
    // Only maps can hold the next key: say so rather than replacing a value by a mapping.
    std::string path;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        path = join(path, parts[i]);
        const YAML::Node n = at(path);
        if (n && !n.IsMap()) throw Error(name + ": " + path + " is not a mapping in " + origin(path).name);
    }
    YAML::Node doc(YAML::NodeType::Map), cur = doc;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
        cur.reset(cur[parts[i]]);  // rebind the handle (operator= would overwrite the node)
    }
    cur[parts.back()] = parsed;
    merge(root_, doc, "", Origin{name, false, ++layers_});
    description_ += " + " + name;
}

void ConfigLayers::merge(YAML::Node into, const YAML::Node& from, const std::string& path, const Origin& o) {
    for (auto it = from.begin(); it != from.end(); ++it) {
        const std::string k = it->first.Scalar(), p = join(path, k);
        YAML::Node have = into[k];
        if (have && have.IsMap() && it->second.IsMap()) {
            merge(have, it->second, p, o);
        } else {
            into[k] = it->second;
            record(p, o);
        }
    }
}

void ConfigLayers::record(const std::string& path, const Origin& o) {
    // What this layer replaced below `path` is gone with it.
    const std::string prefix = path + ".";
    for (auto it = origins_.lower_bound(prefix); it != origins_.end() && it->first.compare(0, prefix.size(), prefix) == 0;) it = origins_.erase(it);
    origins_[path] = o;
}

const ConfigLayers::Origin& ConfigLayers::origin(const std::string& path) const {
    std::string p = path.substr(0, path.find('['));  // act.opcodes[1] was set with act.opcodes
    for (;;) {
        auto it = origins_.find(p);
        if (it != origins_.end()) return it->second;
        if (p.empty()) break;
        const auto dot = p.rfind('.');
        p = dot == std::string::npos ? "" : p.substr(0, dot);
    }
    static const Origin none{"(configuration)", false};
    return none;
}

YAML::Node ConfigLayers::at(const std::string& path) const {
    if (path.empty()) return root_;
    // Const lookups only: looking must never create keys.
    std::vector<YAML::Node> chain{root_};
    for (const std::string& k : split(path)) {
        const YAML::Node& cur = chain.back();
        if (!cur.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
        const YAML::Node next = cur[k];
        if (!next) return YAML::Node(YAML::NodeType::Undefined);
        chain.push_back(next);
    }
    return chain.back();
}

void ConfigLayers::fail(const std::string& path, const std::string& what) const { fail_at(path, path, origin(path), what); }

void ConfigLayers::fail_relation(const std::string& path, const std::vector<std::string>& related, const std::string& what) const {
    const Origin* o = &origin(path);
    std::string set_at = path;
    for (const std::string& r : related)
        if (origin(r).layer > o->layer) o = &origin(r), set_at = r;
    fail_at(path, set_at, *o, what);
}

void ConfigLayers::fail_at(const std::string& path, const std::string& set_at, const Origin& o, const std::string& what) const {
    std::string where = o.name;
    if (o.file) {
        const YAML::Node n = at(set_at.substr(0, set_at.find('[')));
        if (n && n.Mark().line >= 0) where += ":" + std::to_string(n.Mark().line + 1);
    }
    throw Error(where + ": " + (path.empty() ? "(root)" : path) + ": " + what);
}

}  // namespace neuronsim::config
