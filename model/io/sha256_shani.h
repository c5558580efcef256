#pragma once
// The SHA-256 compression function on the x86 SHA extensions (sha256_shani.cpp); only called
// where sha256_shani_supported() says the CPU has them.
#include <cstddef>
#include <cstdint>

namespace neuronsim::model::io {

// Compresses n 64-byte blocks at p into the state h (h[0] = A ... h[7] = H).
void sha256_blocks_shani(uint32_t h[8], const uint8_t* p, size_t n);

}  // namespace neuronsim::model::io
