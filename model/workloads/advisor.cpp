#include "model/workloads/advisor.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "model/common/error.h"
#include "model/trace/trace_reader.h"
#include "model/workloads/act_dependencies.h"
#include "model/workloads/act_functions.h"

namespace neuronsim::model::workloads {

namespace {

namespace fs = std::filesystem;
using Kind = ActAccess::Kind;

// A segment longer than this is scheduled in pieces (the dependence test is quadratic).
constexpr size_t kMaxSegment = 2000;

struct ActLine {
    size_t line = 0;
    std::string text;
    ActAccess access;
    std::string function;  // computes
};

std::string first_word(const std::string& text) {
    std::istringstream in(text.substr(0, text.find('#')));
    std::string w;
    in >> w;
    return w;
}

std::vector<ActLine> read_act_stream(const std::string& path) {
    std::vector<ActLine> out;
    trace::TraceReader reader(path);
    while (auto text = reader.next_line()) {
        if (first_word(*text) != "act") continue;
        auto r = trace::parse_trace_line(*text, path, reader.line(), reader.dir());
        if (!r || r->kind != trace::Record::Kind::Instruction) continue;
        ActLine a;
        a.line = reader.line();
        a.text = *text;
        try {
            a.access = act_access(r->instruction.bundle);
        } catch (const Error& e) {
            throw Error(path + ":" + std::to_string(a.line) + ": " + e.what());
        }
        // The advice is over the built-in trainium roster: a set it does not have is the run's
        // error too ("the roster has 21 sets").
        const size_t sets = trainium_sets().size();
        if (a.access.kind == Kind::TableLoad && (a.access.set < 0 || static_cast<size_t>(a.access.set) >= sets))
            throw Error(path + ":" + std::to_string(a.line) + ": load_act_func_set " + std::to_string(a.access.set) + ": the trainium roster has " +
                        std::to_string(sets) + " sets (0.." + std::to_string(sets - 1) + "), the sets `advise` chooses from");
        if (a.access.kind == Kind::Compute) {
            a.function = function_of_id(a.access.func_id);
            if (a.function.empty()) a.function = "func_id " + std::to_string(a.access.func_id);
        }
        out.push_back(std::move(a));
    }
    return out;
}

std::string set_name(int s) { return s < 0 ? "(none)" : trainium_sets()[static_cast<size_t>(s)].name; }

// The loads of an ACT stream and what each served: redundant (already resident), unused
// (nothing ran before the next load), the functions the previous set lacked.
struct LoadTracker {
    std::vector<LoadNote> notes;
    std::vector<std::string> problems;
    std::vector<bool> served;
    int resident = -1;
    void load(size_t line, int set) {
        LoadNote n;
        n.line = line, n.set = set, n.set_name = set_name(set), n.from = set_name(resident), n.redundant = set == resident;
        notes.push_back(n);
        served.push_back(false);
        resident = set;
    }
    void compute(size_t line, const std::string& fn) {
        if (fn.empty()) return;
        if (!set_holds(resident, fn)) {
            problems.push_back("line " + std::to_string(line) + ": " + fn + " is not in the resident set " + set_name(resident) + " (the run fails here)");
            return;
        }
        if (notes.empty()) return;
        LoadNote& n = notes.back();
        served.back() = true;
        const int prev = notes.size() > 1 ? notes[notes.size() - 2].set : -1;
        if (!n.redundant && !set_holds(prev, fn) && std::find(n.forced_by.begin(), n.forced_by.end(), fn) == n.forced_by.end()) n.forced_by.push_back(fn);
    }
    void finish() {
        for (size_t i = 0; i < notes.size(); ++i) notes[i].unused = !served[i];
    }
};

// Schedules one run of movable instructions (indices into `lines`) from resident set `cur`.
class SegmentScheduler {
public:
    SegmentScheduler(const std::vector<ActLine>& lines, const std::vector<size_t>& seg) : lines_(lines), seg_(seg), succ_(seg.size()), npred_(seg.size(), 0) {
        for (size_t j = 0; j < seg.size(); ++j)
            for (size_t k = j + 1; k < seg.size(); ++k)
                if (conflict(lines[seg[j]].access, lines[seg[k]].access)) succ_[j].push_back(k), ++npred_[k];
    }

