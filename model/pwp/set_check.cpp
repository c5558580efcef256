#include "model/pwp/set_check.h"

#include <algorithm>
#include <filesystem>

#include "model/common/error.h"
#include "model/io/json_path.h"
#include "model/pwp/blob.h"
#include "model/pwp/manifest.h"
#include "model/pwp/roster.h"

namespace neuronsim::model::pwp {

namespace {

class Checker {
public:
    explicit Checker(CheckResult& r) : r_(r) {}
    void issue(const std::string& file, const std::string& where, const std::string& what) { r_.issues.push_back({file, where, what}); }
    void check_set(const std::string& dir, const RosterSet& rs, size_t& stride_seen, bool listed);

private:
    CheckResult& r_;
};

void Checker::check_set(const std::string& dir, const RosterSet& rs, size_t& stride_seen, bool listed) {
    const std::string mpath = dir + "/" + rs.name + ".json";
    SetManifest m;
    std::vector<uint8_t> bkt, ctrl;
    // Each file's failure is reported against that file; the other sets are still checked.
    std::string reading = rs.name + ".json";
    try {
        m = parse_manifest(io::read_text_file(mpath, io::kMaxJsonFileBytes, "set manifest"), mpath);
        reading = m.bkt_bin;
        bkt = io::read_bytes_checked(dir + "/" + m.bkt_bin, io::kMaxBlobFileBytes, "bkt blob");
        reading = m.ctl_bin;
        ctrl = io::read_bytes_checked(dir + "/" + m.ctl_bin, io::kMaxBlobFileBytes, "ctrl blob");
    } catch (const std::exception& e) {
        issue(reading, "set " + rs.name, e.what());
        return;
    }
    ++r_.sets;
    const std::string bfile = m.bkt_bin, cfile = m.ctl_bin, mfile = rs.name + ".json";
    if (m.bkt_bin != rs.name + "_bkt.bin") issue(mfile, "$.bkt_bin", "names " + m.bkt_bin + ", expected " + rs.name + "_bkt.bin");
    if (m.ctl_bin != rs.name + "_ctrl.bin") issue(mfile, "$.ctl_bin", "names " + m.ctl_bin + ", expected " + rs.name + "_ctrl.bin");

    // Counts against file sizes; the ctrl stride is size / count, the same in the directory.
    if (bkt.size() != static_cast<size_t>(m.bkt_entry_cnt) * kBktRecordBytes) {
        issue(bfile, "file size",
              std::to_string(bkt.size()) + " bytes, bkt_entry_cnt " + std::to_string(m.bkt_entry_cnt) + " x 32 = " + std::to_string(m.bkt_entry_cnt * 32));
        return;
    }
    if (m.ctl_entry_cnt <= 0 || ctrl.size() % static_cast<size_t>(m.ctl_entry_cnt) != 0) {
        issue(cfile, "file size", std::to_string(ctrl.size()) + " bytes is not ctl_entry_cnt " + std::to_string(m.ctl_entry_cnt) + " x a whole stride");
        return;
    }
    const size_t stride = ctrl.size() / static_cast<size_t>(m.ctl_entry_cnt);
    if (stride != 16 && stride != 32)
        issue(cfile, "file size", "stride " + std::to_string(stride) + " B (size / count); expected 32 (trainium) or 16 (with_ln)");
    if (stride_seen && stride != stride_seen)
        issue(cfile, "file size",
              "stride " + std::to_string(stride) + " B differs from " + std::to_string(stride_seen) + " B of the other sets in this directory");
    stride_seen = stride_seen ? stride_seen : stride;
    if (stride < 4) return;
    r_.bkt_records += bkt.size() / kBktRecordBytes;
    r_.ctrl_words += static_cast<size_t>(m.ctl_entry_cnt);

    for (size_t i = 0; i < bkt.size() / kBktRecordBytes; ++i)
        if (!bkt_pad_is_zero(bkt, i)) issue(bfile, "record " + std::to_string(i), "bytes 20..31 are not zero");
    for (size_t i = 0; i < static_cast<size_t>(m.ctl_entry_cnt); ++i) {
        if (unpack_ctrl(read_ctrl(ctrl, i, stride)).reserved) issue(cfile, "word " + std::to_string(i), "reserved bits 24..31 are not zero");
        if (!ctrl_pad_is_zero(ctrl, i, stride)) issue(cfile, "word " + std::to_string(i), "pad bytes 4.." + std::to_string(stride - 1) + " are not zero");
    }

    // The functions against the roster and the maps.
    std::vector<std::string> roster_names, meta_names;
    for (const auto& [f, b] : rs.act) roster_names.push_back(f + "_" + std::to_string(b) + "p");
    for (const FuncMeta& f : m.profile_meta_data) meta_names.push_back(f.func_name);
    if (listed && roster_names != meta_names) {
        std::string a, b;
        for (auto& n : roster_names) a += (a.empty() ? "" : " ") + n;
        for (auto& n : meta_names) b += (b.empty() ? "" : " ") + n;
        issue(mfile, "$.profile_meta_data", "functions [" + b + "] differ from act_info.json's [" + a + "]");
    }
    auto index_of = [](const IndexMap& map, const std::string& k) -> int64_t {
        for (const auto& [name, v] : map)
            if (name == k) return v;
        return -1;
    };
    // Blocks in file order tile both tables; the next function's start bounds this one.
    std::vector<int64_t> bstarts, cstarts;
    for (const auto& kv : m.func_to_bkt_start_idx) bstarts.push_back(kv.second);
    for (const auto& kv : m.func_to_ctl_start_idx) cstarts.push_back(kv.second);
    std::sort(bstarts.begin(), bstarts.end());
    std::sort(cstarts.begin(), cstarts.end());
    auto next_after = [](const std::vector<int64_t>& v, int64_t x, int64_t end) {
        auto it = std::upper_bound(v.begin(), v.end(), x);
        return it == v.end() ? end : *it;
    };
    std::vector<int64_t> ids;
    for (size_t fi = 0; fi < m.profile_meta_data.size(); ++fi) {
        const FuncMeta& f = m.profile_meta_data[fi];
        ++r_.functions;
        const std::string fw = "$.profile_meta_data[" + std::to_string(fi) + "] (" + f.func_name + ")";
        if (std::find(ids.begin(), ids.end(), f.func_id) != ids.end()) issue(mfile, fw, "func_id " + std::to_string(f.func_id) + " is used twice");
        ids.push_back(f.func_id);
        const int64_t b0 = index_of(m.func_to_bkt_start_idx, f.bare_name());
        const int64_t c0 = index_of(m.func_to_ctl_start_idx, f.bare_name());
        if (b0 < 0 || c0 < 0) {
            issue(mfile, fw, "has no entry in func_to_bkt_start_idx / func_to_ctl_start_idx");
            continue;
        }
        if (b0 > m.bkt_entry_cnt || c0 > m.ctl_entry_cnt) {
            issue(mfile, fw,
                  "starts at bkt " + std::to_string(b0) + " / ctrl " + std::to_string(c0) + ", past the " + std::to_string(m.bkt_entry_cnt) +
                      " bkt records / " + std::to_string(m.ctl_entry_cnt) + " ctrl words");
            continue;
        }
        // A block ends at the next start, and never past the table (the words are read).
        const int64_t b_end = std::min(next_after(bstarts, b0, m.bkt_entry_cnt), m.bkt_entry_cnt);
        const int64_t c_end = std::min(next_after(cstarts, c0, m.ctl_entry_cnt), m.ctl_entry_cnt);
        // Clamp pointers: the four records after the LUT body, [pos_low, neg_low, pos_high, neg_high].
        const int64_t sat = b_end - 4;
        const int64_t want[4] = {sat, sat + 1, sat + 2, sat + 3};
        const int64_t got[4] = {f.pos_small_signal_pwl_control, f.neg_small_signal_pwl_control, f.pos_large_signal_pwl_control, f.neg_large_signal_pwl_control};
        const char* names[4] = {"pos_small_signal_pwl_control", "neg_small_signal_pwl_control", "pos_large_signal_pwl_control", "neg_large_signal_pwl_control"};
        for (int k = 0; k < 4; ++k)
            if (got[k] != want[k])
                issue(mfile, fw + "." + names[k], "is " + std::to_string(got[k]) + ", the function's clamp slot is bkt " + std::to_string(want[k]));
        // ctrl words: bases accumulate the actual sections from the function's bkt start;
        // populated octaves satisfy extract_lsb == 23 - extract_size and hold at most
        // 2^extract_size sections; the body ends where the clamp slots begin.
        // The last word of each side may be a truncated top octave; every other populated
        // octave is full. The neg block ends where the pos block begins.
        const int64_t neg_last = (f.pwl_control_base_neg < f.pwl_control_base_pos && f.pwl_control_base_pos <= c_end) ? f.pwl_control_base_pos - 1 : -1;
        int64_t expect_base = b0;
        for (int64_t c = c0; c < c_end; ++c) {
            const CtrlWord w = unpack_ctrl(read_ctrl(ctrl, static_cast<size_t>(c), stride));
            const int64_t next = c + 1 < c_end ? unpack_ctrl(read_ctrl(ctrl, static_cast<size_t>(c + 1), stride)).bkt_base : sat;
            const std::string ww = "word " + std::to_string(c) + " (" + f.func_name + ")";
            if (w.bkt_base != expect_base)
                issue(cfile, ww,
                      "bkt_base " + std::to_string(w.bkt_base) + ", expected " + std::to_string(expect_base) + " (start + sections of the octaves before)");
            const int64_t count = next - static_cast<int64_t>(w.bkt_base);
            if (count < 0) {
                issue(cfile, ww, "bkt_base " + std::to_string(w.bkt_base) + " is past the next octave's " + std::to_string(next));
                expect_base = next;
                continue;
            }
            if (count > 0) {
                if (w.extract_lsb != 23 - w.extract_size)
                    issue(cfile, ww, "extract_lsb " + std::to_string(w.extract_lsb) + " != 23 - extract_size " + std::to_string(w.extract_size));
                const int64_t full = int64_t{1} << std::min<uint32_t>(w.extract_size, 30);
                const bool top = c == neg_last || c == c_end - 1;
                if (count > full || (!top && count != full))
                    issue(cfile, ww,
                          std::to_string(count) + " sections where a full octave holds 2^extract_size = " + std::to_string(full) +
                              (top ? "" : " (this base or the next octave's is off)"));
            } else if (w.extract_lsb != 0 || w.extract_size != 0) {
                issue(cfile, ww,
                      "empty octave (0 sections) with extract_lsb " + std::to_string(w.extract_lsb) + ", extract_size " + std::to_string(w.extract_size) +
                          "; a sentinel has both 0");
            }
            expect_base = next;
        }
        // The octave pointers: the evaluator reads side S's octave E at ctrl word
        // pwl_control_base_S + (E - exp_offset); the manifest's func_exp_to_ctl_start_idx says
        // which word holds it. A base that disagrees makes every lookup of its side read another
        // octave's word (seen: a base raised by one made exp(32) negative).
        if (const auto octs = m.func_exp_to_ctl_start_idx.find(f.bare_name()); octs != m.func_exp_to_ctl_start_idx.end() && octs->is_object()) {
            bool reported[2] = {false, false};
            for (const auto& [key, val] : octs->items()) {
                const bool neg = key.rfind("neg_", 0) == 0;
                if ((!neg && key.rfind("pos_", 0) != 0) || !val.is_number_integer()) continue;
                int64_t e = 0;
                try {
                    e = std::stoll(key.substr(4));
                } catch (const std::exception&) {
                    continue;
                }
                const int64_t base = neg ? f.pwl_control_base_neg : f.pwl_control_base_pos;
                const int64_t at = base + (e - f.exp_offset), want = val.get<int64_t>();
                if (at != want && !reported[neg]) {
                    reported[neg] = true;
                    issue(mfile, fw + (neg ? ".pwl_control_base_neg" : ".pwl_control_base_pos"),
                          "is " + std::to_string(base) + ": octave " + key + " would be read from ctrl word " + std::to_string(at) +
                              ", but func_exp_to_ctl_start_idx puts it at " + std::to_string(want));
                } else if (!reported[neg] && (at < c0 || at >= c_end)) {
                    reported[neg] = true;
                    issue(mfile, fw + (neg ? ".pwl_control_base_neg" : ".pwl_control_base_pos"),
                          "octave " + key + " is read from ctrl word " + std::to_string(at) + ", outside the function's words " + std::to_string(c0) + ".." +
                              std::to_string(c_end - 1));
                }
            }
        }
        if (c_end == c0 && sat != b0) issue(mfile, fw, "no octaves but " + std::to_string(sat - b0) + " LUT records before the clamp slots");
        // Top-octave truncation: the high clamp's mantissa threshold starts exactly after the
        // materialised sections of the top octave it lands in.
        for (bool neg : {false, true}) {
            const int64_t base = neg ? f.pwl_control_base_neg : f.pwl_control_base_pos;
            const int64_t thr_e = neg ? f.large_neg_signal_exp_threshold : f.large_pos_signal_exp_threshold;
            const int64_t thr_m = neg ? f.large_neg_signal_mantissa_threshold : f.large_pos_signal_mantissa_threshold;
            const int64_t idx = base + (thr_e - 127 - f.exp_offset);
            if (thr_m == 0 || idx < c0 || idx >= c_end) continue;
            // Only when that octave belongs to this side (the other side's block follows).
            const int64_t side_end = neg ? std::min(c_end, f.pwl_control_base_pos > base ? f.pwl_control_base_pos : c_end) : c_end;
            if (idx >= side_end) continue;
            const CtrlWord w = unpack_ctrl(read_ctrl(ctrl, static_cast<size_t>(idx), stride));
            const int64_t next = idx + 1 < c_end ? unpack_ctrl(read_ctrl(ctrl, static_cast<size_t>(idx + 1), stride)).bkt_base : sat;
            const int64_t count = next - static_cast<int64_t>(w.bkt_base);
            if (count <= 0) continue;
            const int64_t need = (thr_m + (int64_t{1} << w.extract_lsb) - 1) >> w.extract_lsb;
            if (count != need)
                issue(mfile, fw + std::string(neg ? ".large_neg" : ".large_pos") + "_signal_mantissa_threshold",
                      std::to_string(thr_m) + " needs " + std::to_string(need) + " sections in top octave word " + std::to_string(idx) +
                          ", which materialises " + std::to_string(count));
        }
    }
}

}  // namespace

CheckResult check_pwp_dir(const std::string& dir) {
    CheckResult r;
    Checker c(r);
    const std::string act = dir + "/act_info.json";
    std::vector<RosterSet> roster;
    bool have_roster = true;
    try {
        roster = parse_act_info(io::read_text_file(act, io::kMaxJsonFileBytes, "act_info.json"), act);
    } catch (const std::exception& e) {
        c.issue("act_info.json", "$", e.what());
        have_roster = false;
    }
    if (!std::filesystem::exists(dir + "/version.json")) c.issue("version.json", "-", "missing");
    if (!have_roster) {
        // Without a roster the sets are still checked: every <set>.json beside a <set>_bkt.bin,
        // in name order, without the comparison against act_info.json.
        std::error_code ec;
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
            const std::string f = e.path().filename().string();
            if (e.path().extension() == ".json" && f != "act_info.json" && f != "version.json" &&
                std::filesystem::exists(e.path().parent_path() / (e.path().stem().string() + "_bkt.bin")))
                names.push_back(e.path().stem().string());
        }
        if (ec) c.issue(".", "-", dir + ": cannot list the directory: " + ec.message());
        std::sort(names.begin(), names.end());
        for (const std::string& n : names) roster.push_back(RosterSet{n, {}});
    }
    size_t stride = 0;
    for (const RosterSet& rs : roster) {
        try {
            c.check_set(dir, rs, stride, have_roster);
        } catch (const std::exception& e) {  // a check that fails on its own input still leaves the others
            c.issue(rs.name + ".json", "set " + rs.name, e.what());
        }
    }
    return r;
}

}  // namespace neuronsim::model::pwp
