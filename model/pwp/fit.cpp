#include "model/pwp/fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace neuronsim::model::pwp {

namespace {

using LD = long double;

constexpr LD kFloatMax = 3.4028234663852886e38L;
constexpr int kGrid = 65;  // Chebyshev-Lobatto points per bucket: the error curve is smooth

// cos(pi i / (n - 1)), i = 0..n-1: the Chebyshev-Lobatto nodes on [-1, 1] (reversed) for the
// two grid sizes, computed once (long double cos is slow, and there are tens of thousands of
// bucket fits; a function-local static is initialised thread-safely).
const std::vector<LD>& chebyshev(int n) {
    static const std::vector<std::vector<LD>> tables = [] {
        std::vector<std::vector<LD>> t(2);
        for (int k = 0; k < 2; ++k) {
            const int size = k == 0 ? kGrid : 2 * kGrid - 1;
            for (int i = 0; i < size; ++i) t[static_cast<size_t>(k)].push_back(std::cos(static_cast<LD>(M_PI) * i / (size - 1)));
        }
        return t;
    }();
    return tables.at(n == kGrid ? 0 : 1);
}

// Solves the n x n system A c = r in place (Gaussian elimination, partial pivoting), n <= 5.
// Returns false for a singular system.
bool solve(LD A[5][5], LD r[5], LD c[5], size_t n) {
    for (size_t i = 0; i < n; ++i) {
        size_t p = i;
        for (size_t k = i + 1; k < n; ++k)
            if (std::fabs(A[k][i]) > std::fabs(A[p][i])) p = k;
        if (p != i) {
            for (size_t j = 0; j < n; ++j) std::swap(A[i][j], A[p][j]);
            std::swap(r[i], r[p]);
        }
        if (A[i][i] == 0) return false;
        for (size_t k = i + 1; k < n; ++k) {
            LD f = A[k][i] / A[i][i];
            for (size_t j = i; j < n; ++j) A[k][j] -= f * A[i][j];
            r[k] -= f * r[i];
        }
    }
    for (size_t i = n; i-- > 0;) {
        LD s = r[i];
        for (size_t j = i + 1; j < n; ++j) s -= A[i][j] * c[j];
        c[i] = s / A[i][i];
    }
    return true;
}

// The samples of one fit: u = t / scale (t = s - x), the target and the error weight.
struct Grid {
    std::vector<LD> u, y, w;
    LD scale = 1;
};

LD power(LD u, int k) {
    LD p = 1;
    for (int i = 0; i < k; ++i) p *= u;
    return p;
}

struct Minimax {
    std::vector<LD> c;  // coefficients of u^first .. u^(first + n - 1)
    LD err = std::numeric_limits<LD>::infinity();
};

// Discrete minimax (Remez exchange) of the residual y over the monomials u^first..u^(first+n-1):
// min_c max_i w_i |y_i - sum_k c_k u_i^(first+k)|. Starts from the least-squares solution's
// neighbourhood, exchanges the n + 1 reference points for the alternating extrema of the error
// until the levelled error matches the maximum, and keeps the best coefficients seen.
Minimax remez(const Grid& g, const std::vector<LD>& y, int first, int n) {
    Minimax best;
    const size_t N = g.u.size();
    const size_t m = static_cast<size_t>(n) + 1;
    if (n <= 0 || N < m) return best;
    std::vector<size_t> ref(m);
    for (size_t j = 0; j < m; ++j) ref[j] = static_cast<size_t>(std::llround(static_cast<LD>(j) * (N - 1) / (m - 1)));
    std::vector<LD> r(N), lead(N);  // lead: u^first
    for (size_t i = 0; i < N; ++i) lead[i] = power(g.u[i], first);
    std::vector<size_t> cand;
    for (int iter = 0; iter < 30; ++iter) {
        LD A[5][5], rhs[5], sol[5];
        for (size_t j = 0; j < m; ++j) {
            const size_t i = ref[j];
            LD pw = lead[i];
            for (int k = 0; k < n; ++k, pw *= g.u[i]) A[j][static_cast<size_t>(k)] = pw;
            A[j][m - 1] = ((j & 1) ? -1 : 1) / g.w[i];
            rhs[j] = y[i];
        }
        if (!solve(A, rhs, sol, m)) break;
        LD level = std::fabs(sol[m - 1]), maxabs = 0;
        for (size_t i = 0; i < N; ++i) {
            LD p = 0;
            for (int k = n; k-- > 0;) p = p * g.u[i] + sol[static_cast<size_t>(k)];
            r[i] = g.w[i] * (y[i] - p * lead[i]);
            maxabs = std::max(maxabs, std::fabs(r[i]));
        }
        if (maxabs < best.err) {
            best.err = maxabs;
            best.c.assign(sol, sol + n);
        }
        // Levelled to a thousandth: the reference is extremal (the error's own float rounding
        // is far coarser than what further exchanges would gain).
        if (maxabs <= level * (1 + 1e-3L)) break;
        // The extremum of each run of equal sign, then thinned to m alternating points.
        cand.clear();
        for (size_t i = 0; i < N; ++i) {
            if (!cand.empty() && std::signbit(r[cand.back()]) == std::signbit(r[i])) {
                if (std::fabs(r[i]) > std::fabs(r[cand.back()])) cand.back() = i;
            } else {
                cand.push_back(i);
            }
        }
        while (cand.size() > m) {
            size_t k = 0;
            for (size_t i = 1; i < cand.size(); ++i)
                if (std::fabs(r[cand[i]]) < std::fabs(r[cand[k]])) k = i;
            if (k == 0 || k + 1 == cand.size() || cand.size() == m + 1) {
                // Drop an end: the smaller one keeps alternation with one removal.
                if (k != 0 && k + 1 != cand.size()) k = std::fabs(r[cand.front()]) < std::fabs(r[cand.back()]) ? 0 : cand.size() - 1;
                cand.erase(cand.begin() + static_cast<long>(k));
            } else {
                // An interior point goes with its smaller neighbour: alternation survives.
                size_t nb = std::fabs(r[cand[k - 1]]) < std::fabs(r[cand[k + 1]]) ? k - 1 : k + 1;
                cand.erase(cand.begin() + static_cast<long>(std::max(k, nb)));
                cand.erase(cand.begin() + static_cast<long>(std::min(k, nb)));
            }
        }
        if (cand.size() < m || cand == ref) break;
        ref = cand;
    }
    return best;
}

bool fits_float(LD v) { return std::isfinite(v) && std::fabs(v) <= kFloatMax; }

// Fits degrees first..degree, rounding the top coefficient to float and re-fitting the lower
// ones around it, down to d_first. Returns false if a coefficient leaves the float range.
bool cascade(const Grid& g, int first, int degree, float d[4], LD* unrounded_first = nullptr) {
    for (int k = 0; k < 4; ++k) d[k] = 0;
    std::vector<LD> y = g.y;
    for (int top = degree; top >= first; --top) {
        Minimax mm = remez(g, y, first, top - first + 1);
        if (mm.c.empty()) return false;
        LD dk = mm.c.back() / power(g.scale, top);
        if (!fits_float(dk)) return false;
        d[top] = static_cast<float>(dk);
        if (top == first && unrounded_first) *unrounded_first = dk;
        // The rounded coefficient's term leaves the residual the lower degrees fit.
        for (size_t i = 0; i < y.size(); ++i) y[i] -= static_cast<LD>(d[top]) * power(g.u[i] * g.scale, top);
    }
    return true;
}

Section fit_grid(const Grid& g, int first, float x, LD* unrounded_d0 = nullptr) {
    Section sec;
    sec.x = x;
    float d[4] = {0, 0, 0, 0};
    for (int degree = 3; degree >= first; --degree)
        if (cascade(g, first, degree, d, unrounded_d0)) break;
    sec.d0 = d[0], sec.d1 = d[1], sec.d2 = d[2], sec.d3 = d[3];
    return sec;
}

void add_sample(Grid& g, const FitTarget& t, LD s, float x) {
    LD y = t.g(static_cast<double>(s));
    LD w = t.weight(static_cast<double>(y));
    if (!std::isfinite(y) || !std::isfinite(w) || w <= 0) return;
    g.u.push_back((s - x) / g.scale);
    g.y.push_back(y);
    g.w.push_back(w);
}

Grid bucket_grid(const FitTarget& t, double a, double b, float x, int points = kGrid) {
    Grid g;
    g.scale = std::max(std::fabs(static_cast<LD>(a) - x), std::fabs(static_cast<LD>(b) - x));
    if (g.scale == 0) g.scale = 1;
    const LD mid = (static_cast<LD>(a) + b) / 2, half = (static_cast<LD>(b) - a) / 2;
    const std::vector<LD>& nodes = chebyshev(points);
    for (int i = 0; i < points; ++i) add_sample(g, t, mid - half * nodes[static_cast<size_t>(i)], x);
    return g;
}

// max w |p - y| over the grid, in exact arithmetic with the section's float coefficients.
LD grid_error(const Grid& g, const Section& s) {
    LD worst = 0;
    for (size_t i = 0; i < g.u.size(); ++i) {
        LD t = g.u[i] * g.scale;
        LD p = static_cast<LD>(s.d0) + t * (s.d1 + t * (static_cast<LD>(s.d2) + t * s.d3));
        worst = std::max(worst, g.w[i] * std::fabs(p - g.y[i]));
    }
    return worst;
}

}  // namespace

