#include "model/pwp/verify_all.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/fast_eval.h"
#include "model/pwp/flat_table.h"

namespace neuronsim::model::pwp {

VerifyResult verify_all_inputs(const Profile& p, TableEvaluator& te, const FuncMeta& f, unsigned threads, bool fast,
                               const std::function<void(uint64_t done)>& progress, uint64_t first, uint64_t last) {
    if (first > last || last > (uint64_t{1} << 32))
        throw Error("verify: inputs [" + std::to_string(first) + ", " + std::to_string(last) + ") are not in [0, 2^32)");
    const unsigned nt = std::max(1u, threads);
    std::atomic<uint64_t> equal{0}, both_unhandled{0}, mismatched{0}, done{0};
    std::atomic<uint64_t> first_bad{UINT64_MAX};
    const FlatTable profile_flat = flatten_profile(p);
    FlatTable scratch;
    const FlatTable& set_flat = te.flat(f, scratch);
    std::atomic<uint64_t> fallbacks_profile{0}, fallbacks_set{0};
    // --fast: 4096 inputs at a time through evaluate_generic, and through the batch pass on
    // the decoded profile and on the decoded set (flagged elements by their reference paths).
    auto fast_worker = [&](uint64_t lo, uint64_t hi, uint64_t& eq, uint64_t& bu, uint64_t& mm) {
        constexpr size_t kChunk = 4096;
        std::vector<float> in(kChunk), ref(kChunk), a(kChunk), b(kChunk);
        std::vector<uint32_t> flagged(kChunk);
        std::vector<char> ref_err(kChunk), a_err(kChunk), b_err(kChunk);
        uint64_t fp = 0, fs = 0;
        for (uint64_t u0 = lo; u0 < hi; u0 += kChunk) {
            const size_t m = static_cast<size_t>(std::min<uint64_t>(kChunk, hi - u0));
            for (size_t i = 0; i < m; ++i) {
                in[i] = fp::float_of(static_cast<uint32_t>(u0 + i));
                ref_err[i] = a_err[i] = b_err[i] = 0;
                try {
                    ref[i] = evaluate_generic(p, in[i]);
                } catch (const Error&) {
                    ref_err[i] = 1;
                }
            }
            size_t k = fast_pass(profile_flat, in.data(), a.data(), m, flagged.data());
            fp += k;
            for (size_t j = 0; j < k; ++j) try {
                    a[flagged[j]] = evaluate_generic(p, in[flagged[j]]);
                } catch (const Error&) {
                    a_err[flagged[j]] = 1;
                }
            k = fast_pass(set_flat, in.data(), b.data(), m, flagged.data());
            fs += k;
            for (size_t j = 0; j < k; ++j) try {
                    b[flagged[j]] = te.evaluate_reference(f, in[flagged[j]]);
                } catch (const Error&) {
                    b_err[flagged[j]] = 1;
                }
            for (size_t i = 0; i < m; ++i) {
                const bool same = ref_err[i] == a_err[i] && ref_err[i] == b_err[i] &&
                                  (ref_err[i] || (fp::bits_of(ref[i]) == fp::bits_of(a[i]) && fp::bits_of(ref[i]) == fp::bits_of(b[i])));
                if (same && ref_err[i]) ++bu;
                else if (same) ++eq;
                else {
                    ++mm;
                    uint64_t cur = first_bad.load();
                    while (u0 + i < cur && !first_bad.compare_exchange_weak(cur, u0 + i)) {
                    }
                }
            }
            if (((u0 + kChunk) & 0xFFFFFF) == 0) done += 0x1000000;
        }
        fallbacks_profile += fp;
        fallbacks_set += fs;
    };
    auto t0 = std::chrono::steady_clock::now();
    auto worker = [&](unsigned k) {
        uint64_t eq = 0, bu = 0, mm = 0;
        const uint64_t chunk = (last - first) / nt;
        const uint64_t lo = first + chunk * k, hi = k + 1 == nt ? last : lo + chunk;
        if (fast) {
            fast_worker(lo, hi, eq, bu, mm);
            equal += eq;
            both_unhandled += bu;
            mismatched += mm;
            return;
        }
        for (uint64_t u = lo; u < hi; ++u) {
            const float v = fp::float_of(static_cast<uint32_t>(u));
            float a = 0, b = 0;
            bool ea = false, eb = false;
            try {
                a = evaluate_generic(p, v);
            } catch (const Error&) {
                ea = true;
            }
            try {
                b = te.evaluate(f, v);
            } catch (const Error&) {
                eb = true;
            }
            if (ea && eb) ++bu;
            else if (ea == eb && fp::bits_of(a) == fp::bits_of(b)) ++eq;
            else {
                ++mm;
                uint64_t cur = first_bad.load();
                while (u < cur && !first_bad.compare_exchange_weak(cur, u)) {
                }
            }
            if ((u & 0xFFFFFF) == 0xFFFFFF) done += 0x1000000;
        }
        equal += eq;
        both_unhandled += bu;
        mismatched += mm;
    };
    std::vector<std::thread> pool;
    for (unsigned k = 0; k < nt; ++k) pool.emplace_back(worker, k);
    while (progress && done.load() + nt * 0x1000000ull < last - first && !mismatched.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        progress(done.load());
    }
    for (auto& t : pool) t.join();
    VerifyResult r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.equal = equal.load();
    r.both_unhandled = both_unhandled.load();
    r.mismatched = mismatched.load();
    if (r.mismatched) r.first_mismatch = static_cast<uint32_t>(first_bad.load());
    r.fallbacks_profile = fallbacks_profile.load();
    r.fallbacks_set = fallbacks_set.load();
    return r;
}

}  // namespace neuronsim::model::pwp
