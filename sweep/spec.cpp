#include "sweep/spec.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include <yaml-cpp/yaml.h>

#include "model/common/error.h"
#include "model/io/json_path.h"
#include "model/workloads/kernels.h"
#include "neuronsim/config.h"
#include "sweep/point_inputs.h"
#include "sweep/utf8.h"

namespace neuronsim::sweep {

namespace {

// A YAML node with its path ("axes[2].values") and the spec file, for messages.
class Node {
public:
    Node(YAML::Node n, std::string path, const std::string& source) : n_(n), path_(std::move(path)), source_(&source) {}

    [[noreturn]] void fail(const std::string& what) const {
        std::string where = path_.empty() ? "(root)" : path_;
        try {
            if (n_.IsDefined() && n_.Mark().line >= 0) where += " (line " + std::to_string(n_.Mark().line + 1) + ")";
        } catch (const YAML::Exception&) {
        }
        throw Error(*source_ + ": " + where + ": " + what);
    }
    const std::string& path() const { return path_; }
    const YAML::Node& raw() const { return n_; }
    bool is_list() const { return n_.IsSequence(); }
    bool is_map() const { return n_.IsMap(); }
    bool is_scalar() const { return n_.IsScalar(); }

    void expect_map() const {
        if (!n_.IsMap()) fail("expected a mapping, got " + flow());
        std::set<std::string> keys;
        for (auto it = n_.begin(); it != n_.end(); ++it)
            if (!keys.insert(it->first.Scalar()).second)
                fail("duplicate key '" + it->first.Scalar() + "' (line " + std::to_string(it->first.Mark().line + 1) + ")");
    }
    // Rejects keys other than `allowed`.
    void only(std::initializer_list<const char*> allowed) const {
        for (auto it = n_.begin(); it != n_.end(); ++it) {
            const std::string k = it->first.Scalar();
            bool ok = false;
            std::string list;
            for (const char* a : allowed) {
                ok = ok || k == a;
                list += (list.empty() ? "" : ", ") + std::string(a);
            }
            if (!ok) child(k).fail("unknown key (expected one of: " + list + ")");
        }
    }
    bool has(const char* k) const { return n_.IsMap() && n_[k]; }
    Node child(const std::string& k) const { return Node(n_[k], path_.empty() ? k : path_ + "." + k, *source_); }
    Node item(size_t i) const { return Node(n_[i], path_ + "[" + std::to_string(i) + "]", *source_); }
    std::vector<Node> list() const {
        if (!n_.IsSequence()) fail("expected a list, got " + flow());
        if (n_.size() == 0) fail("expected a non-empty list");
        std::vector<Node> out;
        for (size_t i = 0; i < n_.size(); ++i) out.push_back(item(i));
        return out;
    }
    std::string text() const {
        if (!n_.IsScalar() || n_.Scalar().empty()) fail("expected a non-empty string, got " + flow());
        if (!valid_utf8(n_.Scalar())) fail("not valid UTF-8");
        return n_.Scalar();
    }
    double number() const {
        double v = 0;
        try {
            if (!n_.IsScalar()) throw YAML::Exception(YAML::Mark::null_mark(), "");
            v = n_.as<double>();
        } catch (const YAML::Exception&) {
            fail("expected a number, got " + flow());
        }
        if (!std::isfinite(v)) fail("expected a finite number, got " + flow());
        return v;
    }
    long integer(long lo, long hi) const {
        long v = 0;
        try {
            if (!n_.IsScalar()) throw YAML::Exception(YAML::Mark::null_mark(), "");
            v = n_.as<long>();
        } catch (const YAML::Exception&) {
            fail("expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + flow());
        }
        if (v < lo || v > hi) fail("expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + flow());
        return v;
    }
    bool flag() const {
        try {
            if (n_.IsScalar()) return n_.as<bool>();
        } catch (const YAML::Exception&) {
        }
        fail("expected true or false, got " + flow());
    }
    // The value as -p takes it: a scalar's text, or a list/mapping in YAML flow form.
    std::string value_text() const {
        if (!n_ || n_.IsNull()) fail("expected a value, got nothing");
        const std::string v = n_.IsScalar() ? n_.Scalar() : flow();
        if (!valid_utf8(v)) fail("not valid UTF-8");
        return v;
    }
    std::string flow() const {
        if (!n_ || !n_.IsDefined()) return "nothing";
        YAML::Emitter e;
        e << YAML::Flow << n_;
        return std::string("\"") + e.c_str() + "\"";
    }

private:
    YAML::Node n_;
    std::string path_;
    const std::string* source_;
};

std::string config_key(const Node& n) {
    const std::string k = n.text();
    size_t start = 0;
    while (true) {
        const size_t dot = k.find('.', start);
        const std::string part = k.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (part.empty()) n.fail("\"" + k + "\" is not a dotted config key (e.g. act.clock_ghz): empty component");
        for (char c : part)
            if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
                n.fail("\"" + k + "\" is not a dotted config key (e.g. act.clock_ghz): '" + std::string(1, c) + "'");
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return k;
}

std::vector<std::string> range_values(const Node& r) {
    r.expect_map();
    r.only({"from", "to", "steps", "step", "factor", "scale", "integer"});
    if (!r.has("from")) r.fail("missing key 'from'");
    if (!r.has("to")) r.fail("missing key 'to'");
    const double from = r.child("from").number(), to = r.child("to").number();
    std::string scale = r.has("scale") ? r.child("scale").text() : (r.has("factor") ? "geometric" : "linear");
    if (scale != "linear" && scale != "geometric") r.child("scale").fail("expected linear or geometric, got \"" + scale + "\"");
    const bool integer = r.has("integer") && r.child("integer").flag();
    const int given = r.has("steps") + r.has("step") + r.has("factor");
    if (given != 1) r.fail("give exactly one of steps, step (linear) or factor (geometric)");
    std::vector<double> v;
    constexpr long kMaxValues = 100000;
    if (r.has("steps")) {
        const long n = r.child("steps").integer(1, kMaxValues);
        if (n == 1 && from != to) r.child("steps").fail("1 step needs from == to");
        if (scale == "geometric" && (from <= 0 || to <= 0)) r.fail("a geometric range needs from > 0 and to > 0");
        for (long i = 0; i < n; ++i) {
            const double t = n == 1 ? 0.0 : double(i) / double(n - 1);
            v.push_back(i == n - 1 ? to : scale == "linear" ? from + (to - from) * t : from * std::pow(to / from, t));
        }
    } else if (r.has("step")) {
        if (scale != "linear") r.child("step").fail("step is for a linear range; a geometric one takes factor or steps");
        const double step = r.child("step").number();
        if (step == 0 || (to - from) / step < 0) r.child("step").fail("step must be non-zero and go from 'from' towards 'to'");
        const double n = std::floor((to - from) / step + 1e-9) + 1;
        if (n > kMaxValues) r.child("step").fail("more than " + std::to_string(kMaxValues) + " values");
        for (long i = 0; i < long(n); ++i) v.push_back(from + step * double(i));
    } else {
        if (scale != "geometric") r.child("factor").fail("factor is for a geometric range");
        const double f = r.child("factor").number();
        if (from <= 0 || to <= 0) r.fail("a geometric range needs from > 0 and to > 0");
        if (f <= 0 || f == 1 || (to > from) != (f > 1)) {
            if (from != to) r.child("factor").fail("factor must be > 0, not 1, and go from 'from' towards 'to'");
        }
        const double n = from == to ? 1 : std::floor(std::log(to / from) / std::log(f) + 1e-9) + 1;
        if (n > kMaxValues) r.child("factor").fail("more than " + std::to_string(kMaxValues) + " values");
        for (long i = 0; i < long(n); ++i) v.push_back(from * std::pow(f, double(i)));
    }
    std::vector<std::string> out;
    for (double x : v) out.push_back(format_number(integer ? std::round(x) : x));
    return out;
}

// {key: K, values: [...]}, {key: K, range: {...}} or {key: K, factors: [...]}; baseline: V (oat)
AxisColumn column(const Node& n) {
    n.expect_map();
    n.only({"key", "values", "range", "factors", "baseline"});
    if (!n.has("key")) n.fail("missing key 'key' (the config key this axis varies)");
    AxisColumn c;
    c.key = config_key(n.child("key"));
    c.where = n.path();
    if (n.has("values") + n.has("range") + n.has("factors") != 1)
        n.fail("give exactly one of 'values' (a list), 'range' or 'factors' (multiples of the preset's own value)");
    if (n.has("values"))
        for (const Node& v : n.child("values").list()) c.values.push_back(v.value_text());
    else if (n.has("range")) c.values = range_values(n.child("range"));
    else
        for (const Node& f : n.child("factors").list()) {
            const double x = f.number();
            if (!(x > 0)) f.fail("expected a factor > 0, got " + f.flow());
            c.factors.push_back(format_number(x));
        }
    if (n.has("baseline")) {
        if (!c.factors.empty()) n.child("baseline").fail("a factors axis's baseline is the preset's own value (factor 1)");
        c.baseline = n.child("baseline").value_text();
    }
    return c;
}

// The value of dotted `key` in the resolved config, as config.yaml writes it.
std::string config_value(const Config& c, const std::string& key) {
    YAML::Node n = YAML::Load(config_to_yaml(c));
    size_t start = 0;
    while (true) {
        const size_t dot = key.find('.', start);
        const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!n.IsMap() || !n[part]) return "";
        n = n[part];
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return n.IsScalar() ? n.Scalar() : "";
}

// A factors column's values on each generation: the preset's own value (after the overlays
// and the fixed params) times each factor; an integer key must stay an integer.
void resolve_factors(AxisColumn& c, const Spec& s) {
    std::string type;
    for (const ConfigFieldInfo& f : config_fields())
        if (f.key == c.key) type = f.type;
    if (type.empty()) throw Error(s.source + ": " + c.where + ".key: " + c.key + " is not a config key (configs/README.md lists them)");
    if (type != "integer" && type != "number")
        throw Error(s.source + ": " + c.where + ".factors: " + c.key + " is a " + type + ", not a number: factors need a numeric key");
    std::vector<std::string> overrides;
    for (const Param& p : s.params) overrides.push_back(p.key + "=" + p.value);
    for (const std::string& g : s.generations) {
        Config cfg;
        try {
            cfg = compose_config(g, s.overlay_paths, overrides);
        } catch (const std::exception& e) {
            throw Error(s.source + ": " + c.where + ".factors: on " + g + ": " + e.what());
        }
        const std::string own = config_value(cfg, c.key);
        const double base = std::strtod(own.c_str(), nullptr);
        std::vector<std::string>& out = c.by_generation[g];
        for (size_t i = 0; i < c.factors.size(); ++i) {
            const double v = base * std::strtod(c.factors[i].c_str(), nullptr);
            if (type == "integer" && std::fabs(v - std::round(v)) > 1e-9 * std::max(1.0, std::fabs(v)))
                throw Error(s.source + ": " + c.where + ".factors[" + std::to_string(i) + "]: " + c.key + " is " + own + " on " + g + ", x" + c.factors[i] +
                            " = " + format_number(v) + " is not an integer (the key takes integers)");
            out.push_back(format_number(type == "integer" ? std::round(v) : v));
        }
    }
}

// A `kernels:` entry: {name: K | model: M, shape: RxC, dtype, act, bits, eps, seed, dma_lanes,
// buffers, max_data_mib, layer, seq}, checked here, built per point (kernel_points.h).
KernelSpec kernel_entry(const Node& n) {
    namespace wl = model::workloads;
    n.expect_map();
    n.only({"name", "model", "shape", "dtype", "act", "bits", "eps", "seed", "dma_lanes", "buffers", "max_data_mib", "layer", "seq", "generations"});
    if (n.has("name") == n.has("model")) n.fail("give exactly one of 'name' (a kernel: softmax, rmsnorm, ...) or 'model' (bert-base, llama2-7b)");
    nlohmann::json j = nlohmann::json::object();
    auto one_of = [&](const char* key, const std::vector<std::string>& names) {
        const std::string v = n.child(key).text();
        std::string list;
        for (const std::string& x : names) list += (list.empty() ? "" : ", ") + x;
        if (std::find(names.begin(), names.end(), v) == names.end())
            n.child(key).fail("unknown " + std::string(key) + " \"" + v + "\" (expected one of: " + list + ")");
        j[key] = v;
    };
    if (n.has("name")) one_of("name", wl::kernel_names());
    if (n.has("model")) {
        one_of("model", wl::model_names());
        if (!n.has("seq")) n.fail("a model needs seq (the sequence length)");
    } else if (n.has("layer") || n.has("seq")) {
        n.fail("layer and seq apply to a model only");
    }
    wl::KernelRequest probe;
    if (n.has("shape")) {
        if (n.has("model")) n.child("shape").fail("a model's sizes and seq decide its shapes");
        try {
            wl::parse_kernel_shape(n.child("shape").text(), probe);
        } catch (const Error& e) {
            n.child("shape").fail(e.what());
        }
        j["shape"] = n.child("shape").text();
    }
    if (n.has("dtype")) {
        try {
            wl::parse_kernel_dtype(n.child("dtype").text());
        } catch (const Error& e) {
            n.child("dtype").fail(e.what());
        }
        j["dtype"] = n.child("dtype").text();
    }
    if (n.has("act")) j["act"] = n.child("act").text();
    if (n.has("eps")) {
        (void)n.child("eps").number();
        j["eps"] = n.child("eps").text();
    }
    if (n.has("bits")) j["bits"] = n.child("bits").integer(1, 7);
    if (n.has("seed")) j["seed"] = n.child("seed").integer(0, std::numeric_limits<long>::max());
    if (n.has("dma_lanes")) j["dma_lanes"] = n.child("dma_lanes").integer(0, 64);
    if (n.has("buffers")) j["buffers"] = n.child("buffers").integer(0, 64);
    if (n.has("max_data_mib")) j["max_data_mib"] = n.child("max_data_mib").integer(1, 1 << 20);
    if (n.has("layer")) j["layer"] = n.child("layer").integer(0, 1000);
    if (n.has("seq")) j["seq"] = n.child("seq").integer(1, 1 << 24);
    KernelSpec k;
    k.request = j.dump();  // (keys sorted: canonical)
    k.label = "kernel:" + j.value("name", j.value("model", ""));
    if (j.contains("shape")) k.label += " " + j["shape"].get<std::string>();
    for (const auto& [key, v] : j.items())
        if (key != "name" && key != "model" && key != "shape") k.label += " " + key + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
    return k;
}

Axis axis(const Node& n) {
    n.expect_map();
    Axis a;
    if (n.has("zip")) {
        n.only({"zip"});
        for (const Node& c : n.child("zip").list()) a.columns.push_back(column(c));
        for (const AxisColumn& c : a.columns)
            if (c.values.size() != a.size())
                n.child("zip").fail("zipped axes must have the same number of values: " + a.columns.front().key + " has " + std::to_string(a.size()) + ", " +
                                    c.key + " has " + std::to_string(c.values.size()));
    } else {
        a.columns.push_back(column(n));
    }
    return a;
}

std::string resolve(const std::string& base, const std::string& p) {
    namespace fs = std::filesystem;
    return fs::path(p).is_absolute() || base.empty() ? p : (fs::path(base) / p).lexically_normal().string();
}

void require_file(const Node& n, const std::string& path, const char* what) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) n.fail(std::string("no such ") + what + " file: " + path);
    if (!S_ISREG(st.st_mode)) n.fail(path + " is not a regular file");
}

}  // namespace

std::string format_number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.12g", v);
    return buf;
}

// Whether a `neuronsim run` argument would set an option the sweep sets itself, in any form
// boost accepts: --config, --config=F, an unambiguous prefix (--conf=F), a short option with
// its value attached (-pKEY=V).
bool sets_a_reserved_option(const std::string& arg) {
    static const char* const kLong[] = {"trace", "gen", "config", "out", "streams", "param", "numerics"};
    if (arg.rfind("--", 0) == 0) {
        const std::string name = arg.substr(2, arg.find('=') == std::string::npos ? std::string::npos : arg.find('=') - 2);
        if (name.empty()) return true;  // "--" alone: what follows would be positional (a trace)
        for (const char* l : kLong)
            if (std::string(l).rfind(name, 0) == 0) return true;
        return false;
    }
    return arg.size() >= 2 && arg[0] == '-' && std::string("tgcop").find(arg[1]) != std::string::npos;
}

Spec parse_spec(const std::string& yaml_text, const std::string& source, const std::string& base_dir) {
    YAML::Node root_node;
    try {
        root_node = YAML::Load(yaml_text);
    } catch (const YAML::Exception& e) {
        throw Error(source + ": line " + std::to_string(e.mark.line + 1) + ", column " + std::to_string(e.mark.column + 1) + ": not valid YAML: " + e.msg);
    }
    Spec s;
    s.source = source;
    s.base_dir = base_dir;
    Node root(root_node, "", source);
    root.expect_map();
    root.only({"name", "traces", "kernels", "generations", "overlays", "params", "axes", "combine", "repeat", "numerics", "timeout_seconds", "run_args",
               "plots", "stats"});
    if (root.has("name")) s.name = root.child("name").text();
    if (!root.has("traces") && !root.has("kernels")) root.fail("missing key 'traces' (a list of trace files) or 'kernels' (kernels built per point)");
    // Generation names: lower case, each a preset of configs/ (case-insensitive on input).
    auto generation_list = [&](const Node& g) {
        std::vector<std::string> out;
        if (g.is_scalar() && g.raw().Scalar() == "all") return generation_names();
        for (const Node& n : g.list()) {
            std::string name = n.text();
            for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
            const std::vector<std::string>& known = generation_names();
            if (std::find(known.begin(), known.end(), name) == known.end()) {
                std::string list;
                for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
                n.fail("unknown generation \"" + n.text() + "\" (expected one of: " + list + ")");
            }
            if (std::find(out.begin(), out.end(), name) != out.end()) n.fail("generation " + name + " is listed twice");
            out.push_back(name);
        }
        return out;
    };
    const bool study_generations = root.has("generations");
    if (study_generations) s.generations = generation_list(root.child("generations"));
    // An entry's own generations (a trace made for one generation's SBUF, a kernel only some
    // generations have) are a subset of the study's, or make it up when it gives none.
    auto entry_generations = [&](const Node& e) {
        if (!e.has("generations")) return std::vector<std::string>{};
        const Node g = e.child("generations");
        std::vector<std::string> own = generation_list(g);
        for (const std::string& name : own)
            if (study_generations && std::find(s.generations.begin(), s.generations.end(), name) == s.generations.end())
                g.fail("generation " + name + " is not one of the study's generations (the top-level 'generations')");
        return own;
    };
    if (root.has("traces"))
        for (const Node& t : root.child("traces").list()) {
            // A path, or {path: P, generations: [...]}.
            const Node path = t.is_scalar() ? t : t.child("path");
            if (!t.is_scalar()) {
                t.expect_map();
                t.only({"path", "generations"});
                if (!t.has("path")) t.fail("missing key 'path' (the trace file)");
            }
            s.traces.push_back(path.text());
            s.trace_paths.push_back(resolve(base_dir, s.traces.back()));
            require_file(path, s.trace_paths.back(), "trace");
            s.trace_generations.push_back(t.is_scalar() ? std::vector<std::string>{} : entry_generations(t));
        }
    if (root.has("kernels"))
        for (const Node& k : root.child("kernels").list()) {
            s.kernels.push_back(kernel_entry(k));
            s.kernels.back().generations = entry_generations(k);
            for (size_t i = 0; i + 1 < s.kernels.size(); ++i)
                if (s.kernels[i].label == s.kernels.back().label) k.fail("the same kernel as kernels[" + std::to_string(i) + "]");
        }
    if (!study_generations) {
        // An entry without a list of its own runs on the default generation; the study's list
        // is the union of the entries' lists, in the presets' order.
        for (auto& g : s.trace_generations)
            if (g.empty()) g = {default_generation()};
        for (KernelSpec& k : s.kernels)
            if (k.generations.empty()) k.generations = {default_generation()};
        std::set<std::string> used;
        for (const auto& g : s.trace_generations) used.insert(g.begin(), g.end());
        for (const KernelSpec& k : s.kernels) used.insert(k.generations.begin(), k.generations.end());
        for (const std::string& g : generation_names())
            if (used.count(g)) s.generations.push_back(g);
    }
    if (root.has("overlays"))
        for (const Node& o : root.child("overlays").list()) {
            s.overlays.push_back(o.text());
            s.overlay_paths.push_back(resolve(base_dir, s.overlays.back()));
            require_file(o, s.overlay_paths.back(), "overlay");
        }
    if (root.has("params")) {
        const Node p = root.child("params");
        p.expect_map();
        for (auto it = p.raw().begin(); it != p.raw().end(); ++it) {
            const Node k(it->first, p.path(), source);
            const Node v = p.child(it->first.Scalar());
            s.params.push_back({config_key(k), v.value_text()});
        }
    }
    if (root.has("axes"))
        for (const Node& a : root.child("axes").list()) s.axes.push_back(axis(a));
    std::set<std::string> keys;
    for (const Param& p : s.params) keys.insert(p.key);
    for (const Axis& a : s.axes)
        for (const AxisColumn& c : a.columns)
            if (!keys.insert(c.key).second) throw Error(source + ": " + c.where + ": key " + c.key + " is already set by params or another axis");
    if (root.has("combine")) {
        s.combine = root.child("combine").text();
        if (s.combine != "grid" && s.combine != "zip" && s.combine != "oat")
            root.child("combine").fail("expected grid, zip or oat (one at a time around a baseline), got \"" + s.combine + "\"");
        if (s.combine == "zip")
            for (const Axis& a : s.axes)
                if (a.size() != s.axes.front().size())
                    root.child("combine").fail("combine: zip needs axes of the same length: " + s.axes.front().columns.front().key + " has " +
                                               std::to_string(s.axes.front().size()) + " values, " + a.columns.front().key + " has " +
                                               std::to_string(a.size()));
    }
    for (const Axis& a : s.axes)
        for (const AxisColumn& c : a.columns)
            if (!c.baseline.empty() && s.combine != "oat")
                throw Error(source + ": " + c.where + ".baseline: a baseline is for combine: oat (a grid or zip runs every value)");
    for (Axis& a : s.axes)
        for (AxisColumn& c : a.columns)
            if (!c.factors.empty()) resolve_factors(c, s);
    if (root.has("repeat")) s.repeat = int(root.child("repeat").integer(1, 10000));
    if (root.has("timeout_seconds")) {
        s.timeout_seconds = root.child("timeout_seconds").number();
        if (!(s.timeout_seconds >= 0) || s.timeout_seconds > 1e7)
            root.child("timeout_seconds").fail("expected seconds in [0, 1e7] (0: no timeout), got " + format_number(s.timeout_seconds));
    }
    if (root.has("numerics")) {
        s.numerics = root.child("numerics").text();
        if (s.numerics != "full" && s.numerics != "none") root.child("numerics").fail("expected full or none, got \"" + s.numerics + "\"");
    }
    if (root.has("stats")) {
        const Node& st = root.child("stats");
        if (st.is_scalar()) {
            if (st.text() != "all") st.fail("expected all, or a list of globs over the flattened stat keys (core.act.*, !**.stalls.**)");
            s.stats = {"**"};
        } else {
            s.stats.clear();
            for (const Node& g : st.list()) {
                const std::string glob = g.text();
                const std::string body = glob.substr(glob.rfind('!', 0) == 0 ? 1 : 0);
                if (body.empty() || body.find_first_of(" \t!") != std::string::npos)
                    g.fail("\"" + glob + "\": expected a glob over dotted stat keys (`*` one level, `**` any), optionally after one leading '!'");
                s.stats.push_back(glob);
            }
            bool includes = false;
            for (const std::string& g : s.stats) includes = includes || g[0] != '!';
            if (!includes) st.fail("every glob drops stats ('!'): add the ones to keep, e.g. \"**\"");
        }
    }
    if (root.has("run_args"))
        for (const Node& a : root.child("run_args").list()) {
            const std::string arg = a.text();
            if (sets_a_reserved_option(arg)) a.fail(arg + " is set by the sweep itself (use traces, generations, overlays, params, axes or numerics)");
            s.run_args.push_back(arg);
        }
    if (root.has("plots"))
        for (const Node& p : root.child("plots").list()) {
            p.expect_map();
            p.only({"x", "y", "series", "out", "bar", "where", "logx", "logy", "facet", "pareto"});
            PlotSpec ps;
            if (!p.has("x") || !p.has("y") || !p.has("out")) p.fail("a plot needs x, y and out");
            ps.x = p.child("x").text();
            ps.y = p.child("y").text();
            ps.out = p.child("out").text();
            {  // beside the database: a relative path that stays in its directory
                const std::filesystem::path o(ps.out);
                bool inside = !ps.out.empty() && o.is_relative();
                for (const auto& part : o) inside = inside && part != "..";
                if (!inside) p.child("out").fail("\"" + ps.out + "\" must be a relative path inside the database's directory (no .. and not absolute)");
                const std::string ext = o.extension().string();
                if (ext != ".png" && ext != ".svg") p.child("out").fail("\"" + ps.out + "\": expected a .png or .svg file name");
            }
            if (p.has("series")) ps.series = p.child("series").text();
            if (p.has("bar")) ps.bar = p.child("bar").flag();
            if (p.has("logx")) ps.logx = p.child("logx").flag();
            if (p.has("logy")) ps.logy = p.child("logy").flag();
            if (p.has("pareto")) ps.pareto = p.child("pareto").flag();
            if (p.has("facet")) ps.facet = p.child("facet").text();
            if (p.has("where")) {
                const Node w = p.child("where");
                w.expect_map();
                for (auto it = w.raw().begin(); it != w.raw().end(); ++it)
                    ps.where.push_back(it->first.Scalar() + "=" + w.child(it->first.Scalar()).value_text());
            }
            s.plots.push_back(ps);
        }
    // Grid sizes multiply; refuse a spec whose expansion would not fit in memory.
    double n = 0;
    for (const auto& g : s.trace_generations) n += double(g.empty() ? s.generations.size() : g.size());
    for (const KernelSpec& k : s.kernels) n += double(k.generations.empty() ? s.generations.size() : k.generations.size());
    n *= s.repeat;
    if (s.combine == "zip" && !s.axes.empty()) n *= double(s.axes.front().size());
    else if (s.combine == "oat") {
        double k = 1;
        for (const Axis& a : s.axes) k += double(a.size());
        n *= k;
    } else
        for (const Axis& a : s.axes) n *= double(a.size());
    if (n > 10e6) throw Error(source + ": the spec expands to " + format_number(n) + " points (at most 10,000,000)");
    return s;
}

Spec load_spec(const std::string& path) {
    const std::string text = model::io::read_text_file(path, model::io::kMaxJsonFileBytes, "sweep spec");
    const std::string dir = std::filesystem::path(path).parent_path().string();
    return parse_spec(text, path, dir.empty() ? "." : dir);
}

namespace {
// The next combination of a grid's value indices (the last axis fastest); false after the last.
bool advance(std::vector<size_t>& at, const std::vector<Axis>& axes) {
    for (size_t a = axes.size(); a-- > 0;) {
        if (++at[a] < axes[a].size()) return true;
        at[a] = 0;
    }
    return false;
}
}  // namespace

const std::vector<std::string>& AxisColumn::values_for(const std::string& generation) const {
    if (factors.empty()) return values;
    auto it = by_generation.find(generation);
    if (it == by_generation.end()) throw Error(where + ": the factors were not resolved on " + generation);
    return it->second;
}

std::string Axis::name() const {
    std::string n;
    for (const AxisColumn& c : columns) n += (n.empty() ? "" : "+") + c.key;
    return n;
}

void for_each_point(const Spec& s, const std::function<void(const Point&)>& fn) {
    // One point is built at a time: memory does not grow with the number of points.
    PointInputs inputs(s.numerics, s.stats);  // (each trace and overlay is read once)
    const bool zip = s.combine == "zip" && !s.axes.empty();
    const bool oat = s.combine == "oat";
    Point p;
    p.overlays = s.overlays;
    p.overlay_paths = s.overlay_paths;
    p.run_args = s.run_args;
    size_t index = 0;
    std::vector<size_t> at(s.axes.size(), 0);
    auto repeats = [&] {
        for (int r = 0; r < s.repeat; ++r) {
            p.index = index++;
            p.repeat = r;
            inputs.stamp(p);
            fn(p);
        }
    };
    auto column_at = [&](const AxisColumn& col, size_t i) {
        p.params.push_back({col.key, col.values_for(p.generation)[i]});
        if (!col.factors.empty()) p.labels.push_back({"factor:" + col.key, col.factors[i]});
    };
    auto emit = [&] {
        p.params = s.params;
        p.labels.clear();
        for (size_t a = 0; a < s.axes.size(); ++a)
            for (const AxisColumn& col : s.axes[a].columns) column_at(col, zip ? at[0] : at[a]);
        repeats();
    };
    // oat: the baseline (every axis at its baseline: the preset's own value unless given), then
    // each axis's values with the others at their baselines.
    auto emit_oat = [&](size_t knob, size_t i) {
        p.params = s.params;
        p.labels = {{"oat", knob == SIZE_MAX ? "baseline" : s.axes[knob].name()}};
        for (size_t a = 0; a < s.axes.size(); ++a)
            for (const AxisColumn& col : s.axes[a].columns)
                if (a == knob) column_at(col, i);
                else if (!col.baseline.empty()) p.params.push_back({col.key, col.baseline});
        repeats();
    };
    auto each_generation = [&](const std::vector<std::string>& own) {
        for (const std::string& g : own.empty() ? s.generations : own) {
            p.generation = g;
            std::fill(at.begin(), at.end(), 0);
            if (oat) {
                emit_oat(SIZE_MAX, 0);
                for (size_t a = 0; a < s.axes.size(); ++a)
                    for (size_t i = 0; i < s.axes[a].size(); ++i) emit_oat(a, i);
            } else if (zip) {  // the i-th values of every axis together (at[0] is i)
                for (at[0] = 0; at[0] < s.axes.front().size(); ++at[0]) emit();
            } else {
                do emit();
                while (advance(at, s.axes));
            }
        }
    };
    for (size_t t = 0; t < s.traces.size(); ++t) {
        p.trace = s.traces[t];
        p.trace_path = s.trace_paths[t];
        each_generation(s.trace_generations[t]);
    }
    p.trace_path.clear();  // (built for each point when it runs)
    for (const KernelSpec& k : s.kernels) {
        p.trace = k.label;
        p.kernel = k.request;
        each_generation(k.generations);
    }
}

std::vector<Point> expand(const Spec& s) {
    std::vector<Point> out;
    for_each_point(s, [&](const Point& p) { out.push_back(p); });
    return out;
}

}  // namespace neuronsim::sweep