    // Appends the schedule to `out`; returns the resident set at the end.
    int run(int cur, std::vector<AdvisedStep>& out) {
        std::vector<bool> done(seg_.size(), false), overtaken(seg_.size(), false);
        std::vector<size_t> npred = npred_;
        size_t left = seg_.size();
        while (left) {
            size_t pick = SIZE_MAX;
            for (size_t k = 0; k < seg_.size() && pick == SIZE_MAX; ++k)
                if (!done[k] && npred[k] == 0 && usable(k, cur)) pick = k;
            if (pick == SIZE_MAX) {
                cur = best_set(done, npred);
                AdvisedStep l;
                l.load = true, l.set = cur;
                l.text = "act load_act_func_set set=" + std::to_string(cur) + "   # advise: " + set_name(cur);
                out.push_back(l);
                continue;
            }
            done[pick] = true, --left;
            for (size_t s : succ_[pick]) --npred[s];
            const ActLine& a = lines_[seg_[pick]];
            AdvisedStep st;
            st.line = a.line, st.function = a.function, st.text = a.text;
            for (size_t k = 0; k < pick; ++k)
                if (!done[k]) st.moved = true, overtaken[k] = true;  // it overtook an earlier instruction
            out.push_back(st);
        }
        for (size_t k = 0; k < seg_.size(); ++k)
            if (overtaken[k]) mark_overtaken_.push_back(seg_[k]);
        return cur;
    }
    const std::vector<size_t>& overtaken() const { return mark_overtaken_; }

private:
    bool usable(size_t k, int set) const {
        const ActLine& a = lines_[seg_[k]];
        return a.access.kind != Kind::Compute || set_holds(set, a.function);
    }
    // How many activations can run under `set` before another switch.
    size_t closure(int set, std::vector<bool> done, std::vector<size_t> npred) const {
        std::vector<size_t> ready;
        for (size_t k = 0; k < seg_.size(); ++k)
            if (!done[k] && npred[k] == 0 && usable(k, set)) ready.push_back(k);
        size_t n = 0;
        while (!ready.empty()) {
            const size_t k = ready.back();
            ready.pop_back();
            if (done[k]) continue;
            done[k] = true;
            n += lines_[seg_[k]].access.kind == Kind::Compute;
            for (size_t s : succ_[k])
                if (--npred[s] == 0 && !done[s] && usable(s, set)) ready.push_back(s);
        }
        return n;
    }
    int best_set(const std::vector<bool>& done, const std::vector<size_t>& npred) const {
        int best = -1;
        size_t most = 0;
        for (int s = 0; s < static_cast<int>(trainium_sets().size()); ++s) {
            const size_t c = closure(s, done, npred);
            if (c > most) best = s, most = c;  // ties: the earlier set (the compiler's first fit)
        }
        if (best < 0) {
            for (size_t k = 0; k < seg_.size(); ++k)
                if (!done[k] && npred[k] == 0)
                    throw Error("line " + std::to_string(lines_[seg_[k]].line) + ": no set of the trainium roster holds " + lines_[seg_[k]].function);
            throw Error("advise: no schedulable instruction (a dependence cycle)");
        }
        return best;
    }

