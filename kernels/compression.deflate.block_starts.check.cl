// vyre program "compression_deflate_block_starts_check", lowered to OpenCL C 1.2
static inline uint vyre_atomic_min_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_min(&b[i], v) : 0u;
}
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uchar(const __global uchar* b, uint words, uint i) {
    return (i >> 2) < words ? (uint)b[i] : 0u;
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

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void compression_deflate_block_starts_check(
    __global const uchar* input, const uint input_len,
    __global uint* found, const uint found_len,
    __global const uint* windows, const uint windows_len,
    __constant uint* params, const uint params_len,
    __global const uint* listed, const uint listed_len)
{
    uint j = (uint)get_global_id(0);
    if (((uint)(j < vyre_load_constant_uint(params, params_len, 0u)))) {
        uint slot = vyre_load_global_uint(listed, listed_len, (1u + (2u * j)));
        uint listed_bit = vyre_load_global_uint(listed, listed_len, (2u + (2u * j)));
        uint n = vyre_load_global_uint(windows, windows_len, ((slot * 3u) + 2u));
        uint i = (vyre_load_global_uint(windows, windows_len, (slot * 3u)) + (listed_bit >> (3u & 31u)));
        uint o = (listed_bit & 7u);
        uint a = (i & 4294967292u);
        ulong lo = ((ulong)(vyre_load_u32_le_global_checked(input, input_len, a)) | ((ulong)(vyre_load_u32_le_global_checked(input, input_len, (a + 4u))) << (32ul & 63ul)));
        ulong hi = ((ulong)(vyre_load_u32_le_global_checked(input, input_len, (a + 8u))) | ((ulong)(vyre_load_u32_le_global_checked(input, input_len, (a + 12u))) << (32ul & 63ul)));
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
            uint clen0 = 0u;
            uint clen1 = 0u;
            uint clen2 = 0u;
            uint clen3 = 0u;
            uint clen4 = 0u;
            uint clen5 = 0u;
            uint clen6 = 0u;
            uint clen7 = 0u;
            uint clen8 = 0u;
            uint clen9 = 0u;
            uint clen10 = 0u;
            uint clen11 = 0u;
            uint clen12 = 0u;
            uint clen13 = 0u;
            uint clen14 = 0u;
            uint clen15 = 0u;
            uint clen16 = 0u;
            uint clen17 = 0u;
            uint clen18 = 0u;
            ulong clen_counts = 0ul;
            clen16 = ((uint)((fields >> (0ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen16 != 0u)) ? (1ul << ((ulong)(((clen16 * 5u) - 5u)) & 63ul)) : 0ul));
            clen17 = ((uint)((fields >> (3ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen17 != 0u)) ? (1ul << ((ulong)(((clen17 * 5u) - 5u)) & 63ul)) : 0ul));
            clen18 = ((uint)((fields >> (6ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen18 != 0u)) ? (1ul << ((ulong)(((clen18 * 5u) - 5u)) & 63ul)) : 0ul));
            clen0 = ((uint)((fields >> (9ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen0 != 0u)) ? (1ul << ((ulong)(((clen0 * 5u) - 5u)) & 63ul)) : 0ul));
            clen8 = ((uint)((fields >> (12ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen8 != 0u)) ? (1ul << ((ulong)(((clen8 * 5u) - 5u)) & 63ul)) : 0ul));
            clen7 = ((uint)((fields >> (15ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen7 != 0u)) ? (1ul << ((ulong)(((clen7 * 5u) - 5u)) & 63ul)) : 0ul));
            clen9 = ((uint)((fields >> (18ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen9 != 0u)) ? (1ul << ((ulong)(((clen9 * 5u) - 5u)) & 63ul)) : 0ul));
            clen6 = ((uint)((fields >> (21ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen6 != 0u)) ? (1ul << ((ulong)(((clen6 * 5u) - 5u)) & 63ul)) : 0ul));
            clen10 = ((uint)((fields >> (24ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen10 != 0u)) ? (1ul << ((ulong)(((clen10 * 5u) - 5u)) & 63ul)) : 0ul));
            clen5 = ((uint)((fields >> (27ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen5 != 0u)) ? (1ul << ((ulong)(((clen5 * 5u) - 5u)) & 63ul)) : 0ul));
            clen11 = ((uint)((fields >> (30ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen11 != 0u)) ? (1ul << ((ulong)(((clen11 * 5u) - 5u)) & 63ul)) : 0ul));
            clen4 = ((uint)((fields >> (33ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen4 != 0u)) ? (1ul << ((ulong)(((clen4 * 5u) - 5u)) & 63ul)) : 0ul));
            clen12 = ((uint)((fields >> (36ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen12 != 0u)) ? (1ul << ((ulong)(((clen12 * 5u) - 5u)) & 63ul)) : 0ul));
            clen3 = ((uint)((fields >> (39ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen3 != 0u)) ? (1ul << ((ulong)(((clen3 * 5u) - 5u)) & 63ul)) : 0ul));
            clen13 = ((uint)((fields >> (42ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen13 != 0u)) ? (1ul << ((ulong)(((clen13 * 5u) - 5u)) & 63ul)) : 0ul));
            clen2 = ((uint)((fields >> (45ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen2 != 0u)) ? (1ul << ((ulong)(((clen2 * 5u) - 5u)) & 63ul)) : 0ul));
            clen14 = ((uint)((fields >> (48ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen14 != 0u)) ? (1ul << ((ulong)(((clen14 * 5u) - 5u)) & 63ul)) : 0ul));
            clen1 = ((uint)((fields >> (51ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen1 != 0u)) ? (1ul << ((ulong)(((clen1 * 5u) - 5u)) & 63ul)) : 0ul));
            clen15 = ((uint)((fields >> (54ul & 63ul))) & 7u);
            clen_counts = (clen_counts + (((uint)(clen15 != 0u)) ? (1ul << ((ulong)(((clen15 * 5u) - 5u)) & 63ul)) : 0ul));
            uint ok = 1u;
            uint ip = (i + (((o + 17u) + (ncode * 3u)) >> (3u & 31u)));
            uint acc = (vyre_load_global_uchar(input, input_len, ip) >> ((((o + 17u) + (ncode * 3u)) & 7u) & 31u));
            uint held = (8u - (((o + 17u) + (ncode * 3u)) & 7u));
            ip = (ip + 1u);
            uint nlen = (((v >> (3u & 31u)) & 31u) + 257u);
            uint total = ((nlen + ((v >> (8u & 31u)) & 31u)) + 1u);
            uint index = 0u;
            uint previous = 0u;
            uint lit_kraft = 0u;
            uint dist_kraft = 0u;
            uint lit_long = 0u;
            uint dist_long = 0u;
            uint end_of_block = 0u;
            uint bit = 0u;
            uint extra = 0u;
            while (((uint)(ok && ((uint)(index < total))))) {
                uint code = 0u;
                uint first = 0u;
                uint length = 1u;
                uint rank = 4294967295u;
                while (((uint)(ok && ((uint)(length <= 7u))))) {
                    uint take_t = 0u;
                    bit = 0u;
                    while (((uint)(take_t < 1u))) {
                        if (((uint)(held == 0u))) {
                            if (((uint)(ip >= n))) {
                                ok = 0u;
                            }
                            acc = vyre_load_global_uchar(input, input_len, ip);
                            ip = (ip + 1u);
                            held = 8u;
                        }
                        bit = (bit | ((acc & 1u) << (take_t & 31u)));
                        acc = (acc >> (1u & 31u));
                        held = (held - 1u);
                        take_t = (take_t + 1u);
                    }
                    code = (code | bit);
                    uint c = ((uint)((clen_counts >> ((ulong)(((length * 5u) - 5u)) & 63ul))) & 31u);
                    if (((uint)((code - first) < c))) {
                        rank = (code - first);
                        break;
                    }
                    first = ((first + c) << (1u & 31u));
                    code = (code << (1u & 31u));
                    length = (length + 1u);
                }
                if (((uint)(rank == 4294967295u))) {
                    ok = 0u;
                }
                uint symbol = 0u;
                if (((uint)(clen0 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 0u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen1 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 1u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen2 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 2u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen3 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 3u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen4 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 4u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen5 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 5u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen6 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 6u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen7 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 7u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen8 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 8u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen9 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 9u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen10 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 10u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen11 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 11u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen12 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 12u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen13 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 13u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen14 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 14u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen15 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 15u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen16 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 16u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen17 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 17u;
                    }
                    rank = (rank - 1u);
                }
                if (((uint)(clen18 == length))) {
                    if (((uint)(rank == 0u))) {
                        symbol = 18u;
                    }
                    rank = (rank - 1u);
                }
                uint len = symbol;
                uint repeat = 1u;
                if (((uint)(symbol == 16u))) {
                    if (((uint)(index == 0u))) {
                        ok = 0u;
                    }
                    uint take_t = 0u;
                    extra = 0u;
                    while (((uint)(take_t < 2u))) {
                        if (((uint)(held == 0u))) {
                            if (((uint)(ip >= n))) {
                                ok = 0u;
                            }
                            acc = vyre_load_global_uchar(input, input_len, ip);
                            ip = (ip + 1u);
                            held = 8u;
                        }
                        extra = (extra | ((acc & 1u) << (take_t & 31u)));
                        acc = (acc >> (1u & 31u));
                        held = (held - 1u);
                        take_t = (take_t + 1u);
                    }
                    len = previous;
                    repeat = (3u + extra);
                }
                if (((uint)(symbol == 17u))) {
                    uint take_t = 0u;
                    extra = 0u;
                    while (((uint)(take_t < 3u))) {
                        if (((uint)(held == 0u))) {
                            if (((uint)(ip >= n))) {
                                ok = 0u;
                            }
                            acc = vyre_load_global_uchar(input, input_len, ip);
                            ip = (ip + 1u);
                            held = 8u;
                        }
                        extra = (extra | ((acc & 1u) << (take_t & 31u)));
                        acc = (acc >> (1u & 31u));
                        held = (held - 1u);
                        take_t = (take_t + 1u);
                    }
                    len = 0u;
                    repeat = (3u + extra);
                }
                if (((uint)(symbol == 18u))) {
                    uint take_t = 0u;
                    extra = 0u;
                    while (((uint)(take_t < 7u))) {
                        if (((uint)(held == 0u))) {
                            if (((uint)(ip >= n))) {
                                ok = 0u;
                            }
                            acc = vyre_load_global_uchar(input, input_len, ip);
                            ip = (ip + 1u);
                            held = 8u;
                        }
                        extra = (extra | ((acc & 1u) << (take_t & 31u)));
                        acc = (acc >> (1u & 31u));
                        held = (held - 1u);
                        take_t = (take_t + 1u);
                    }
                    len = 0u;
                    repeat = (11u + extra);
                }
                if (((uint)((index + repeat) > total))) {
                    ok = 0u;
                }
                if (((uint)(ok && ((uint)(len != 0u))))) {
                    uint literal = (min((index + repeat), nlen) - min(index, nlen));
                    uint distance = (repeat - literal);
                    lit_kraft = (lit_kraft + (literal << ((15u - len) & 31u)));
                    dist_kraft = (dist_kraft + (distance << ((15u - len) & 31u)));
                    lit_long = ((uint)(lit_long || ((uint)(((uint)(len >= 2u)) && ((uint)(literal != 0u))))));
                    dist_long = ((uint)(dist_long || ((uint)(((uint)(len >= 2u)) && ((uint)(distance != 0u))))));
                    end_of_block = ((uint)(end_of_block || ((uint)(((uint)(index <= 256u)) && ((uint)((index + repeat) > 256u))))));
                }
                if (((uint)(((uint)(lit_kraft > 32768u)) || ((uint)(dist_kraft > 32768u))))) {
                    ok = 0u;
                }
                previous = len;
                index = (index + repeat);
            }
            uint accepted = ((uint)(((uint)(((uint)(ok && end_of_block)) && ((uint)(((uint)(lit_kraft == 32768u)) || (lit_long ^ 1u))))) && ((uint)(((uint)(dist_kraft == 32768u)) || (dist_long ^ 1u)))));
            if (accepted) {
                uint lowered = vyre_atomic_min_uint(found, found_len, slot, listed_bit);
            }
        }
    }
}