Section fit_minimax(const FitTarget& t, double a, double b, float x) { return fit_grid(bucket_grid(t, a, b, x), 0, x); }

Section fit_minimax_snapped(const FitTarget& t, double a, double b, float x, int steps) {
    LD d0_exact = 0;
    Section first = fit_grid(bucket_grid(t, a, b, x), 0, x, &d0_exact);
    // d0 at a moved breakpoint, from the first fit's cubic (its d0 unrounded): the candidate
    // whose value is nearest a float (in units of its ulp) is refitted. The stride moves d0 by
    // about a sixteenth of an ulp.
    const float f0 = static_cast<float>(d0_exact);
    const LD ulp0 = std::fabs(static_cast<LD>(std::nextafter(f0, INFINITY)) - f0);
    const LD stride = std::max(static_cast<LD>(std::nextafter(x, INFINITY)) - x, first.d1 != 0 ? ulp0 / std::fabs(static_cast<LD>(first.d1)) / 16 : 0);
    float best_x = x;
    LD best_off = 1;
    for (int k = -steps; k <= steps; ++k) {
        const float c = static_cast<float>(x + k * stride);
        if (c < a || c > b) continue;
        LD u = static_cast<LD>(c) - first.x;
        LD d0 = d0_exact + u * (first.d1 + u * (static_cast<LD>(first.d2) + u * first.d3));
        float f = static_cast<float>(d0);
        LD ulp = std::fabs(static_cast<LD>(std::nextafter(f, INFINITY)) - f);
        LD off = std::fabs(d0 - f) / ulp;
        if (off < best_off) {
            best_off = off;
            best_x = c;
        }
    }
    return best_x == x ? first : fit_minimax(t, a, b, best_x);
}

