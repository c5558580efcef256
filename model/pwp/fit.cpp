#include "model/pwp/fit.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace neuronsim::model::pwp {

namespace {

using LD = long double;

// Solves the n x n system A c = r in place (Gaussian elimination, partial pivoting).
// A singular system (all samples identical) leaves the coefficients at zero.
void solve(std::vector<std::vector<LD>>& A, std::vector<LD>& r, std::vector<LD>& c) {
    const size_t n = r.size();
    for (size_t i = 0; i < n; ++i) {
        size_t p = i;
        for (size_t k = i + 1; k < n; ++k)
            if (std::fabs(A[k][i]) > std::fabs(A[p][i])) p = k;
        std::swap(A[i], A[p]);
        std::swap(r[i], r[p]);
        if (A[i][i] == 0) continue;
        for (size_t k = i + 1; k < n; ++k) {
            LD f = A[k][i] / A[i][i];
            for (size_t j = i; j < n; ++j) A[k][j] -= f * A[i][j];
            r[k] -= f * r[i];
        }
    }
    c.assign(n, 0);
    for (size_t i = n; i-- > 0;) {
        if (A[i][i] == 0) continue;
        LD s = r[i];
        for (size_t j = i + 1; j < n; ++j) s -= A[i][j] * c[j];
        c[i] = s / A[i][i];
    }
}

struct Sample {
    LD u, y, w;  // u = (s - x)/scale
};

// Least squares over the monomials u^first..u^last (first = 0 or 1).
std::vector<LD> lsq(const std::vector<Sample>& ss, int first, int last = 3) {
    const size_t n = static_cast<size_t>(last + 1 - first);
    std::vector<std::vector<LD>> A(n, std::vector<LD>(n, 0));
    std::vector<LD> r(n, 0), c;
    for (const Sample& s : ss) {
        LD pw[4] = {1, s.u, s.u * s.u, s.u * s.u * s.u};
        for (size_t i = 0; i < n; ++i) {
            r[i] += s.w * s.w * pw[i + first] * s.y;
            for (size_t j = 0; j < n; ++j) A[i][j] += s.w * s.w * pw[i + first] * pw[j + first];
        }
    }
    solve(A, r, c);
    return c;
}

bool fits_float(LD v) { return std::fabs(v) <= static_cast<LD>(3.4028234663852886e38); }

float to_float(LD v) { return fits_float(v) ? static_cast<float>(v) : 0.0f; }

}  // namespace

Section fit_cubic(const std::function<double(double)>& g, double a, double b, float x) {
    const int kSamples = 33;
    const LD scale = (static_cast<LD>(b) - a) / 2;
    std::vector<Sample> ss;
    LD ymax = 0;
    std::vector<LD> svals, yvals;
    for (int i = 0; i < kSamples; ++i) {  // Chebyshev-Lobatto points, ends included
        LD s = (static_cast<LD>(a) + b) / 2 - scale * std::cos(static_cast<LD>(M_PI) * i / (kSamples - 1));
        LD y = g(static_cast<double>(s));
        svals.push_back(s);
        yvals.push_back(y);
        ymax = std::max(ymax, std::fabs(y));
    }
    const LD floor = std::max(ymax * 1e-3L, static_cast<LD>(1e-300));
    for (size_t i = 0; i < svals.size(); ++i)
        ss.push_back({(svals[i] - x) / scale, yvals[i], 1 / std::max(std::fabs(yvals[i]), floor)});
    // Far from 1 the higher coefficients of a function like 1/sqrt(s) exceed the float range
    // (d3 is about f'''(s)/6); the degree drops until every coefficient is a float.
    Section sec;
    sec.x = x;
    for (int degree = 3; degree >= 0; --degree) {
        std::vector<LD> c = lsq(ss, 0, degree);
        c.resize(4, 0);
        LD d[4] = {c[0], c[1] / scale, c[2] / (scale * scale), c[3] / (scale * scale * scale)};
        if (degree > 0 && !(fits_float(d[1]) && fits_float(d[2]) && fits_float(d[3]))) continue;
        sec.d1 = to_float(d[1]);
        sec.d2 = to_float(d[2]);
        sec.d3 = to_float(d[3]);
        break;
    }
    // d0 absorbs the rounding of d1..d3: the weighted mean of what remains.
    LD num = 0, den = 0;
    for (size_t i = 0; i < svals.size(); ++i) {
        LD t = svals[i] - x;
        LD rest = yvals[i] - (sec.d1 * t + sec.d2 * t * t + sec.d3 * t * t * t);
        LD w2 = ss[i].w * ss[i].w;
        num += w2 * rest;
        den += w2;
    }
    sec.d0 = to_float(num / den);
    return sec;
}

Section fit_cubic_at_zero(const std::function<double(double)>& g, double edge) {
    // Geometric samples from edge down to edge * 2^-40, relative weights; d0 = g(0).
    Section sec;
    sec.x = 0;
    sec.d0 = static_cast<float>(g(0.0));
    const LD d0 = sec.d0;
    std::vector<Sample> ss;
    const LD scale = std::fabs(static_cast<LD>(edge));
    for (int k = 0; k <= 160; ++k) {
        LD s = static_cast<LD>(edge) * std::pow(2.0L, -k / 4.0L);
        LD y = g(static_cast<double>(s));
        ss.push_back({s / scale, y - d0, 1 / std::max(std::fabs(y), static_cast<LD>(1e-300))});
    }
    for (int degree = 3; degree >= 1; --degree) {
        std::vector<LD> c = lsq(ss, 1, degree);
        c.resize(3, 0);
        LD d[3] = {c[0] / scale, c[1] / (scale * scale), c[2] / (scale * scale * scale)};
        if (degree > 1 && !(fits_float(d[0]) && fits_float(d[1]) && fits_float(d[2]))) continue;
        sec.d1 = to_float(d[0]);
        sec.d2 = to_float(d[1]);
        sec.d3 = to_float(d[2]);
        break;
    }
    return sec;
}

}  // namespace neuronsim::model::pwp
