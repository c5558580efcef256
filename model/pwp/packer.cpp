#include "model/pwp/packer.h"

#include <filesystem>
#include <set>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/io/json_path.h"
#include "model/io/write_file.h"

namespace neuronsim::model::pwp {

using fp::bits_of;

namespace {

struct SideRange {
    int first = 0, count = 0;  // declared octaves: exponents [first, first + count)
};

// A side's declared octaves must be contiguous: one ctrl word per declared octave,
// addressed as base + (exponent - exp_offset).
SideRange side_range(const Region& r, const std::string& where) {
    SideRange s;
    int last = -1000;
    for (int b = 0; b < 256; ++b) {
        if (!r.octaves[b].declared) continue;
        int e = b - 127;
        if (s.count == 0) s.first = e;
        else if (e != last + 1)
            throw Error(where + ": declared octaves are not contiguous (exponent " + std::to_string(last) + " then " + std::to_string(e) +
                        "); each declared octave is one ctrl word");
        last = e;
        ++s.count;
    }
    return s;
}

}  // namespace

PackedSet pack_set(Target target, const std::string& set_name, const std::vector<SetMember>& members) {
    PackedSet out;
    out.name = set_name;
    out.target = target;
    out.stride = ctrl_stride(target);
    SetManifest& m = out.manifest;
    m.bkt_bin = set_name + "_bkt.bin";
    m.ctl_bin = set_name + "_ctrl.bin";
    std::set<int64_t> ids;
    std::set<std::string> names;
    uint32_t bkt_idx = 0, ctl_idx = 0;

    for (const SetMember& mem : members) {
        const Profile& p = mem.profile;
        const std::string name = strip_budget(mem.stem);
        const std::string where = "set " + set_name + ": " + mem.stem;
        if (!names.insert(name).second) throw Error(where + ": function " + name + " is already in the set");

        FuncMeta f;
        f.func_name = mem.stem;
        const auto& id = target == Target::Trainium ? p.meta.sunda_id : p.meta.tonga_id;
        if (!id || *id <= 0)
            throw Error(where + ": the profile has no " + (target == Target::Trainium ? "sunda_id" : "tonga_id") + ", the func_id on " + target_name(target));
        f.func_id = *id;
        if (!ids.insert(f.func_id).second) throw Error(where + ": func_id " + std::to_string(f.func_id) + " is used twice in the set");
        f.fzero_result = bits_of(p.zero_result);
        f.fpinf_result = bits_of(p.pinf_result);
        f.fninf_result = bits_of(p.ninf_result);
        f.fnan_result = bits_of(p.nan_result);
        f.symmetry_opt_en = p.symmetry_en;
        f.sym_invert_sign_point = p.symmetry_invert_sign_opt;
        f.symmetry_opt_use_neg_region = p.symmetry_opt_use_neg_region;
        f.symmetry_point = bits_of(p.symmetry_point);
        f.imm_bias = static_cast<int64_t>(fp::float_of(p.meta.imm_bias));
        f.fma_const_0 = p.meta.fma_const0;
        f.fma_const_1 = p.meta.fma_const1;
        f.fma_indirection_src_sel = p.meta.fma_const0 ? 2 : 0;  // the prelu slope blend (seed 000 §6)
        f.lower_bound = p.meta.lower_bound;
        f.upper_bound = p.meta.upper_bound;
        f.use_multipass = p.meta.use_multipass.value_or(false);

        // The manifest carries no mantissa threshold for the low clamps: they must be 0.
        for (const auto& [sat, label] : {std::pair{&p.sat_pos_low, "sat_point_pos_low"}, std::pair{&p.sat_neg_low, "sat_point_neg_low"}})
            if (sat->mantissa_point != 0)
                throw Error(where + ": saturation_points." + label + ".mantissa_point is " + std::to_string(sat->mantissa_point) +
                            "; the set manifest has no low mantissa threshold (it must be 0)");
        f.small_pos_signal_exp_threshold = p.sat_pos_low.sat_point;
        f.small_neg_signal_exp_threshold = p.sat_neg_low.sat_point;
        f.large_pos_signal_exp_threshold = p.sat_pos_high.sat_point;
        f.large_neg_signal_exp_threshold = p.sat_neg_high.sat_point;
        f.large_pos_signal_mantissa_threshold = p.sat_pos_high.mantissa_point;
        f.large_neg_signal_mantissa_threshold = p.sat_neg_high.mantissa_point;

        SideRange neg = side_range(p.neg, where + ": neg_exponents");
        SideRange pos = side_range(p.pos, where + ": pos_exponents");
        int exp_offset = 0;
        if (neg.count && pos.count) exp_offset = std::min(neg.first, pos.first);
        else if (neg.count) exp_offset = neg.first;
        else if (pos.count) exp_offset = pos.first;
        f.exp_offset = exp_offset;

        m.func_to_bkt_start_idx.emplace_back(name, bkt_idx);
        m.func_to_ctl_start_idx.emplace_back(name, ctl_idx);
        nlohmann::ordered_json exp_bkt = nlohmann::ordered_json::object(), exp_ctl = nlohmann::ordered_json::object();

        auto emit_side = [&](const Region& r, const SideRange& range, const char* side, int64_t& base_field) {
            // base + (exponent - exp_offset) must land on this side's first word.
            int64_t base = static_cast<int64_t>(ctl_idx) - (range.count ? range.first - exp_offset : 0);
            if (base < 0)
                throw Error(where + ": " + side + " octaves start at exponent " + std::to_string(range.first) + ", which the shared exp_offset " +
                            std::to_string(exp_offset) + " cannot address from ctrl index " + std::to_string(ctl_idx));
            base_field = base;
            for (int e = range.first; e < range.first + range.count; ++e) {
                const Region::Octave& o = r.octaves[e + 127];
                if (bkt_idx > kBktBaseMax)
                    throw Error(where + ": " + side + " octave " + std::to_string(e) + ": bkt_base " + std::to_string(bkt_idx) +
                                " is over the 11-bit field (max " + std::to_string(kBktBaseMax) + ")");
                if (o.extract_size > kExtractSizeMax)
                    throw Error(where + ": " + side + " octave " + std::to_string(e) + ": extract_size " + std::to_string(o.extract_size) +
                                " is over the CONTROL entry's 4-bit field (max " + std::to_string(kExtractSizeMax) + ")");
                std::string key = std::string(side) + "_" + std::to_string(e);
                exp_bkt[key] = bkt_idx;
                exp_ctl[key] = ctl_idx;
                uint32_t word = o.count ? pack_ctrl(bkt_idx, o.extract_size) : pack_ctrl_sentinel(bkt_idx);
                append_ctrl(out.ctrl, word, out.stride);
                ++ctl_idx;
                for (uint32_t k = 0; k < o.count; ++k) append_bkt(out.bkt, r.sections[o.first + k]);
                bkt_idx += o.count;
            }
        };
        emit_side(p.neg, neg, "neg", f.pwl_control_base_neg);
        emit_side(p.pos, pos, "pos", f.pwl_control_base_pos);
        // The four clamp slots, in the fixed disk order [pos_low, neg_low, pos_high, neg_high].
        f.pos_small_signal_pwl_control = bkt_idx;
        f.neg_small_signal_pwl_control = bkt_idx + 1;
        f.pos_large_signal_pwl_control = bkt_idx + 2;
        f.neg_large_signal_pwl_control = bkt_idx + 3;
        for (const SatRegion* s : {&p.sat_pos_low, &p.sat_neg_low, &p.sat_pos_high, &p.sat_neg_high}) append_bkt(out.bkt, s->section);
        bkt_idx += 4;
        m.func_exp_to_bkt_start_idx[name] = std::move(exp_bkt);
        m.func_exp_to_ctl_start_idx[name] = std::move(exp_ctl);
        m.profile_meta_data.push_back(f);
    }
    m.bkt_entry_cnt = bkt_idx;
    m.ctl_entry_cnt = ctl_idx;
    return out;
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) { io::write_file_atomic(path, bytes); }

void write_text(const std::string& path, const std::string& text) { io::write_file_atomic(path, text); }

void write_set(const PackedSet& set, const std::string& dir) {
    io::make_directories(dir);
    write_bytes(dir + "/" + set.manifest.bkt_bin, set.bkt);
    write_bytes(dir + "/" + set.manifest.ctl_bin, set.ctrl);
    write_text(dir + "/" + set.name + ".json", manifest_to_json(set.manifest).dump(2) + "\n");
}

PackedSet read_set(const std::string& manifest_path) {
    PackedSet set;
    set.manifest = parse_manifest(io::read_text_file(manifest_path, io::kMaxJsonFileBytes, "set manifest"), manifest_path);
    std::filesystem::path mp(manifest_path);
    set.name = mp.stem().string();
    const std::string dir = mp.parent_path().empty() ? "." : mp.parent_path().string();
    const SetManifest& m = set.manifest;
    const std::string bkt_path = dir + "/" + m.bkt_bin, ctl_path = dir + "/" + m.ctl_bin;
    // parse_manifest keeps the names inside the manifest's directory; the reader refuses
    // special files and anything over the blob limit before reading.
    set.bkt = io::read_bytes_checked(bkt_path, io::kMaxBlobFileBytes, "bkt blob");
    set.ctrl = io::read_bytes_checked(ctl_path, io::kMaxBlobFileBytes, "ctrl blob");
    if (set.bkt.size() != static_cast<size_t>(m.bkt_entry_cnt) * kBktRecordBytes)
        throw Error(bkt_path + ": " + std::to_string(set.bkt.size()) + " bytes, but bkt_entry_cnt " + std::to_string(m.bkt_entry_cnt) +
                    " x 32 = " + std::to_string(m.bkt_entry_cnt * 32));
    if (m.ctl_entry_cnt == 0 || set.ctrl.size() % static_cast<size_t>(m.ctl_entry_cnt) != 0 || (set.ctrl.size() / m.ctl_entry_cnt) < 4)
        throw Error(ctl_path + ": " + std::to_string(set.ctrl.size()) + " bytes is not a whole number of " + "entries of at least 4 bytes for ctl_entry_cnt " +
                    std::to_string(m.ctl_entry_cnt));
    set.stride = set.ctrl.size() / static_cast<size_t>(m.ctl_entry_cnt);
    set.target = set.stride == 16 ? Target::WithLn : Target::Trainium;
    // Every index the evaluator follows must stay inside the blobs.
    for (size_t i = 0; i < m.profile_meta_data.size(); ++i) {
        const FuncMeta& f = m.profile_meta_data[i];
        const std::string where = manifest_path + ": $.profile_meta_data[" + std::to_string(i) + "]";
        for (int64_t b : {f.pos_small_signal_pwl_control, f.neg_small_signal_pwl_control, f.pos_large_signal_pwl_control, f.neg_large_signal_pwl_control})
            if (b < 0 || b >= m.bkt_entry_cnt)
                throw Error(where + ": clamp pointer " + std::to_string(b) + " is outside the " + std::to_string(m.bkt_entry_cnt) + " bkt entries");
        for (int64_t c : {f.pwl_control_base_pos, f.pwl_control_base_neg})
            if (c < 0 || c > m.ctl_entry_cnt)
                throw Error(where + ": pwl_control_base " + std::to_string(c) + " is outside the " + std::to_string(m.ctl_entry_cnt) + " ctrl entries");
    }
    return set;
}

}  // namespace neuronsim::model::pwp
