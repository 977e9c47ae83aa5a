// vyre program "compression_deflate_pieces", lowered to OpenCL C 1.2, subgroups of 32 cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#ifdef cl_khr_subgroup_shuffle
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle : enable
#endif
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uchar(const __global uchar* b, uint words, uint i) {
    return (i >> 2) < words ? (uint)b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_local_uint(const __local uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_u32_le_global(const __global uchar* b, uint i) {
    const __global uchar* p = b + i;
    return (uint)p[0] | ((uint)p[1] << 8) | ((uint)p[2] << 16) | ((uint)p[3] << 24);
}
static inline uint vyre_mod_uint(uint a, uint b) {
    return b == 0u ? 0u : a % b;
}
static inline uint vyre_reverse_bits_uint(uint x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
}
static inline uint vyre_sg_lane(void) { return (uint)get_sub_group_local_id(); }
#ifdef cl_khr_subgroup_shuffle
static inline uint vyre_sg_fetch(uint v, uint src) { return sub_group_shuffle(v, src); }
#else
static inline uint vyre_sg_fetch(uint v, uint src) {
    uint r = v;
    for (uint j = 0u; j < 32u; ++j) {
        const uint t = sub_group_broadcast(v, j);
        if (j == src) r = t;
    }
    return r;
}
#endif
static inline uint vyre_sg_ballot(uint p) { return sub_group_reduce_add(p != 0u ? 1u << vyre_sg_lane() : 0u); }
static inline void vyre_sg_barrier(void) { sub_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); }
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}
static inline void vyre_store_local_uint(__local uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void compression_deflate_pieces(
    __global const uchar* input, const uint input_len,
    __global const uint* pieces, const uint pieces_len,
    __global uint* output, const uint output_len,
    __global uint* statuses, const uint statuses_len,
    __constant uint* params, const uint params_len)
{
    __local uint codes[7808];
    {
        const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
        const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
        for (uint vyre_i = vyre_lid; vyre_i < 7808u; vyre_i += vyre_lsize) codes[vyre_i] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint lane = vyre_sg_lane();
    uint block_index = (((uint)get_group_id(0) * 4u) + (uint)get_sub_group_id());
    if (((uint)(block_index >= vyre_load_constant_uint(params, params_len, 0u)))) {
        return;
    }
    uint region = ((uint)get_sub_group_id() * 1952u);
    uint in_base = vyre_load_global_uint(pieces, pieces_len, (block_index * 7u));
    uint in_size = vyre_load_global_uint(pieces, pieces_len, ((block_index * 7u) + 1u));
    uint out_base = vyre_load_global_uint(pieces, pieces_len, ((block_index * 7u) + 4u));
    uint capacity = vyre_load_global_uint(pieces, pieces_len, ((block_index * 7u) + 5u));
    uint block_flags = 0u;
    uint input_bytes = vyre_load_constant_uint(params, params_len, 1u);
    uint output_bytes = vyre_load_constant_uint(params, params_len, 2u);
    uint code = 0u;
    uint op = 0u;
    uint end_bit = 0u;
    uint final_block = 0u;
    uint ip = 0u;
    ulong bits = 0ul;
    uint nbits = 0u;
    uint ahead = 0u;
    uint literal_count = 0u;
    uint distance_first = 0u;
    uint distance_count = 0u;
    uint fixed_built = 0u;
    if (((uint)(((uint)(in_base > input_bytes)) || ((uint)(in_size > (input_bytes - in_base)))))) {
        code = 1u;
    } else {
        if (((uint)(((uint)(out_base > output_bytes)) || ((uint)(capacity > (output_bytes - out_base)))))) {
            code = 2u;
        } else {
            if (((uint)((block_flags & 1u) != 0u))) {
                if (((uint)(in_size > capacity))) {
                    code = 2u;
                } else {
                    uint stored_j = lane;
                    uint stored_j_batched_end = (in_size - min(in_size, 224u));
                    while (((uint)(stored_j < stored_j_batched_end))) {
                        uint stored_j_v0 = ((uint)input[(in_base + (stored_j + 0u))]);
                        uint stored_j_v1 = ((uint)input[(in_base + (stored_j + 32u))]);
                        uint stored_j_v2 = ((uint)input[(in_base + (stored_j + 64u))]);
                        uint stored_j_v3 = ((uint)input[(in_base + (stored_j + 96u))]);
                        uint stored_j_v4 = ((uint)input[(in_base + (stored_j + 128u))]);
                        uint stored_j_v5 = ((uint)input[(in_base + (stored_j + 160u))]);
                        uint stored_j_v6 = ((uint)input[(in_base + (stored_j + 192u))]);
                        uint stored_j_v7 = ((uint)input[(in_base + (stored_j + 224u))]);
                        output[(((out_base + 0u) + stored_j) + 0u)] = (stored_j_v0);
                        output[(((out_base + 0u) + stored_j) + 32u)] = (stored_j_v1);
                        output[(((out_base + 0u) + stored_j) + 64u)] = (stored_j_v2);
                        output[(((out_base + 0u) + stored_j) + 96u)] = (stored_j_v3);
                        output[(((out_base + 0u) + stored_j) + 128u)] = (stored_j_v4);
                        output[(((out_base + 0u) + stored_j) + 160u)] = (stored_j_v5);
                        output[(((out_base + 0u) + stored_j) + 192u)] = (stored_j_v6);
                        output[(((out_base + 0u) + stored_j) + 224u)] = (stored_j_v7);
                        stored_j = (min(stored_j, 4294967039u) + 256u);
                    }
                    while (((uint)(stored_j < in_size))) {
                        output[((out_base + 0u) + stored_j)] = (((uint)input[(in_base + stored_j)]));
                        stored_j = (min(stored_j, 4294967263u) + 32u);
                    }
                    op = in_size;
                }
            } else {
                uint fenced = 0u;
                uint last = 0u;
                uint window = vyre_load_global_uint(pieces, pieces_len, ((block_index * 7u) + 6u));
                if (((uint)(window > capacity))) {
                    code = 2u;
                } else {
                    uint window_j = lane;
                    while (((uint)(window_j < window))) {
                        output[(out_base + window_j)] = ((window_j + 256u));
                        window_j = (window_j + 32u);
                    }
                    op = window;
                }
                uint stop_bit = vyre_load_global_uint(pieces, pieces_len, ((block_index * 7u) + 3u));
                if (((uint)(in_size >= 4u))) {
                    ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                }
                uint start_bit = vyre_load_global_uint(pieces, pieces_len, ((block_index * 7u) + 2u));
                if (((uint)(code == 0u))) {
                    if (((uint)(nbits <= 32u))) {
                        if (((uint)((in_size - ip) >= 4u))) {
                            bits = (bits | ((ulong)(ahead) << ((ulong)(nbits) & 63ul)));
                            ip = (ip + 4u);
                            nbits = (nbits + 32u);
                            ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                        } else {
                            while (((uint)(((uint)(nbits <= 56u)) && ((uint)(ip < in_size))))) {
                                bits = (bits | ((ulong)(((uint)input[(in_base + ip)])) << ((ulong)(nbits) & 63ul)));
                                ip = (ip + 1u);
                                nbits = (nbits + 8u);
                            }
                        }
                    }
                    uint start_skip = 0u;
                    if (((uint)(nbits < start_bit))) {
                        code = 1u;
                    } else {
                        start_skip = ((uint)(bits) & ((1u << (start_bit & 31u)) - 1u));
                        bits = (bits >> ((ulong)(start_bit) & 63ul));
                        nbits = (nbits - start_bit);
                    }
                }
                while (((uint)(last == 0u))) {
                    if (((uint)(((uint)(code != 0u)) || ((uint)(((ip * 8u) - nbits) >= stop_bit))))) {
                        break;
                    }
                    if (((uint)(nbits <= 32u))) {
                        if (((uint)((in_size - ip) >= 4u))) {
                            bits = (bits | ((ulong)(ahead) << ((ulong)(nbits) & 63ul)));
                            ip = (ip + 4u);
                            nbits = (nbits + 32u);
                            ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                        } else {
                            while (((uint)(((uint)(nbits <= 56u)) && ((uint)(ip < in_size))))) {
                                bits = (bits | ((ulong)(((uint)input[(in_base + ip)])) << ((ulong)(nbits) & 63ul)));
                                ip = (ip + 1u);
                                nbits = (nbits + 8u);
                            }
                        }
                    }
                    uint block_header = 0u;
                    if (((uint)(nbits < 3u))) {
                        code = 1u;
                    } else {
                        block_header = ((uint)(bits) & ((1u << (3u & 31u)) - 1u));
                        bits = (bits >> (3ul & 63ul));
                        nbits = (nbits - 3u);
                    }
                    if (((uint)(code != 0u))) {
                        break;
                    }
                    last = (block_header & 1u);
                    uint block_type = (block_header >> (1u & 31u));
                    if (((uint)(block_type == 3u))) {
                        code = 3u;
                        break;
                    }
                    if (((uint)(block_type == 0u))) {
                        bits = (bits >> ((ulong)((nbits & 7u)) & 63ul));
                        nbits = (nbits - (nbits & 7u));
                        ip = (ip - (nbits >> (3u & 31u)));
                        bits = 0ul;
                        nbits = 0u;
                        if (((uint)((in_size - ip) < 4u))) {
                            code = 1u;
                            break;
                        }
                        uint stored_len = (vyre_load_global_uchar(input, input_len, (in_base + ip)) | (vyre_load_global_uchar(input, input_len, ((in_base + ip) + 1u)) << (8u & 31u)));
                        uint stored_nlen = (vyre_load_global_uchar(input, input_len, ((in_base + ip) + 2u)) | (vyre_load_global_uchar(input, input_len, ((in_base + ip) + 3u)) << (8u & 31u)));
                        ip = (ip + 4u);
                        if (((uint)(stored_len != ((~stored_nlen) & 65535u)))) {
                            code = 4u;
                            break;
                        }
                        if (((uint)(stored_len > (in_size - ip)))) {
                            code = 1u;
                            break;
                        }
                        if (((uint)(stored_len > (capacity - op)))) {
                            code = 2u;
                            break;
                        }
                        uint stored_block_j = lane;
                        uint stored_block_j_batched_end = (stored_len - min(stored_len, 224u));
                        while (((uint)(stored_block_j < stored_block_j_batched_end))) {
                            uint stored_block_j_v0 = ((uint)input[((in_base + ip) + (stored_block_j + 0u))]);
                            uint stored_block_j_v1 = ((uint)input[((in_base + ip) + (stored_block_j + 32u))]);
                            uint stored_block_j_v2 = ((uint)input[((in_base + ip) + (stored_block_j + 64u))]);
                            uint stored_block_j_v3 = ((uint)input[((in_base + ip) + (stored_block_j + 96u))]);
                            uint stored_block_j_v4 = ((uint)input[((in_base + ip) + (stored_block_j + 128u))]);
                            uint stored_block_j_v5 = ((uint)input[((in_base + ip) + (stored_block_j + 160u))]);
                            uint stored_block_j_v6 = ((uint)input[((in_base + ip) + (stored_block_j + 192u))]);
                            uint stored_block_j_v7 = ((uint)input[((in_base + ip) + (stored_block_j + 224u))]);
                            output[(((out_base + op) + stored_block_j) + 0u)] = (stored_block_j_v0);
                            output[(((out_base + op) + stored_block_j) + 32u)] = (stored_block_j_v1);
                            output[(((out_base + op) + stored_block_j) + 64u)] = (stored_block_j_v2);
                            output[(((out_base + op) + stored_block_j) + 96u)] = (stored_block_j_v3);
                            output[(((out_base + op) + stored_block_j) + 128u)] = (stored_block_j_v4);
                            output[(((out_base + op) + stored_block_j) + 160u)] = (stored_block_j_v5);
                            output[(((out_base + op) + stored_block_j) + 192u)] = (stored_block_j_v6);
                            output[(((out_base + op) + stored_block_j) + 224u)] = (stored_block_j_v7);
                            stored_block_j = (min(stored_block_j, 4294967039u) + 256u);
                        }
                        while (((uint)(stored_block_j < stored_len))) {
                            output[((out_base + op) + stored_block_j)] = (((uint)input[((in_base + ip) + stored_block_j)]));
                            stored_block_j = (min(stored_block_j, 4294967263u) + 32u);
                        }
                        ip = (ip + stored_len);
                        op = (op + stored_len);
                        if (((uint)(in_size >= 4u))) {
                            ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                        }
                        continue;
                    }
                    uint which = 3u;
                    if (((uint)(block_type == 1u))) {
                        literal_count = 288u;
                        distance_first = 288u;
                        distance_count = 32u;
                        if ((fixed_built ^ 1u)) {
                            which = 1u;
                            uint fixed_j = lane;
                            while (((uint)(fixed_j < 320u))) {
                                vyre_store_local_uint(codes, 7808u, ((region + 0u) + fixed_j), (((uint)(fixed_j < 144u)) ? 8u : (((uint)(fixed_j < 256u)) ? 9u : (((uint)(fixed_j < 280u)) ? 7u : (((uint)(fixed_j < 288u)) ? 8u : 5u)))));
                                fixed_j = (fixed_j + 32u);
                            }
                        }
                        fixed_built = 1u;
                    } else {
                        fixed_built = 0u;
                        which = 0u;
                        if (((uint)(nbits <= 32u))) {
                            if (((uint)((in_size - ip) >= 4u))) {
                                bits = (bits | ((ulong)(ahead) << ((ulong)(nbits) & 63ul)));
                                ip = (ip + 4u);
                                nbits = (nbits + 32u);
                                ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                            } else {
                                while (((uint)(((uint)(nbits <= 56u)) && ((uint)(ip < in_size))))) {
                                    bits = (bits | ((ulong)(((uint)input[(in_base + ip)])) << ((ulong)(nbits) & 63ul)));
                                    ip = (ip + 1u);
                                    nbits = (nbits + 8u);
                                }
                            }
                        }
                        uint hlit = 0u;
                        if (((uint)(nbits < 5u))) {
                            code = 1u;
                        } else {
                            hlit = ((uint)(bits) & ((1u << (5u & 31u)) - 1u));
                            bits = (bits >> (5ul & 63ul));
                            nbits = (nbits - 5u);
                        }
                        if (((uint)(nbits <= 32u))) {
                            if (((uint)((in_size - ip) >= 4u))) {
                                bits = (bits | ((ulong)(ahead) << ((ulong)(nbits) & 63ul)));
                                ip = (ip + 4u);
                                nbits = (nbits + 32u);
                                ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                            } else {
                                while (((uint)(((uint)(nbits <= 56u)) && ((uint)(ip < in_size))))) {
                                    bits = (bits | ((ulong)(((uint)input[(in_base + ip)])) << ((ulong)(nbits) & 63ul)));
                                    ip = (ip + 1u);
                                    nbits = (nbits + 8u);
                                }
                            }
                        }
                        uint hdist = 0u;
                        if (((uint)(nbits < 5u))) {
                            code = 1u;
                        } else {
                            hdist = ((uint)(bits) & ((1u << (5u & 31u)) - 1u));
                            bits = (bits >> (5ul & 63ul));
                            nbits = (nbits - 5u);
                        }
                        if (((uint)(nbits <= 32u))) {
                            if (((uint)((in_size - ip) >= 4u))) {
                                bits = (bits | ((ulong)(ahead) << ((ulong)(nbits) & 63ul)));
                                ip = (ip + 4u);
                                nbits = (nbits + 32u);
                                ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                            } else {
                                while (((uint)(((uint)(nbits <= 56u)) && ((uint)(ip < in_size))))) {
                                    bits = (bits | ((ulong)(((uint)input[(in_base + ip)])) << ((ulong)(nbits) & 63ul)));
                                    ip = (ip + 1u);
                                    nbits = (nbits + 8u);
                                }
                            }
                        }
                        uint hclen = 0u;
                        if (((uint)(nbits < 4u))) {
                            code = 1u;
                        } else {
                            hclen = ((uint)(bits) & ((1u << (4u & 31u)) - 1u));
                            bits = (bits >> (4ul & 63ul));
                            nbits = (nbits - 4u);
                        }
                        if (((uint)(code != 0u))) {
                            break;
                        }
                        literal_count = (hlit + 257u);
                        distance_first = literal_count;
                        distance_count = (hdist + 1u);
                        if (((uint)(((uint)(literal_count > 286u)) || ((uint)(distance_count > 30u))))) {
                            code = 5u;
                            break;
                        }
                        uint clc_i = 0u;
                        while (((uint)(clc_i < 19u))) {
                            uint clc_symbol = (((uint)(clc_i < 3u)) ? (16u + clc_i) : (((uint)(clc_i == 3u)) ? 0u : (((uint)(((clc_i - 4u) & 1u) == 0u)) ? (8u + ((clc_i - 4u) >> (1u & 31u))) : (7u - ((clc_i - 5u) >> (1u & 31u))))));
                            uint clc_length = 0u;
                            if (((uint)(clc_i < (hclen + 4u)))) {
                                if (((uint)(nbits <= 32u))) {
                                    if (((uint)((in_size - ip) >= 4u))) {
                                        bits = (bits | ((ulong)(ahead) << ((ulong)(nbits) & 63ul)));
                                        ip = (ip + 4u);
                                        nbits = (nbits + 32u);
                                        ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                                    } else {
                                        while (((uint)(((uint)(nbits <= 56u)) && ((uint)(ip < in_size))))) {
                                            bits = (bits | ((ulong)(((uint)input[(in_base + ip)])) << ((ulong)(nbits) & 63ul)));
                                            ip = (ip + 1u);
                                            nbits = (nbits + 8u);
                                        }
                                    }
                                }
                                uint clc_bits = 0u;
                                if (((uint)(nbits < 3u))) {
                                    code = 1u;
                                } else {
                                    clc_bits = ((uint)(bits) & ((1u << (3u & 31u)) - 1u));
                                    bits = (bits >> (3ul & 63ul));
                                    nbits = (nbits - 3u);
                                }
                                clc_length = clc_bits;
                            }
                            if (((uint)(code != 0u))) {
                                break;
                            }
                            if (((uint)(lane == 0u))) {
                                vyre_store_local_uint(codes, 7808u, ((region + 0u) + clc_symbol), clc_length);
                            }
                            clc_i = (clc_i + 1u);
                        }
                    }
                    if (((uint)(code != 0u))) {
                        break;
                    }
                    while (((uint)(which < 3u))) {
                        vyre_sg_barrier();
                        if (((uint)(lane == 0u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 1u), 0u);
                        }
                        if (((uint)(lane == 1u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 2u), 0u);
                        }
                        if (((uint)(lane == 2u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 3u), 0u);
                        }
                        if (((uint)(lane == 3u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 4u), 0u);
                        }
                        if (((uint)(lane == 4u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 5u), 0u);
                        }
                        if (((uint)(lane == 5u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 6u), 0u);
                        }
                        if (((uint)(lane == 6u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 7u), 0u);
                        }
                        if (((uint)(lane == 7u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 8u), 0u);
                        }
                        if (((uint)(lane == 8u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 9u), 0u);
                        }
                        if (((uint)(lane == 9u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 10u), 0u);
                        }
                        if (((uint)(lane == 10u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 11u), 0u);
                        }
                        if (((uint)(lane == 11u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 12u), 0u);
                        }
                        if (((uint)(lane == 12u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 13u), 0u);
                        }
                        if (((uint)(lane == 13u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 14u), 0u);
                        }
                        if (((uint)(lane == 14u))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 15u), 0u);
                        }
                        uint build_entries = (1u << ((((uint)(which == 0u)) ? 7u : (((uint)(which == 1u)) ? 10u : 8u)) & 31u));
                        uint build_t = lane;
                        while (((uint)(build_t < build_entries))) {
                            vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 672u : 1696u)) + build_t), 4294901760u);
                            build_t = (build_t + 32u);
                        }
                        uint build_s1 = 0u;
                        while (((uint)(build_s1 < (((uint)(which == 0u)) ? 19u : (((uint)(which == 1u)) ? literal_count : distance_count))))) {
                            uint build_len1 = vyre_load_local_uint(codes, 7808u, (((region + 0u) + (((uint)(which == 0u)) ? 0u : (((uint)(which == 1u)) ? 0u : distance_first))) + build_s1));
                            if (((uint)(((uint)(build_len1 != 0u)) && ((uint)(lane == vyre_mod_uint((build_len1 - 1u), 32u)))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + build_len1), (vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + build_len1)) + 1u));
                            }
                            build_s1 = (build_s1 + 1u);
                        }
                        vyre_sg_barrier();
                        uint build_over = 0u;
                        uint build_left = 1u;
                        uint build_long = 0u;
                        uint build_offset = 0u;
                        uint build_next = 0u;
                        uint build_previous = 0u;
                        uint build_have1 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 1u));
                        build_over = ((uint)(build_over || ((uint)(build_have1 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have1));
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have1;
                        uint build_place1 = build_offset;
                        uint build_value1 = build_next;
                        uint build_have2 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 2u));
                        build_over = ((uint)(build_over || ((uint)(build_have2 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have2));
                        build_long = (build_long + build_have2);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have2;
                        uint build_place2 = build_offset;
                        uint build_value2 = build_next;
                        uint build_have3 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 3u));
                        build_over = ((uint)(build_over || ((uint)(build_have3 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have3));
                        build_long = (build_long + build_have3);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have3;
                        uint build_place3 = build_offset;
                        uint build_value3 = build_next;
                        uint build_have4 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 4u));
                        build_over = ((uint)(build_over || ((uint)(build_have4 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have4));
                        build_long = (build_long + build_have4);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have4;
                        uint build_place4 = build_offset;
                        uint build_value4 = build_next;
                        uint build_have5 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 5u));
                        build_over = ((uint)(build_over || ((uint)(build_have5 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have5));
                        build_long = (build_long + build_have5);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have5;
                        uint build_place5 = build_offset;
                        uint build_value5 = build_next;
                        uint build_have6 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 6u));
                        build_over = ((uint)(build_over || ((uint)(build_have6 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have6));
                        build_long = (build_long + build_have6);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have6;
                        uint build_place6 = build_offset;
                        uint build_value6 = build_next;
                        uint build_have7 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 7u));
                        build_over = ((uint)(build_over || ((uint)(build_have7 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have7));
                        build_long = (build_long + build_have7);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have7;
                        uint build_place7 = build_offset;
                        uint build_value7 = build_next;
                        uint build_have8 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 8u));
                        build_over = ((uint)(build_over || ((uint)(build_have8 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have8));
                        build_long = (build_long + build_have8);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have8;
                        uint build_place8 = build_offset;
                        uint build_value8 = build_next;
                        uint build_have9 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 9u));
                        build_over = ((uint)(build_over || ((uint)(build_have9 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have9));
                        build_long = (build_long + build_have9);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have9;
                        uint build_place9 = build_offset;
                        uint build_value9 = build_next;
                        uint build_have10 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 10u));
                        build_over = ((uint)(build_over || ((uint)(build_have10 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have10));
                        build_long = (build_long + build_have10);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have10;
                        uint build_place10 = build_offset;
                        uint build_value10 = build_next;
                        uint build_have11 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 11u));
                        build_over = ((uint)(build_over || ((uint)(build_have11 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have11));
                        build_long = (build_long + build_have11);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have11;
                        uint build_place11 = build_offset;
                        uint build_value11 = build_next;
                        uint build_have12 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 12u));
                        build_over = ((uint)(build_over || ((uint)(build_have12 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have12));
                        build_long = (build_long + build_have12);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have12;
                        uint build_place12 = build_offset;
                        uint build_value12 = build_next;
                        uint build_have13 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 13u));
                        build_over = ((uint)(build_over || ((uint)(build_have13 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have13));
                        build_long = (build_long + build_have13);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have13;
                        uint build_place13 = build_offset;
                        uint build_value13 = build_next;
                        uint build_have14 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 14u));
                        build_over = ((uint)(build_over || ((uint)(build_have14 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have14));
                        build_long = (build_long + build_have14);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have14;
                        uint build_place14 = build_offset;
                        uint build_value14 = build_next;
                        uint build_have15 = vyre_load_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 320u : 336u)) + 15u));
                        build_over = ((uint)(build_over || ((uint)(build_have15 > (build_left * 2u)))));
                        build_left = (build_over ? 0u : ((build_left * 2u) - build_have15));
                        build_long = (build_long + build_have15);
                        build_offset = (build_offset + build_previous);
                        build_next = ((build_next + build_previous) << (1u & 31u));
                        build_previous = build_have15;
                        uint build_place15 = build_offset;
                        uint build_value15 = build_next;
                        uint build_s2 = 0u;
                        while (((uint)(build_s2 < (((uint)(which == 0u)) ? 19u : (((uint)(which == 1u)) ? literal_count : distance_count))))) {
                            uint build_len2 = vyre_load_local_uint(codes, 7808u, (((region + 0u) + (((uint)(which == 0u)) ? 0u : (((uint)(which == 1u)) ? 0u : distance_first))) + build_s2));
                            if (((uint)(((uint)(build_len2 == 1u)) && ((uint)(lane == 0u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place1), build_s2);
                                if (((uint)(((uint)(build_len2 <= (((uint)(which == 0u)) ? 7u : (((uint)(which == 1u)) ? 10u : 8u)))) && (build_over ^ 1u)))) {
                                    uint build_e = (vyre_reverse_bits_uint(build_value1) >> (31u & 31u));
                                    uint build_entry = (build_s2 | 65536u);
                                    while (((uint)(build_e < build_entries))) {
                                        vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 672u : 1696u)) + build_e), build_entry);
                                        build_e = (build_e + 2u);
                                    }
                                }
                                build_place1 = (build_place1 + 1u);
                                build_value1 = (build_value1 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 2u)) && ((uint)(lane == 1u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place2), build_s2);
                                if (((uint)(((uint)(build_len2 <= (((uint)(which == 0u)) ? 7u : (((uint)(which == 1u)) ? 10u : 8u)))) && (build_over ^ 1u)))) {
                                    uint build_e = (vyre_reverse_bits_uint(build_value2) >> (30u & 31u));
                                    uint build_entry = (build_s2 | 131072u);
                                    while (((uint)(build_e < build_entries))) {
                                        vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 672u : 1696u)) + build_e), build_entry);
                                        build_e = (build_e + 4u);
                                    }
                                }
                                build_place2 = (build_place2 + 1u);
                                build_value2 = (build_value2 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 3u)) && ((uint)(lane == 2u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place3), build_s2);
                                if (((uint)(((uint)(build_len2 <= (((uint)(which == 0u)) ? 7u : (((uint)(which == 1u)) ? 10u : 8u)))) && (build_over ^ 1u)))) {
                                    uint build_e = (vyre_reverse_bits_uint(build_value3) >> (29u & 31u));
                                    uint build_entry = (build_s2 | 196608u);
                                    while (((uint)(build_e < build_entries))) {
                                        vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 672u : 1696u)) + build_e), build_entry);
                                        build_e = (build_e + 8u);
                                    }
                                }
                                build_place3 = (build_place3 + 1u);
                                build_value3 = (build_value3 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 4u)) && ((uint)(lane == 3u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place4), build_s2);
                                if (((uint)(((uint)(build_len2 <= (((uint)(which == 0u)) ? 7u : (((uint)(which == 1u)) ? 10u : 8u)))) && (build_over ^ 1u)))) {
                                    uint build_e = (vyre_reverse_bits_uint(build_value4) >> (28u & 31u));
                                    uint build_entry = (build_s2 | 262144u);
                                    while (((uint)(build_e < build_entries))) {
                                        vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 672u : 1696u)) + build_e), build_entry);
                                        build_e = (build_e + 16u);
                                    }
                                }
                                build_place4 = (build_place4 + 1u);
                                build_value4 = (build_value4 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 5u)) && ((uint)(lane == 4u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place5), build_s2);
                                if (((uint)(((uint)(build_len2 <= (((uint)(which == 0u)) ? 7u : (((uint)(which == 1u)) ? 10u : 8u)))) && (build_over ^ 1u)))) {
                                    uint build_e = (vyre_reverse_bits_uint(build_value5) >> (27u & 31u));
                                    uint build_entry = (build_s2 | 327680u);
                                    while (((uint)(build_e < build_entries))) {
                                        vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 672u : 1696u)) + build_e), build_entry);
                                        build_e = (build_e + 32u);
                                    }
                                }
                                build_place5 = (build_place5 + 1u);
                                build_value5 = (build_value5 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 6u)) && ((uint)(lane == 5u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place6), build_s2);
                                if (((uint)(((uint)(build_len2 <= (((uint)(which == 0u)) ? 7u : (((uint)(which == 1u)) ? 10u : 8u)))) && (build_over ^ 1u)))) {
                                    uint build_e = (vyre_reverse_bits_uint(build_value6) >> (26u & 31u));
                                    uint build_entry = (build_s2 | 393216u);
                                    while (((uint)(build_e < build_entries))) {
                                        vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 672u : 1696u)) + build_e), build_entry);
                                        build_e = (build_e + 64u);
                                    }
                                }
                                build_place6 = (build_place6 + 1u);
                                build_value6 = (build_value6 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 7u)) && ((uint)(lane == 6u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place7), build_s2);
                                if (((uint)(((uint)(build_len2 <= (((uint)(which == 0u)) ? 7u : (((uint)(which == 1u)) ? 10u : 8u)))) && (build_over ^ 1u)))) {
                                    uint build_e = (vyre_reverse_bits_uint(build_value7) >> (25u & 31u));
                                    uint build_entry = (build_s2 | 458752u);
                                    while (((uint)(build_e < build_entries))) {
                                        vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 672u : 1696u)) + build_e), build_entry);
                                        build_e = (build_e + 128u);
                                    }
                                }
                                build_place7 = (build_place7 + 1u);
                                build_value7 = (build_value7 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 8u)) && ((uint)(lane == 7u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place8), build_s2);
                                if (((uint)(((uint)(build_len2 <= (((uint)(which == 0u)) ? 7u : (((uint)(which == 1u)) ? 10u : 8u)))) && (build_over ^ 1u)))) {
                                    uint build_e = (vyre_reverse_bits_uint(build_value8) >> (24u & 31u));
                                    uint build_entry = (build_s2 | 524288u);
                                    while (((uint)(build_e < build_entries))) {
                                        vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 672u : 1696u)) + build_e), build_entry);
                                        build_e = (build_e + 256u);
                                    }
                                }
                                build_place8 = (build_place8 + 1u);
                                build_value8 = (build_value8 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 9u)) && ((uint)(lane == 8u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place9), build_s2);
                                if (((uint)(((uint)(build_len2 <= (((uint)(which == 0u)) ? 7u : (((uint)(which == 1u)) ? 10u : 8u)))) && (build_over ^ 1u)))) {
                                    uint build_e = (vyre_reverse_bits_uint(build_value9) >> (23u & 31u));
                                    uint build_entry = (build_s2 | 589824u);
                                    while (((uint)(build_e < build_entries))) {
                                        vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 672u : 1696u)) + build_e), build_entry);
                                        build_e = (build_e + 512u);
                                    }
                                }
                                build_place9 = (build_place9 + 1u);
                                build_value9 = (build_value9 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 10u)) && ((uint)(lane == 9u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place10), build_s2);
                                if (((uint)(((uint)(build_len2 <= (((uint)(which == 0u)) ? 7u : (((uint)(which == 1u)) ? 10u : 8u)))) && (build_over ^ 1u)))) {
                                    uint build_e = (vyre_reverse_bits_uint(build_value10) >> (22u & 31u));
                                    uint build_entry = (build_s2 | 655360u);
                                    while (((uint)(build_e < build_entries))) {
                                        vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 672u : 1696u)) + build_e), build_entry);
                                        build_e = (build_e + 1024u);
                                    }
                                }
                                build_place10 = (build_place10 + 1u);
                                build_value10 = (build_value10 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 11u)) && ((uint)(lane == 10u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place11), build_s2);
                                if (((uint)(((uint)(build_len2 <= (((uint)(which == 0u)) ? 7u : (((uint)(which == 1u)) ? 10u : 8u)))) && (build_over ^ 1u)))) {
                                    uint build_e = (vyre_reverse_bits_uint(build_value11) >> (21u & 31u));
                                    uint build_entry = (build_s2 | 720896u);
                                    while (((uint)(build_e < build_entries))) {
                                        vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 672u : 1696u)) + build_e), build_entry);
                                        build_e = (build_e + 2048u);
                                    }
                                }
                                build_place11 = (build_place11 + 1u);
                                build_value11 = (build_value11 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 12u)) && ((uint)(lane == 11u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place12), build_s2);
                                if (((uint)(((uint)(build_len2 <= (((uint)(which == 0u)) ? 7u : (((uint)(which == 1u)) ? 10u : 8u)))) && (build_over ^ 1u)))) {
                                    uint build_e = (vyre_reverse_bits_uint(build_value12) >> (20u & 31u));
                                    uint build_entry = (build_s2 | 786432u);
                                    while (((uint)(build_e < build_entries))) {
                                        vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 672u : 1696u)) + build_e), build_entry);
                                        build_e = (build_e + 4096u);
                                    }
                                }
                                build_place12 = (build_place12 + 1u);
                                build_value12 = (build_value12 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 13u)) && ((uint)(lane == 12u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place13), build_s2);
                                build_place13 = (build_place13 + 1u);
                                build_value13 = (build_value13 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 14u)) && ((uint)(lane == 13u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place14), build_s2);
                                build_place14 = (build_place14 + 1u);
                                build_value14 = (build_value14 + 1u);
                            }
                            if (((uint)(((uint)(build_len2 == 15u)) && ((uint)(lane == 14u))))) {
                                vyre_store_local_uint(codes, 7808u, ((region + (((uint)(which == 1u)) ? 352u : 640u)) + build_place15), build_s2);
                                build_place15 = (build_place15 + 1u);
                                build_value15 = (build_value15 + 1u);
                            }
                            build_s2 = (build_s2 + 1u);
                        }
                        vyre_sg_barrier();
                        uint build_incomplete = ((uint)((build_over ^ 1u) && ((uint)(build_left != 0u))));
                        uint build_has_long = ((uint)(build_long != 0u));
                        if (((uint)(((uint)(which == 1u)) && ((uint)(block_type == 2u))))) {
                            if (((uint)(vyre_load_local_uint(codes, 7808u, ((region + 0u) + 256u)) == 0u))) {
                                code = 5u;
                                break;
                            }
                        }
                        if (build_over) {
                            code = 5u;
                            break;
                        }
                        if (((uint)(build_incomplete && ((uint)(((uint)(which == 0u)) || build_has_long))))) {
                            code = 6u;
                            break;
                        }
                        if (((uint)(which == 0u))) {
                            uint length_total = (literal_count + distance_count);
                            uint length_index = 0u;
                            uint previous_length = 0u;
                            while (((uint)(length_index < length_total))) {
                                uint length_symbol = 0u;
                                if (((uint)(nbits <= 32u))) {
                                    if (((uint)((in_size - ip) >= 4u))) {
                                        bits = (bits | ((ulong)(ahead) << ((ulong)(nbits) & 63ul)));
                                        ip = (ip + 4u);
                                        nbits = (nbits + 32u);
                                        ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                                    } else {
                                        while (((uint)(((uint)(nbits <= 56u)) && ((uint)(ip < in_size))))) {
                                            bits = (bits | ((ulong)(((uint)input[(in_base + ip)])) << ((ulong)(nbits) & 63ul)));
                                            ip = (ip + 1u);
                                            nbits = (nbits + 8u);
                                        }
                                    }
                                }
                                uint clc_decode_held = (uint)(bits);
                                uint clc_decode_entry = (codes[((region + 1696u) + ((uint)(bits) & 127u))]);
                                uint clc_decode_len = (clc_decode_entry >> (16u & 31u));
                                length_symbol = (clc_decode_entry & 65535u);
                                if (((uint)(clc_decode_len <= nbits))) {
                                    bits = (bits >> ((ulong)(clc_decode_len) & 63ul));
                                    nbits = (nbits - clc_decode_len);
                                } else {
                                    if (((uint)(clc_decode_entry == 4294901760u))) {
                                        clc_decode_len = 0u;
                                        uint clc_decode_walk = 0u;
                                        uint clc_decode_first = 0u;
                                        uint clc_decode_index = 0u;
                                        uint clc_decode_l = 1u;
                                        while (((uint)(clc_decode_l <= 15u))) {
                                            clc_decode_walk = (clc_decode_walk | ((clc_decode_held >> ((clc_decode_l - 1u) & 31u)) & 1u));
                                            uint clc_decode_have = vyre_load_local_uint(codes, 7808u, ((region + 336u) + clc_decode_l));
                                            if (((uint)((clc_decode_walk - clc_decode_first) < clc_decode_have))) {
                                                length_symbol = vyre_load_local_uint(codes, 7808u, (((region + 640u) + clc_decode_index) + (clc_decode_walk - clc_decode_first)));
                                                clc_decode_len = clc_decode_l;
                                                break;
                                            }
                                            clc_decode_index = (clc_decode_index + clc_decode_have);
                                            clc_decode_first = ((clc_decode_first + clc_decode_have) << (1u & 31u));
                                            clc_decode_walk = (clc_decode_walk << (1u & 31u));
                                            clc_decode_l = (clc_decode_l + 1u);
                                        }
                                    }
                                    if (((uint)(((uint)(((uint)(clc_decode_len == 0u)) && ((uint)(nbits < 15u)))) || ((uint)(((uint)(clc_decode_len != 0u)) && ((uint)(clc_decode_len > nbits))))))) {
                                        code = 1u;
                                    } else {
                                        if (((uint)(clc_decode_len == 0u))) {
                                            code = 7u;
                                        } else {
                                            bits = (bits >> ((ulong)(clc_decode_len) & 63ul));
                                            nbits = (nbits - clc_decode_len);
                                        }
                                    }
                                    if (((uint)(code != 0u))) {
                                        break;
                                    }
                                }
                                if (((uint)(length_symbol < 16u))) {
                                    if (((uint)(lane == 0u))) {
                                        vyre_store_local_uint(codes, 7808u, ((region + 0u) + length_index), length_symbol);
                                    }
                                    previous_length = length_symbol;
                                    length_index = (length_index + 1u);
                                    continue;
                                }
                                uint repeat_value = 0u;
                                uint repeat = 0u;
                                if (((uint)(length_symbol == 16u))) {
                                    if (((uint)(length_index == 0u))) {
                                        code = 5u;
                                    } else {
                                        repeat_value = previous_length;
                                        if (((uint)(nbits <= 32u))) {
                                            if (((uint)((in_size - ip) >= 4u))) {
                                                bits = (bits | ((ulong)(ahead) << ((ulong)(nbits) & 63ul)));
                                                ip = (ip + 4u);
                                                nbits = (nbits + 32u);
                                                ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                                            } else {
                                                while (((uint)(((uint)(nbits <= 56u)) && ((uint)(ip < in_size))))) {
                                                    bits = (bits | ((ulong)(((uint)input[(in_base + ip)])) << ((ulong)(nbits) & 63ul)));
                                                    ip = (ip + 1u);
                                                    nbits = (nbits + 8u);
                                                }
                                            }
                                        }
                                        uint repeat_extra2 = 0u;
                                        if (((uint)(nbits < 2u))) {
                                            code = 1u;
                                        } else {
                                            repeat_extra2 = ((uint)(bits) & ((1u << (2u & 31u)) - 1u));
                                            bits = (bits >> (2ul & 63ul));
                                            nbits = (nbits - 2u);
                                        }
                                        repeat = (3u + repeat_extra2);
                                    }
                                } else {
                                    if (((uint)(length_symbol == 17u))) {
                                        if (((uint)(nbits <= 32u))) {
                                            if (((uint)((in_size - ip) >= 4u))) {
                                                bits = (bits | ((ulong)(ahead) << ((ulong)(nbits) & 63ul)));
                                                ip = (ip + 4u);
                                                nbits = (nbits + 32u);
                                                ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                                            } else {
                                                while (((uint)(((uint)(nbits <= 56u)) && ((uint)(ip < in_size))))) {
                                                    bits = (bits | ((ulong)(((uint)input[(in_base + ip)])) << ((ulong)(nbits) & 63ul)));
                                                    ip = (ip + 1u);
                                                    nbits = (nbits + 8u);
                                                }
                                            }
                                        }
                                        uint repeat_extra3 = 0u;
                                        if (((uint)(nbits < 3u))) {
                                            code = 1u;
                                        } else {
                                            repeat_extra3 = ((uint)(bits) & ((1u << (3u & 31u)) - 1u));
                                            bits = (bits >> (3ul & 63ul));
                                            nbits = (nbits - 3u);
                                        }
                                        repeat = (3u + repeat_extra3);
                                    } else {
                                        if (((uint)(nbits <= 32u))) {
                                            if (((uint)((in_size - ip) >= 4u))) {
                                                bits = (bits | ((ulong)(ahead) << ((ulong)(nbits) & 63ul)));
                                                ip = (ip + 4u);
                                                nbits = (nbits + 32u);
                                                ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                                            } else {
                                                while (((uint)(((uint)(nbits <= 56u)) && ((uint)(ip < in_size))))) {
                                                    bits = (bits | ((ulong)(((uint)input[(in_base + ip)])) << ((ulong)(nbits) & 63ul)));
                                                    ip = (ip + 1u);
                                                    nbits = (nbits + 8u);
                                                }
                                            }
                                        }
                                        uint repeat_extra7 = 0u;
                                        if (((uint)(nbits < 7u))) {
                                            code = 1u;
                                        } else {
                                            repeat_extra7 = ((uint)(bits) & ((1u << (7u & 31u)) - 1u));
                                            bits = (bits >> (7ul & 63ul));
                                            nbits = (nbits - 7u);
                                        }
                                        repeat = (11u + repeat_extra7);
                                    }
                                }
                                if (((uint)(code != 0u))) {
                                    break;
                                }
                                if (((uint)(repeat > (length_total - length_index)))) {
                                    code = 5u;
                                    break;
                                }
                                uint repeat_j = lane;
                                while (((uint)(repeat_j < repeat))) {
                                    vyre_store_local_uint(codes, 7808u, (((region + 0u) + length_index) + repeat_j), repeat_value);
                                    repeat_j = (repeat_j + 32u);
                                }
                                previous_length = repeat_value;
                                length_index = (length_index + repeat);
                            }
                            if (((uint)(code != 0u))) {
                                break;
                            }
                        }
                        which = (which + 1u);
                    }
                    if (((uint)(code != 0u))) {
                        break;
                    }
                    uint symbol = 0u;
                    uint distance_symbol = 0u;
                    while (1u) {
                        if (((uint)(nbits <= 32u))) {
                            if (((uint)((in_size - ip) >= 4u))) {
                                bits = (bits | ((ulong)(ahead) << ((ulong)(nbits) & 63ul)));
                                ip = (ip + 4u);
                                nbits = (nbits + 32u);
                                ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                            } else {
                                while (((uint)(((uint)(nbits <= 56u)) && ((uint)(ip < in_size))))) {
                                    bits = (bits | ((ulong)(((uint)input[(in_base + ip)])) << ((ulong)(nbits) & 63ul)));
                                    ip = (ip + 1u);
                                    nbits = (nbits + 8u);
                                }
                            }
                        }
                        uint lit_entry = (codes[((region + 672u) + ((uint)(bits) & 1023u))]);
                        while (((uint)(((uint)(((uint)((lit_entry >> (16u & 31u)) <= nbits)) && ((uint)((lit_entry & 65535u) < 256u)))) && ((uint)(op < capacity))))) {
                            output[(out_base + op)] = ((lit_entry & 65535u));
                            op = (op + 1u);
                            bits = (bits >> ((ulong)((lit_entry >> (16u & 31u))) & 63ul));
                            nbits = (nbits - (lit_entry >> (16u & 31u)));
                            if (((uint)(nbits <= 32u))) {
                                if (((uint)((in_size - ip) >= 4u))) {
                                    bits = (bits | ((ulong)(ahead) << ((ulong)(nbits) & 63ul)));
                                    ip = (ip + 4u);
                                    nbits = (nbits + 32u);
                                    ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                                } else {
                                    while (((uint)(((uint)(nbits <= 56u)) && ((uint)(ip < in_size))))) {
                                        bits = (bits | ((ulong)(((uint)input[(in_base + ip)])) << ((ulong)(nbits) & 63ul)));
                                        ip = (ip + 1u);
                                        nbits = (nbits + 8u);
                                    }
                                }
                            }
                            lit_entry = (codes[((region + 672u) + ((uint)(bits) & 1023u))]);
                        }
                        uint lit_decode_held = (uint)(bits);
                        uint lit_decode_entry = lit_entry;
                        uint lit_decode_len = (lit_decode_entry >> (16u & 31u));
                        symbol = (lit_decode_entry & 65535u);
                        if (((uint)(lit_decode_len <= nbits))) {
                            bits = (bits >> ((ulong)(lit_decode_len) & 63ul));
                            nbits = (nbits - lit_decode_len);
                        } else {
                            if (((uint)(lit_decode_entry == 4294901760u))) {
                                lit_decode_len = 0u;
                                uint lit_decode_walk = 0u;
                                uint lit_decode_first = 0u;
                                uint lit_decode_index = 0u;
                                uint lit_decode_l = 1u;
                                while (((uint)(lit_decode_l <= 15u))) {
                                    lit_decode_walk = (lit_decode_walk | ((lit_decode_held >> ((lit_decode_l - 1u) & 31u)) & 1u));
                                    uint lit_decode_have = vyre_load_local_uint(codes, 7808u, ((region + 320u) + lit_decode_l));
                                    if (((uint)((lit_decode_walk - lit_decode_first) < lit_decode_have))) {
                                        symbol = vyre_load_local_uint(codes, 7808u, (((region + 352u) + lit_decode_index) + (lit_decode_walk - lit_decode_first)));
                                        lit_decode_len = lit_decode_l;
                                        break;
                                    }
                                    lit_decode_index = (lit_decode_index + lit_decode_have);
                                    lit_decode_first = ((lit_decode_first + lit_decode_have) << (1u & 31u));
                                    lit_decode_walk = (lit_decode_walk << (1u & 31u));
                                    lit_decode_l = (lit_decode_l + 1u);
                                }
                            }
                            if (((uint)(((uint)(((uint)(lit_decode_len == 0u)) && ((uint)(nbits < 15u)))) || ((uint)(((uint)(lit_decode_len != 0u)) && ((uint)(lit_decode_len > nbits))))))) {
                                code = 1u;
                            } else {
                                if (((uint)(lit_decode_len == 0u))) {
                                    code = 7u;
                                } else {
                                    bits = (bits >> ((ulong)(lit_decode_len) & 63ul));
                                    nbits = (nbits - lit_decode_len);
                                }
                            }
                            if (((uint)(code != 0u))) {
                                break;
                            }
                        }
                        if (((uint)(symbol < 256u))) {
                            if (((uint)(op == capacity))) {
                                code = 2u;
                                break;
                            }
                            output[(out_base + op)] = (symbol);
                            op = (op + 1u);
                            continue;
                        }
                        if (((uint)(symbol == 256u))) {
                            break;
                        }
                        uint length_code = (symbol - 257u);
                        if (((uint)(length_code >= 29u))) {
                            code = 7u;
                            break;
                        }
                        uint length_bits = (((uint)(((uint)(length_code < 8u)) || ((uint)(length_code == 28u)))) ? 0u : ((length_code - 4u) >> (2u & 31u)));
                        uint length_extra = 0u;
                        if (((uint)(nbits < length_bits))) {
                            code = 1u;
                            break;
                        } else {
                            length_extra = ((uint)(bits) & ((1u << (length_bits & 31u)) - 1u));
                            bits = (bits >> ((ulong)(length_bits) & 63ul));
                            nbits = (nbits - length_bits);
                        }
                        uint match_length = ((((uint)(length_code < 8u)) ? (3u + length_code) : (((uint)(length_code == 28u)) ? 258u : (((4u + (length_code & 3u)) << (length_bits & 31u)) + 3u))) + length_extra);
                        if (((uint)(nbits <= 32u))) {
                            if (((uint)((in_size - ip) >= 4u))) {
                                bits = (bits | ((ulong)(ahead) << ((ulong)(nbits) & 63ul)));
                                ip = (ip + 4u);
                                nbits = (nbits + 32u);
                                ahead = vyre_load_u32_le_global(input, (in_base + min(ip, (in_size - 4u))));
                            } else {
                                while (((uint)(((uint)(nbits <= 56u)) && ((uint)(ip < in_size))))) {
                                    bits = (bits | ((ulong)(((uint)input[(in_base + ip)])) << ((ulong)(nbits) & 63ul)));
                                    ip = (ip + 1u);
                                    nbits = (nbits + 8u);
                                }
                            }
                        }
                        uint dist_decode_held = (uint)(bits);
                        uint dist_decode_entry = (codes[((region + 1696u) + ((uint)(bits) & 255u))]);
                        uint dist_decode_len = (dist_decode_entry >> (16u & 31u));
                        distance_symbol = (dist_decode_entry & 65535u);
                        if (((uint)(dist_decode_len <= nbits))) {
                            bits = (bits >> ((ulong)(dist_decode_len) & 63ul));
                            nbits = (nbits - dist_decode_len);
                        } else {
                            if (((uint)(dist_decode_entry == 4294901760u))) {
                                dist_decode_len = 0u;
                                uint dist_decode_walk = 0u;
                                uint dist_decode_first = 0u;
                                uint dist_decode_index = 0u;
                                uint dist_decode_l = 1u;
                                while (((uint)(dist_decode_l <= 15u))) {
                                    dist_decode_walk = (dist_decode_walk | ((dist_decode_held >> ((dist_decode_l - 1u) & 31u)) & 1u));
                                    uint dist_decode_have = vyre_load_local_uint(codes, 7808u, ((region + 336u) + dist_decode_l));
                                    if (((uint)((dist_decode_walk - dist_decode_first) < dist_decode_have))) {
                                        distance_symbol = vyre_load_local_uint(codes, 7808u, (((region + 640u) + dist_decode_index) + (dist_decode_walk - dist_decode_first)));
                                        dist_decode_len = dist_decode_l;
                                        break;
                                    }
                                    dist_decode_index = (dist_decode_index + dist_decode_have);
                                    dist_decode_first = ((dist_decode_first + dist_decode_have) << (1u & 31u));
                                    dist_decode_walk = (dist_decode_walk << (1u & 31u));
                                    dist_decode_l = (dist_decode_l + 1u);
                                }
                            }
                            if (((uint)(((uint)(((uint)(dist_decode_len == 0u)) && ((uint)(nbits < 15u)))) || ((uint)(((uint)(dist_decode_len != 0u)) && ((uint)(dist_decode_len > nbits))))))) {
                                code = 1u;
                            } else {
                                if (((uint)(dist_decode_len == 0u))) {
                                    code = 7u;
                                } else {
                                    bits = (bits >> ((ulong)(dist_decode_len) & 63ul));
                                    nbits = (nbits - dist_decode_len);
                                }
                            }
                            if (((uint)(code != 0u))) {
                                break;
                            }
                        }
                        uint bad_distance_symbol = ((uint)(distance_symbol >= 30u));
                        uint distance_bits = (((uint)(((uint)(distance_symbol < 4u)) || bad_distance_symbol)) ? 0u : ((distance_symbol >> (1u & 31u)) - 1u));
                        uint distance_extra = 0u;
                        if (((uint)(nbits < distance_bits))) {
                            code = 1u;
                            break;
                        } else {
                            distance_extra = ((uint)(bits) & ((1u << (distance_bits & 31u)) - 1u));
                            bits = (bits >> ((ulong)(distance_bits) & 63ul));
                            nbits = (nbits - distance_bits);
                        }
                        uint distance = ((((uint)(distance_symbol < 4u)) ? (1u + distance_symbol) : (((2u + (distance_symbol & 1u)) << (distance_bits & 31u)) + 1u)) + distance_extra);
                        if (((uint)(((uint)(bad_distance_symbol || ((uint)(distance > op)))) || ((uint)(match_length > (capacity - op)))))) {
                            code = (bad_distance_symbol ? 7u : (((uint)(distance > op)) ? 8u : 2u));
                            break;
                        }
                        uint match_from = (op - distance);
                        if (((uint)((match_from + min(distance, match_length)) > fenced))) {
                            vyre_sg_barrier();
                            fenced = op;
                        }
                        if (((uint)(distance >= match_length))) {
                            uint match_j = lane;
                            while (((uint)(match_j < match_length))) {
                                output[((out_base + op) + match_j)] = ((output[((out_base + match_from) + match_j)]));
                                match_j = (match_j + 32u);
                            }
                        } else {
                            uint repeat_j = lane;
                            uint repeat_j_at = 0u;
                            uint repeat_j_step = 0u;
                            if (((uint)((distance & (distance - 1u)) == 0u))) {
                                repeat_j_at = (lane & (distance - 1u));
                                repeat_j_step = (32u & (distance - 1u));
                            } else {
                                repeat_j_at = vyre_mod_uint(lane, distance);
                                repeat_j_step = vyre_mod_uint(32u, distance);
                            }
                            if (((uint)(repeat_j_step == 0u))) {
                                uint repeat_j_same = (output[((out_base + match_from) + repeat_j_at)]);
                                while (((uint)(repeat_j < match_length))) {
                                    output[((out_base + op) + repeat_j)] = (repeat_j_same);
                                    repeat_j = (min(repeat_j, 4294967263u) + 32u);
                                }
                            } else {
                                while (((uint)(repeat_j < match_length))) {
                                    uint repeat_j_byte = (output[((out_base + match_from) + repeat_j_at)]);
                                    output[((out_base + op) + repeat_j)] = (repeat_j_byte);
                                    repeat_j = (min(repeat_j, 4294967263u) + 32u);
                                    repeat_j_at = (repeat_j_at + repeat_j_step);
                                    repeat_j_at = (((uint)(repeat_j_at >= distance)) ? (repeat_j_at - distance) : repeat_j_at);
                                }
                            }
                        }
                        op = (op + match_length);
                    }
                    if (((uint)(code != 0u))) {
                        break;
                    }
                }
                end_bit = ((ip * 8u) - nbits);
                final_block = last;
            }
        }
    }
    if (((uint)(lane == 0u))) {
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 4u) + 0u), code);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 4u) + 1u), op);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 4u) + 2u), end_bit);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 4u) + 3u), final_block);
    }
}
