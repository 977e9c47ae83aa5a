// SHA-256 (FIPS 180-4): a one-shot and an incremental hasher, with the x86 SHA extensions where the
// CPU has them (checked once at run time) and portable C++ everywhere else; both give the same digest.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define VYRE_SHA256_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace vyre::util {

using sha256_digest = std::array<std::uint8_t, 32>;

namespace detail {

inline constexpr std::uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
    0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
    0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
    0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline constexpr std::uint32_t sha256_h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

constexpr std::uint32_t rotr(std::uint32_t x, int n) noexcept { return (x >> n) | (x << (32 - n)); }

inline void sha256_blocks_portable(std::uint32_t state[8], const std::uint8_t* p, std::size_t blocks) noexcept {
    for (; blocks; --blocks, p += 64) {
        std::uint32_t w[64];
        for (int i = 0; i < 16; ++i)
            w[i] = std::uint32_t{p[4 * i]} << 24 | std::uint32_t{p[4 * i + 1]} << 16 | std::uint32_t{p[4 * i + 2]} << 8 | p[4 * i + 3];
        for (int i = 16; i < 64; ++i) {
            const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
        for (int i = 0; i < 64; ++i) {
            const std::uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
            const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
}

#ifdef VYRE_SHA256_X86
// The SHA-NI round sequence as Intel documents it (sha256rnds2 does two rounds on state held as
// ABEF/CDGH; sha256msg1/msg2 extend the message schedule). About 5x the portable code per core.
__attribute__((target("sha,sse4.1"))) inline void sha256_blocks_shani(std::uint32_t state[8], const std::uint8_t* p,
                                                                        std::size_t blocks) noexcept {
    const __m128i shuffle = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[0]));
    __m128i s1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[4]));
    tmp = _mm_shuffle_epi32(tmp, 0xB1);            // CDAB
    s1 = _mm_shuffle_epi32(s1, 0x1B);              // EFGH
    __m128i s0 = _mm_alignr_epi8(tmp, s1, 8);      // ABEF
    s1 = _mm_blend_epi16(s1, tmp, 0xF0);           // CDGH
    const auto k = [](int i) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(&sha256_k[i])); };
    for (; blocks; --blocks, p += 64) {
        const __m128i save0 = s0, save1 = s1;
        __m128i m[4];
        for (int i = 0; i < 4; ++i)
            m[i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i)), shuffle);
        for (int r = 0; r < 16; ++r) {
            // Rounds 4r .. 4r+3 use schedule words m[r % 4]; words for later rounds are made on the way.
            __m128i msg = _mm_add_epi32(m[r % 4], k(4 * r));
            s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
            if (r >= 3 && r < 15) {
                const __m128i t = _mm_alignr_epi8(m[r % 4], m[(r + 3) % 4], 4);
                m[(r + 1) % 4] = _mm_add_epi32(m[(r + 1) % 4], t);
                m[(r + 1) % 4] = _mm_sha256msg2_epu32(m[(r + 1) % 4], m[r % 4]);
            }
            msg = _mm_shuffle_epi32(msg, 0x0E);
            s0 = _mm_sha256rnds2_epu32(s0, s1, msg);
            if (r >= 1 && r < 13) m[(r + 3) % 4] = _mm_sha256msg1_epu32(m[(r + 3) % 4], m[r % 4]);
        }
        s0 = _mm_add_epi32(s0, save0);
        s1 = _mm_add_epi32(s1, save1);
    }
    tmp = _mm_shuffle_epi32(s0, 0x1B);             // FEBA
    s1 = _mm_shuffle_epi32(s1, 0xB1);              // DCHG
    s0 = _mm_blend_epi16(tmp, s1, 0xF0);           // DCBA
    s1 = _mm_alignr_epi8(s1, tmp, 8);              // ABEF -> HGFE
    _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[0]), s0);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[4]), s1);
}

