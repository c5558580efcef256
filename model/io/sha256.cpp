#include "model/io/sha256.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "model/common/error.h"
#include "model/io/read_file.h"
#include "model/io/sha256_constants.h"
#include "model/io/sha256_shani.h"

namespace neuronsim::model::io {

namespace {

constexpr uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

// The portable compression function (the oracle of the SHA-extension one).
void block_portable(std::array<uint32_t, 8>& h_, const uint8_t* p) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) w[i] = uint32_t{p[4 * i]} << 24 | uint32_t{p[4 * i + 1]} << 16 | uint32_t{p[4 * i + 2]} << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; ++i) {
        const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
    for (int i = 0; i < 64; ++i) {
        const uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kSha256K[i] + w[i];
        const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h_[0] += a, h_[1] += b, h_[2] += c, h_[3] += d, h_[4] += e, h_[5] += f, h_[6] += g, h_[7] += h;
}

}  // namespace

bool sha256_shani_supported() {
#if defined(__x86_64__) || defined(__i386__)
    // CPUID itself: clang 14's __builtin_cpu_supports does not know "sha".
    static const bool yes = [] {
        unsigned a, b, c, d;
        if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
        const bool ssse3 = c & (1u << 9), sse41 = c & (1u << 19);
        if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
        const bool sha = b & (1u << 29);
        return ssse3 && sse41 && sha;
    }();
    return yes;
#else
    return false;
#endif
}

Sha256Impl sha256_active_impl() {
    static const Sha256Impl impl = [] {
        const char* e = std::getenv("NEURONSIM_SIMD");
        if (e && std::strcmp(e, "scalar") == 0) return Sha256Impl::Portable;
        return sha256_shani_supported() ? Sha256Impl::ShaNi : Sha256Impl::Portable;
    }();
    return impl;
}

Sha256::Sha256(Sha256Impl impl) : impl_(impl), h_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {
    if (impl_ == Sha256Impl::ShaNi && !sha256_shani_supported()) throw Error("SHA-256: this CPU has no SHA extensions");
}

void Sha256::blocks(const uint8_t* p, size_t n) {
    if (impl_ == Sha256Impl::ShaNi) return sha256_blocks_shani(h_.data(), p, n);
    for (; n; --n, p += 64) block_portable(h_, p);
}

Sha256& Sha256::update(const void* data, size_t bytes) {
    const auto* p = static_cast<const uint8_t*>(data);
    bits_ += uint64_t{bytes} * 8;
    while (bytes) {
        if (used_ == 0 && bytes >= buf_.size()) {  // whole blocks straight from the input
            const size_t n = bytes / buf_.size();
            blocks(p, n);
            p += n * buf_.size(), bytes -= n * buf_.size();
            continue;
        }
        const size_t n = std::min(bytes, buf_.size() - used_);
        std::memcpy(buf_.data() + used_, p, n);
        used_ += n, p += n, bytes -= n;
        if (used_ == buf_.size()) {
            blocks(buf_.data(), 1);
            used_ = 0;
        }
    }
    return *this;
}

std::string Sha256::hex() {
    const uint64_t bits = bits_;
    const uint8_t one = 0x80, zero = 0;
    update(&one, 1);
    while (used_ != 56) update(&zero, 1);
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
    update(len, 8);
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (uint32_t v : h_)
        for (int s = 28; s >= 0; s -= 4) out += digits[(v >> s) & 0xF];
    return out;
}

std::string sha256_file(const std::string& path, const std::string& what) {
    ByteStream in(path, kMaxDataFileBytes, what);
    Sha256 h;
    uint8_t chunk[1 << 14];  // (the stream buffers; this only hands its bytes on)
    while (const size_t n = in.read(chunk, sizeof chunk)) h.update(chunk, n);
    return h.hex();
}

}  // namespace neuronsim::model::io
