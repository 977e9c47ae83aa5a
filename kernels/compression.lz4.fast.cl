// vyre program "compression_lz4_fast", lowered to OpenCL C 1.2
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
static inline uint vyre_mod_uint(uint a, uint b) {
    return b == 0u ? 0u : a % b;
}
static inline void vyre_store_global_uchar(__global uchar* b, uint words, uint i, uint v) {
    if ((i >> 2) < words) b[i] = (uchar)v;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}
static inline void vyre_store_local_uint(__local uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(32, 1, 1)))
void compression_lz4_fast(
    __global const uchar* input, const uint input_len,
    __global const uint* descriptors, const uint descriptors_len,
    __global uchar* output, const uint output_len,
    __global uint* statuses, const uint statuses_len,
    __constant uint* params, const uint params_len)
{
    __local uint records[264];
    {
        const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
        const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
        for (uint vyre_i = vyre_lid; vyre_i < 264u; vyre_i += vyre_lsize) records[vyre_i] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint lane = (uint)get_local_id(0);
    uint block_index = (uint)get_group_id(0);
    if (((uint)(block_index >= vyre_load_constant_uint(params, params_len, 0u)))) {
        return;
    }
    uint in_base = vyre_load_global_uint(descriptors, descriptors_len, (block_index * 5u));
    uint in_size = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 1u));
    uint out_base = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 2u));
    uint capacity = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 3u));
    uint block_flags = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 4u));
    uint input_bytes = vyre_load_constant_uint(params, params_len, 1u);
    uint output_bytes = vyre_load_constant_uint(params, params_len, 2u);
    uint code = 0u;
    uint op = 0u;
    uint decoding = 0u;
    if (((uint)(((uint)(in_base > input_bytes)) || ((uint)(in_size > (input_bytes - in_base)))))) {
        code = 4u;
    } else {
        if (((uint)(((uint)(out_base > output_bytes)) || ((uint)(capacity > (output_bytes - out_base)))))) {
            code = 3u;
        } else {
            if (((uint)((block_flags & 1u) != 0u))) {
                if (((uint)(in_size > capacity))) {
                    code = 3u;
                } else {
                    uint stored_j = lane;
                    while (((uint)(stored_j < in_size))) {
                        vyre_store_global_uchar(output, output_len, (out_base + stored_j), vyre_load_global_uchar(input, input_len, (in_base + stored_j)));
                        stored_j = (stored_j + 32u);
                    }
                    op = in_size;
                }
            } else {
                decoding = (((uint)(in_size > 0u)) ? 1u : 0u);
            }
        }
    }
    uint ip = 0u;
    uint token = vyre_load_global_uchar(input, input_len, in_base);
    uint parity = 0u;
    while (((uint)(decoding != 0u))) {
        uint base = (parity * 132u);
        uint round_start = op;
        uint count = 0u;
        while (((uint)(count < 32u))) {
            ip = (ip + 1u);
            uint literal_length = (token >> (4u & 31u));
            uint match_length = ((token & 15u) + 4u);
            if (((uint)(literal_length == 15u))) {
                uint literal_extra = 255u;
                while (((uint)(literal_extra == 255u))) {
                    if (((uint)(ip == in_size))) {
                        code = 1u;
                        break;
                    }
                    literal_extra = vyre_load_global_uchar(input, input_len, (in_base + ip));
                    ip = (ip + 1u);
                    literal_length = (((uint)(literal_length > (4294967295u - literal_extra))) ? 4294967295u : (literal_length + literal_extra));
                }
            }
            if (((uint)(((uint)(code == 0u)) && ((uint)(literal_length > (in_size - ip)))))) {
                code = 4u;
            }
            if (((uint)(((uint)(code == 0u)) && ((uint)(literal_length > (capacity - op)))))) {
                code = 3u;
            }
            if (((uint)(code != 0u))) {
                decoding = 0u;
                break;
            }
            uint literal_at = (in_base + ip);
            uint after_literals = (literal_at + literal_length);
            uint offset = (vyre_load_global_uchar(input, input_len, after_literals) | (vyre_load_global_uchar(input, input_len, (after_literals + 1u)) << (8u & 31u)));
            token = vyre_load_global_uchar(input, input_len, (after_literals + 2u));
            uint literal_start = (op - round_start);
            ip = (ip + literal_length);
            op = (op + literal_length);
            if (((uint)(ip == in_size))) {
                if (((uint)(lane == 0u))) {
                    uint record_at = (base + (count * 4u));
                    vyre_store_local_uint(records, 264u, record_at, literal_start);
                    vyre_store_local_uint(records, 264u, (record_at + 1u), (op - round_start));
                    vyre_store_local_uint(records, 264u, (record_at + 2u), literal_at);
                    vyre_store_local_uint(records, 264u, (record_at + 3u), 1u);
                }
                count = (count + 1u);
                decoding = 0u;
                break;
            }
            if (((uint)((in_size - ip) < 2u))) {
                code = 1u;
                if (((uint)(lane == 0u))) {
                    uint record_at = (base + (count * 4u));
                    vyre_store_local_uint(records, 264u, record_at, literal_start);
                    vyre_store_local_uint(records, 264u, (record_at + 1u), (op - round_start));
                    vyre_store_local_uint(records, 264u, (record_at + 2u), literal_at);
                    vyre_store_local_uint(records, 264u, (record_at + 3u), 1u);
                }
                count = (count + 1u);
                decoding = 0u;
                break;
            }
            ip = (ip + 2u);
            if (((uint)(match_length == 19u))) {
                uint match_extra = 255u;
                while (((uint)(match_extra == 255u))) {
                    if (((uint)(ip == in_size))) {
                        code = 1u;
                        break;
                    }
                    match_extra = vyre_load_global_uchar(input, input_len, (in_base + ip));
                    ip = (ip + 1u);
                    match_length = (((uint)(match_length > (4294967295u - match_extra))) ? 4294967295u : (match_length + match_extra));
                }
                token = vyre_load_global_uchar(input, input_len, (in_base + ip));
            }
            if (((uint)(code != 0u))) {
                if (((uint)(lane == 0u))) {
                    uint record_at = (base + (count * 4u));
                    vyre_store_local_uint(records, 264u, record_at, literal_start);
                    vyre_store_local_uint(records, 264u, (record_at + 1u), (op - round_start));
                    vyre_store_local_uint(records, 264u, (record_at + 2u), literal_at);
                    vyre_store_local_uint(records, 264u, (record_at + 3u), 1u);
                }
                count = (count + 1u);
                decoding = 0u;
                break;
            }
            if (((uint)(((uint)(offset == 0u)) || ((uint)(offset > op))))) {
                code = 2u;
                if (((uint)(lane == 0u))) {
                    uint record_at = (base + (count * 4u));
                    vyre_store_local_uint(records, 264u, record_at, literal_start);
                    vyre_store_local_uint(records, 264u, (record_at + 1u), (op - round_start));
                    vyre_store_local_uint(records, 264u, (record_at + 2u), literal_at);
                    vyre_store_local_uint(records, 264u, (record_at + 3u), 1u);
                }
                count = (count + 1u);
                decoding = 0u;
                break;
            }
            if (((uint)(match_length > (capacity - op)))) {
                code = 5u;
                if (((uint)(lane == 0u))) {
                    uint record_at = (base + (count * 4u));
                    vyre_store_local_uint(records, 264u, record_at, literal_start);
                    vyre_store_local_uint(records, 264u, (record_at + 1u), (op - round_start));
                    vyre_store_local_uint(records, 264u, (record_at + 2u), literal_at);
                    vyre_store_local_uint(records, 264u, (record_at + 3u), 1u);
                }
                count = (count + 1u);
                decoding = 0u;
                break;
            }
            if (((uint)(lane == 0u))) {
                uint record_at = (base + (count * 4u));
                vyre_store_local_uint(records, 264u, record_at, literal_start);
                vyre_store_local_uint(records, 264u, (record_at + 1u), (op - round_start));
                vyre_store_local_uint(records, 264u, (record_at + 2u), literal_at);
                vyre_store_local_uint(records, 264u, (record_at + 3u), offset);
            }
            count = (count + 1u);
            op = (op + match_length);
            if (((uint)(ip == in_size))) {
                decoding = 0u;
                break;
            }
        }
        uint round_bytes = (op - round_start);
        if (((uint)(lane == 0u))) {
            vyre_store_local_uint(records, 264u, (base + (count * 4u)), round_bytes);
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        uint round_base = (out_base + round_start);
        uint q0 = lane;
        uint r0 = 0u;
        while (((uint)(q0 < round_bytes))) {
            while (((uint)(vyre_load_local_uint(records, 264u, (base + ((r0 + 1u) * 4u))) <= q0))) {
                r0 = (r0 + 1u);
            }
            uint q = q0;
            uint r = r0;
            uint value = 0u;
            while (1u) {
                uint rec_at = (base + (r * 4u));
                uint mstart = vyre_load_local_uint(records, 264u, (rec_at + 1u));
                if (((uint)(q < mstart))) {
                    value = vyre_load_global_uchar(input, input_len, (vyre_load_local_uint(records, 264u, (rec_at + 2u)) + (q - vyre_load_local_uint(records, 264u, rec_at))));
                    break;
                }
                uint rec_offset = vyre_load_local_uint(records, 264u, (rec_at + 3u));
                uint m = (q - mstart);
                uint back = m;
                if (((uint)(m >= rec_offset))) {
                    back = vyre_mod_uint(m, rec_offset);
                }
                if (((uint)((mstart + back) < rec_offset))) {
                    value = vyre_load_global_uchar(output, output_len, (((round_base + mstart) + back) - rec_offset));
                    break;
                }
                q = ((mstart + back) - rec_offset);
                uint lo = 0u;
                if (((uint)(((uint)((lo + 32u) <= r)) && ((uint)(vyre_load_local_uint(records, 264u, (base + ((lo + 32u) * 4u))) <= q))))) {
                    lo = (lo + 32u);
                }
                if (((uint)(((uint)((lo + 16u) <= r)) && ((uint)(vyre_load_local_uint(records, 264u, (base + ((lo + 16u) * 4u))) <= q))))) {
                    lo = (lo + 16u);
                }
                if (((uint)(((uint)((lo + 8u) <= r)) && ((uint)(vyre_load_local_uint(records, 264u, (base + ((lo + 8u) * 4u))) <= q))))) {
                    lo = (lo + 8u);
                }
                if (((uint)(((uint)((lo + 4u) <= r)) && ((uint)(vyre_load_local_uint(records, 264u, (base + ((lo + 4u) * 4u))) <= q))))) {
                    lo = (lo + 4u);
                }
                if (((uint)(((uint)((lo + 2u) <= r)) && ((uint)(vyre_load_local_uint(records, 264u, (base + ((lo + 2u) * 4u))) <= q))))) {
                    lo = (lo + 2u);
                }
                if (((uint)(((uint)((lo + 1u) <= r)) && ((uint)(vyre_load_local_uint(records, 264u, (base + ((lo + 1u) * 4u))) <= q))))) {
                    lo = (lo + 1u);
                }
                r = lo;
            }
            vyre_store_global_uchar(output, output_len, (round_base + q0), value);
            q0 = (q0 + 32u);
        }
        parity = (parity ^ 1u);
    }
    if (((uint)(lane == 0u))) {
        vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), code);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), op);
    }
}