inline bool sha256_has_shani() noexcept {
    static const bool has = [] {
        // CPUID directly: __builtin_cpu_supports("sha") is unknown to clang before 16.
        unsigned a = 0, b = 0, c = 0, d = 0;
        if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1)) return false;
        return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA) != 0;
    }();
    return has;
}
#endif

inline void sha256_blocks(std::uint32_t state[8], const std::uint8_t* p, std::size_t blocks) noexcept {
#ifdef VYRE_SHA256_X86
    if (sha256_has_shani()) return sha256_blocks_shani(state, p, blocks);
#endif
    sha256_blocks_portable(state, p, blocks);
}

} // namespace detail

// Incremental hashing: update() any number of times, then final() once.
class sha256 {
public:
    sha256() noexcept { std::memcpy(state_, detail::sha256_h0, sizeof state_); }

    sha256& update(std::span<const std::uint8_t> data) noexcept {
        const std::uint8_t* p = data.data();
        std::size_t n = data.size();
        length_ += n;
        if (buffered_) {
            const std::size_t take = std::min<std::size_t>(n, 64 - buffered_);
            std::memcpy(buffer_ + buffered_, p, take);
            buffered_ += take;
            p += take;
            n -= take;
            if (buffered_ < 64) return *this;
            detail::sha256_blocks(state_, buffer_, 1);
            buffered_ = 0;
        }
        if (n >= 64) {
            detail::sha256_blocks(state_, p, n / 64);
            p += n / 64 * 64;
            n %= 64;
        }
        if (n) std::memcpy(buffer_, p, n);
        buffered_ = n;
        return *this;
    }

    sha256& update(std::string_view s) noexcept {
        return update(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
    }

    sha256_digest final() noexcept {
        const std::uint64_t bits = length_ * 8;
        std::uint8_t pad[72] = {0x80};
        const std::size_t pad_len = (buffered_ < 56 ? 56 : 120) - buffered_;
        for (int i = 0; i < 8; ++i) pad[pad_len + i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
        update(std::span<const std::uint8_t>(pad, pad_len + 8));
        sha256_digest out;
        for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<std::uint8_t>(state_[i] >> (24 - 8 * j));
        return out;
    }

private:
    std::uint32_t state_[8];
    std::uint8_t buffer_[64];
    std::size_t buffered_ = 0;
    std::uint64_t length_ = 0;
};

inline sha256_digest sha256_of(std::span<const std::uint8_t> data) noexcept { return sha256().update(data).final(); }
inline sha256_digest sha256_of(std::string_view s) noexcept { return sha256().update(s).final(); }

// Lowercase hex, as sha256sum prints it.
inline std::string to_hex(const sha256_digest& d) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s(64, '0');
    for (std::size_t i = 0; i < 32; ++i) {
        s[2 * i] = digits[d[i] >> 4];
        s[2 * i + 1] = digits[d[i] & 15];
    }
    return s;
}

namespace detail {
// The portable path alone, so that a test can compare it with the accelerated one on one machine.
inline sha256_digest sha256_portable_of(std::span<const std::uint8_t> data) noexcept {
    std::uint32_t state[8];
    std::memcpy(state, sha256_h0, sizeof state);
    const std::size_t full = data.size() / 64;
    sha256_blocks_portable(state, data.data(), full);
    std::uint8_t tail[128] = {};
    const std::size_t rest = data.size() % 64;
    if (rest) std::memcpy(tail, data.data() + full * 64, rest);
    tail[rest] = 0x80;
    const std::size_t blocks = rest < 56 ? 1 : 2;
    const std::uint64_t bits = std::uint64_t{data.size()} * 8;
    for (int i = 0; i < 8; ++i) tail[blocks * 64 - 8 + i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
    sha256_blocks_portable(state, tail, blocks);
    sha256_digest out;
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<std::uint8_t>(state[i] >> (24 - 8 * j));
    return out;
}
} // namespace detail

} // namespace vyre::util
