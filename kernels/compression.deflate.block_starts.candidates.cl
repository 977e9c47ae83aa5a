// vyre program "compression_deflate_block_starts_candidates", lowered to OpenCL C 1.2
static inline uint vyre_atomic_add_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_add(&b[i], v) : 0u;
}
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_u32_le_global(const __global uchar* b, uint i) {
    const __global uchar* p = b + i;
    return (uint)p[0] | ((uint)p[1] << 8) | ((uint)p[2] << 16) | ((uint)p[3] << 24);
}
static inline uint vyre_load_u32_le_global_checked(const __global uchar* b, uint words, uint i) {
    if (i <= 0xFFFFFFFCu && ((i + 3u) >> 2) < words) return vyre_load_u32_le_global(b, i);
    uint v = 0u;
    for (uint k = 0u; k < 4u; ++k)
        if (i + k >= i && ((i + k) >> 2) < words) v |= (uint)b[i + k] << (8u * k);
    return v;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void compression_deflate_block_starts_candidates(
    __global const uchar* input, const uint input_len,
    __global uint* candidates, const uint candidates_len,
    __global const uint* windows, const uint windows_len,
    __constant uint* params, const uint params_len)
{
    uint slot = (uint)get_group_id(0);
    if (((uint)(slot < vyre_load_constant_uint(params, params_len, 0u)))) {
        uint window_start = vyre_load_global_uint(windows, windows_len, (slot * 3u));
        uint window_bytes = vyre_load_global_uint(windows, windows_len, ((slot * 3u) + 1u));
        uint n = vyre_load_global_uint(windows, windows_len, ((slot * 3u) + 2u));
        uint from = (uint)get_local_id(0);
        while (((uint)(from < window_bytes))) {
            uint i = (window_start + from);
            uint a = (i & 4294967292u);
            ulong lo = ((ulong)(vyre_load_u32_le_global_checked(input, input_len, a)) | ((ulong)(vyre_load_u32_le_global_checked(input, input_len, (a + 4u))) << (32ul & 63ul)));
            ulong hi = ((ulong)(vyre_load_u32_le_global_checked(input, input_len, (a + 8u))) | ((ulong)(vyre_load_u32_le_global_checked(input, input_len, (a + 12u))) << (32ul & 63ul)));
            uint o = 0u;
            while (((uint)(o < 8u))) {
                uint v = (uint)(((lo >> ((ulong)((((i & 3u) * 8u) + o)) & 63ul)) | ((hi << (1ul & 63ul)) << ((ulong)((63u - (((i & 3u) * 8u) + o))) & 63ul))));
                uint ncode = 0u;
                ulong fields = 0ul;
                uint plausible = 0u;
                ncode = (((v >> (13u & 31u)) & 15u) + 4u);
                uint header_end = ((((i * 8u) + o) + 17u) + (ncode * 3u));
                uint cheap = ((uint)(((uint)(((uint)(((uint)(((v >> (1u & 31u)) & 3u) == 2u)) && ((uint)(((v >> (3u & 31u)) & 31u) <= 29u)))) && ((uint)(((v >> (8u & 31u)) & 31u) <= 29u)))) && ((uint)(header_end <= (n * 8u)))));
                if (cheap) {
                    fields = (((lo >> ((ulong)(((((i & 3u) * 8u) + o) + 17u)) & 63ul)) | ((hi << (1ul & 63ul)) << ((ulong)((63u - ((((i & 3u) * 8u) + o) + 17u))) & 63ul))) & ((1ul << ((ulong)((ncode * 3u)) & 63ul)) - 1ul));
                    uint clen_kraft = 0u;
                    uint kraft_l0 = ((uint)((fields >> (0ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l0 != 0u)) ? (128u >> (kraft_l0 & 31u)) : 0u));
                    uint kraft_l1 = ((uint)((fields >> (3ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l1 != 0u)) ? (128u >> (kraft_l1 & 31u)) : 0u));
                    uint kraft_l2 = ((uint)((fields >> (6ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l2 != 0u)) ? (128u >> (kraft_l2 & 31u)) : 0u));
                    uint kraft_l3 = ((uint)((fields >> (9ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l3 != 0u)) ? (128u >> (kraft_l3 & 31u)) : 0u));
                    uint kraft_l4 = ((uint)((fields >> (12ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l4 != 0u)) ? (128u >> (kraft_l4 & 31u)) : 0u));
                    uint kraft_l5 = ((uint)((fields >> (15ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l5 != 0u)) ? (128u >> (kraft_l5 & 31u)) : 0u));
                    uint kraft_l6 = ((uint)((fields >> (18ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l6 != 0u)) ? (128u >> (kraft_l6 & 31u)) : 0u));
                    uint kraft_l7 = ((uint)((fields >> (21ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l7 != 0u)) ? (128u >> (kraft_l7 & 31u)) : 0u));
                    uint kraft_l8 = ((uint)((fields >> (24ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l8 != 0u)) ? (128u >> (kraft_l8 & 31u)) : 0u));
                    uint kraft_l9 = ((uint)((fields >> (27ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l9 != 0u)) ? (128u >> (kraft_l9 & 31u)) : 0u));
                    uint kraft_l10 = ((uint)((fields >> (30ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l10 != 0u)) ? (128u >> (kraft_l10 & 31u)) : 0u));
                    uint kraft_l11 = ((uint)((fields >> (33ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l11 != 0u)) ? (128u >> (kraft_l11 & 31u)) : 0u));
                    uint kraft_l12 = ((uint)((fields >> (36ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l12 != 0u)) ? (128u >> (kraft_l12 & 31u)) : 0u));
                    uint kraft_l13 = ((uint)((fields >> (39ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l13 != 0u)) ? (128u >> (kraft_l13 & 31u)) : 0u));
                    uint kraft_l14 = ((uint)((fields >> (42ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l14 != 0u)) ? (128u >> (kraft_l14 & 31u)) : 0u));
                    uint kraft_l15 = ((uint)((fields >> (45ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l15 != 0u)) ? (128u >> (kraft_l15 & 31u)) : 0u));
                    uint kraft_l16 = ((uint)((fields >> (48ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l16 != 0u)) ? (128u >> (kraft_l16 & 31u)) : 0u));
                    uint kraft_l17 = ((uint)((fields >> (51ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l17 != 0u)) ? (128u >> (kraft_l17 & 31u)) : 0u));
                    uint kraft_l18 = ((uint)((fields >> (54ul & 63ul))) & 7u);
                    clen_kraft = (clen_kraft + (((uint)(kraft_l18 != 0u)) ? (128u >> (kraft_l18 & 31u)) : 0u));
                    plausible = ((uint)(clen_kraft == 128u));
                }
                if (plausible) {
                    uint j = vyre_atomic_add_uint(candidates, candidates_len, 0u, 1u);
                    if (((uint)(j < vyre_load_constant_uint(params, params_len, 1u)))) {
                        vyre_store_global_uint(candidates, candidates_len, (1u + (2u * j)), slot);
                        vyre_store_global_uint(candidates, candidates_len, (2u + (2u * j)), ((from * 8u) + o));
                    }
                }
                o = (o + 1u);
            }
            from = (from + 256u);
        }
    }
}