Section polish_bits(const FitTarget& t, const Section& s, double a, double b) {
    const Grid g = bucket_grid(t, a, b, s.x, 2 * kGrid - 1);
    Section best = s;
    LD best_err = grid_error(g, s);
    for (int round = 0; round < 8; ++round) {
        bool improved = false;
        for (float Section::*d : {&Section::d0, &Section::d1, &Section::d2, &Section::d3}) {
            if (best.*d == 0 && d != &Section::d0) continue;  // an absent degree stays absent
            for (int step : {-2, -1, 1, 2}) {
                Section trial = best;
                for (int i = 0; i < std::abs(step); ++i) trial.*d = std::nextafter(trial.*d, step < 0 ? -INFINITY : INFINITY);
                LD err = grid_error(g, trial);
                if (err < best_err) {
                    best = trial;
                    best_err = err;
                    improved = true;
                }
            }
        }
        if (!improved) break;
    }
    return best;
}

double fit_error(const FitTarget& t, const Section& s, double a, double b) { return static_cast<double>(grid_error(bucket_grid(t, a, b, s.x), s)); }

Section fit_minimax_at_zero(const FitTarget& t, double edge) {
    // d0 is g(0) rounded, so inputs near 0 return f(0) itself (exp(1e-20) = 1, tanh(x) = x);
    // d1..d3 fit what remains.
    const float d0 = static_cast<float>(t.g(0.0));
    Grid g;
    g.scale = std::fabs(static_cast<LD>(edge));
    // Chebyshev points over the interval, then geometric ones towards 0, where a relative
    // weight makes the smallest inputs count as much as the largest.
    const std::vector<LD>& nodes = chebyshev(kGrid);
    for (int i = 1; i < kGrid; ++i) add_sample(g, t, static_cast<LD>(edge) * (1 - nodes[static_cast<size_t>(i)]) / 2, 0.0f);
    for (int k = 1; k <= 160; ++k) add_sample(g, t, static_cast<LD>(edge) * std::pow(2.0L, -k / 4.0L), 0.0f);
    // Remez reads the error's sign runs in grid order: sort by u.
    std::vector<size_t> order(g.u.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return g.u[a] < g.u[b]; });
    Grid sorted;
    sorted.scale = g.scale;
    for (size_t i : order) {
        sorted.u.push_back(g.u[i]);
        sorted.y.push_back(g.y[i] - d0);
        sorted.w.push_back(g.w[i]);
    }
    Section sec = fit_grid(sorted, 1, 0.0f);
    sec.d0 = d0;
    return sec;
}

}  // namespace neuronsim::model::pwp
