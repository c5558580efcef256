#pragma once
// SHA-256 (FIPS 180-4), for the hashes a run records (trace, overlays, resolved config) so
// that results can be matched to their inputs. Incremental: feed bytes, then take the hex.
// Two compression functions: the portable one (the oracle) and the x86 SHA extensions, which
// hash a large trace 5.7x faster (bench/README.md, section 6); the SHA extensions are used where
// the CPU has them unless NEURONSIM_SIMD=scalar asks for the portable one (other values, such
// as avx2, only lower the vector levels of the fast ACT and CPTC paths).
#include <array>
#include <cstdint>
#include <string>

namespace neuronsim::model::io {

enum class Sha256Impl { Portable, ShaNi };
bool sha256_shani_supported();
Sha256Impl sha256_active_impl();  // ShaNi where supported, unless NEURONSIM_SIMD=scalar

class Sha256 {
public:
    explicit Sha256(Sha256Impl impl = sha256_active_impl());  // ShaNi without CPU support: Error
    Sha256& update(const void* data, size_t bytes);
    Sha256& update(const std::string& s) { return update(s.data(), s.size()); }
    std::string hex();  // lower-case, 64 digits; finishes the hash

private:
    void blocks(const uint8_t* p, size_t n);
    Sha256Impl impl_;
    std::array<uint32_t, 8> h_;
    std::array<uint8_t, 64> buf_{};
    size_t used_ = 0;
    uint64_t bits_ = 0;
};

inline std::string sha256_hex(const std::string& s) { return Sha256().update(s).hex(); }
// The hash of a file's bytes, streamed (read_file.h's checks; limit as for trace data).
std::string sha256_file(const std::string& path, const std::string& what);

}  // namespace neuronsim::model::io