    const std::vector<ActLine>& lines_;
    const std::vector<size_t>& seg_;
    std::vector<std::vector<size_t>> succ_;
    std::vector<size_t> npred_;
    std::vector<size_t> mark_overtaken_;
};

}  // namespace

// The NKI ISA's VectorE instruction that computes a function without an ACT table, or null:
// a kernel that switches sets only for these keeps one set resident by moving them there.
const char* vector_engine_instruction(const std::string& fn) {
    if (fn == "reciprocal") return "dve reciprocal, nisa.reciprocal";
    if (fn == "identity" || fn == "copy") return "dve tensor_scalar or tensor_copy, nisa.tensor_scalar or nisa.tensor_copy";
    return nullptr;
}

// Loads forced only by VectorE-computable functions, by set and functions, and the loads that
// switch back from that set: what keeping one set resident would save.
std::vector<std::string> vector_engine_hints(const std::vector<LoadNote>& loads) {
    std::map<std::string, std::pair<size_t, std::vector<std::string>>> by_set;  // set -> (loads, functions)
    for (const LoadNote& n : loads) {
        if (n.redundant || n.unused || n.forced_by.empty()) continue;
        if (!std::all_of(n.forced_by.begin(), n.forced_by.end(), [](const std::string& f) { return vector_engine_instruction(f) != nullptr; })) continue;
        auto& e = by_set[n.set_name];
        ++e.first;
        for (const std::string& f : n.forced_by)
            if (std::find(e.second.begin(), e.second.end(), f) == e.second.end()) e.second.push_back(f);
    }
    std::vector<std::string> out;
    for (const auto& [set, e] : by_set) {
        if (e.first < 2) continue;  // (one switch is a kernel's phase change, not a habit)
        size_t back = 0;  // the switches away from it again
        for (const LoadNote& n : loads) back += !n.redundant && n.from == set;
        std::string fns, ops;
        for (const std::string& f : e.second) {
            fns += (fns.empty() ? "" : ", ") + f;
            ops += (ops.empty() ? "" : "; ") + f + ": " + vector_engine_instruction(f);
        }
        out.push_back(std::to_string(e.first) + " loads of " + set + " are only for " + fns + ", and " + std::to_string(back) + " more switch back (" +
                      std::to_string(e.first + back) + " of the " + std::to_string(loads.size()) +
                      " loads): a compiler keeps one set resident and computes these on VectorE (" + ops +
                      "), on neuronsim's dve queue (docs/vector-engine.md)");
    }
    return out;
}

Advice advise(const std::string& trace_path) {
    Advice a;
    a.trace = trace_path;
    const std::vector<ActLine> lines = read_act_stream(trace_path);

    LoadTracker original;
    for (const ActLine& l : lines) {
        if (l.access.kind == Kind::TableLoad) original.load(l.line, l.access.set);
        else if (l.access.kind == Kind::Compute) original.compute(l.line, l.function);
    }
    original.finish();
    a.loads = original.notes;
    a.problems = original.problems;
    for (const LoadNote& n : a.loads) a.redundant += n.redundant, a.unused += n.unused && !n.redundant;
    a.hints = vector_engine_hints(a.loads);

    // The suggestion: movable runs rescheduled, fixed instructions in place.
    int cur = -1;
    std::vector<size_t> seg;
    std::vector<size_t> overtaken;
    auto flush = [&]() {
        for (size_t at = 0; at < seg.size(); at += kMaxSegment) {
            const std::vector<size_t> piece(seg.begin() + static_cast<long>(at), seg.begin() + static_cast<long>(std::min(seg.size(), at + kMaxSegment)));
            SegmentScheduler s(lines, piece);
            cur = s.run(cur, a.suggested);
            overtaken.insert(overtaken.end(), s.overtaken().begin(), s.overtaken().end());
        }
        seg.clear();
    };
    for (size_t i = 0; i < lines.size(); ++i) {
        const ActLine& l = lines[i];
        if (!l.access.fixed) {
            if (l.access.kind != Kind::TableLoad) seg.push_back(i);  // movable loads are recomputed
            continue;
        }
        flush();
        ++a.fixed;
        if (a.fixed_reasons.size() < 5) a.fixed_reasons.push_back("line " + std::to_string(l.line) + " " + l.access.why_fixed);
        AdvisedStep st;
        st.line = l.line, st.function = l.function, st.text = l.text;
        if (l.access.kind == Kind::TableLoad) {
            st.load = true, st.set = l.access.set;
            cur = l.access.set;
        } else if (l.access.kind == Kind::Compute && !set_holds(cur, l.function)) {
            const int s = first_set_covering({l.function});
            if (s >= 0) {
                AdvisedStep ld;
                ld.load = true, ld.set = s;
                ld.text = "act load_act_func_set set=" + std::to_string(s) + "   # advise: " + set_name(s);
                a.suggested.push_back(ld);
                cur = s;
            }
        }
        a.suggested.push_back(st);
    }
    flush();
    std::vector<bool> was_overtaken_line;
    for (size_t i : overtaken) {
        if (was_overtaken_line.size() <= lines[i].line) was_overtaken_line.resize(lines[i].line + 1, false);
        was_overtaken_line[lines[i].line] = true;
    }
    for (AdvisedStep& st : a.suggested)
        if (!st.load && st.line < was_overtaken_line.size() && was_overtaken_line[st.line]) st.moved = true;

    LoadTracker suggested;
    for (const AdvisedStep& st : a.suggested) {
        if (st.load) suggested.load(st.line, st.set);
        else suggested.compute(st.line, st.function);
    }
    suggested.finish();
    a.suggested_switches = suggested.notes;
    a.suggested_loads = suggested.notes.size();
    return a;
}

std::string rewritten_trace(const std::string& trace_path, const Advice& a) {
    trace::TraceReader reader(trace_path);
    const fs::path dir = fs::absolute(fs::path(reader.dir()));
    std::vector<std::string> out;
    std::vector<size_t> slots;  // positions of the original ACT instructions in `out`
    while (auto text = reader.next_line()) {
        const std::string w = first_word(*text);
        if (w == "act" && trace::parse_trace_line(*text, trace_path, reader.line(), reader.dir())) {
            slots.push_back(out.size());
            out.emplace_back();
            continue;
        }
        std::string t = *text;
        if (w == ".data") {  // file=RELATIVE -> absolute
            const size_t f = t.find("file=");
            if (f != std::string::npos) {
                const size_t end = t.find_first_of(" \t#\r", f);
                const std::string name = t.substr(f + 5, end == std::string::npos ? std::string::npos : end - f - 5);
                if (!name.empty() && fs::path(name).is_relative()) t.replace(f + 5, name.size(), (dir / name).lexically_normal().string());
            }
        }
        out.push_back(t);
    }
    // The suggested stream fills the ACT slots in order; the rest goes into the last slot.
    for (size_t i = 0; i < a.suggested.size(); ++i) {
        const size_t slot = slots.empty() ? out.size() : slots[std::min(i, slots.size() - 1)];
        if (slots.empty()) out.emplace_back();
        std::string& s = out[slot];
        s += (s.empty() ? "" : "\n") + a.suggested[i].text;
    }
    std::ostringstream o;
    o << "# rewritten by `neuronsim advise` from " << trace_path << ": " << a.suggested_loads << " table loads instead of " << a.loads.size() << "\n";
    for (size_t i = 0; i < out.size(); ++i) {
        const bool empty_slot = out[i].empty() && std::binary_search(slots.begin(), slots.end(), i);
        if (!empty_slot) o << out[i] << "\n";
    }
    return o.str();
}

}  // namespace neuronsim::model::workloads
