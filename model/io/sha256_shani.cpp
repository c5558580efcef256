#include "model/io/sha256_shani.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "model/io/sha256_constants.h"

namespace neuronsim::model::io {

// sha256rnds2 keeps the state as the two words ABEF and CDGH and does two rounds per call; the
// message schedule is four words per vector: w[i..i+3] = msg2(msg1(w[i-16..], w[i-12..]) +
// w[i-7..i-4], w[i-4..]).
__attribute__((target("sha,sse4.1,ssse3"))) void sha256_blocks_shani(uint32_t h[8], const uint8_t* p, size_t n) {
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h));
    __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + 4));
    const __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    const __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    for (; n; --n, p += 64) {
        const __m128i abef0 = abef, cdgh0 = cdgh;
        __m128i w[16];
        for (int i = 0; i < 4; ++i) w[i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i)), bswap);
        for (int i = 4; i < 16; ++i)
            w[i] = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(w[i - 4], w[i - 3]), _mm_alignr_epi8(w[i - 1], w[i - 2], 4)), w[i - 1]);
        for (int i = 0; i < 16; ++i) {
            const __m128i wk = _mm_add_epi32(w[i], _mm_load_si128(reinterpret_cast<const __m128i*>(kSha256K + 4 * i)));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }
    const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    dcba = _mm_blend_epi16(feba, dchg, 0xF0);
    hgfe = _mm_alignr_epi8(dchg, feba, 8);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(h), dcba);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(h + 4), hgfe);
}

}  // namespace neuronsim::model::io

#else

namespace neuronsim::model::io {
void sha256_blocks_shani(uint32_t*, const uint8_t*, size_t) {}  // never called: not supported
}  // namespace neuronsim::model::io

#endif
