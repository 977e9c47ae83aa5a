// vyre program "bytes_crc32", lowered to OpenCL C 1.2
static inline uint vyre_atomic_xor_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_xor(&b[i], v) : 0u;
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
static inline uint vyre_load_local_uint(const __local uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline void vyre_store_local_uint(__local uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void bytes_crc32(
    __global const uchar* data, const uint data_len,
    __global const uint* chunks, const uint chunks_len,
    __global const uint* ranges, const uint ranges_len,
    __global const uint* table, const uint table_len,
    __global const uint* powers, const uint powers_len,
    __global uint* crcs, const uint crcs_len,
    __constant uint* params, const uint params_len)
{
    __local uint local_table[256];
    {
        const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
        const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
        for (uint vyre_i = vyre_lid; vyre_i < 256u; vyre_i += vyre_lsize) local_table[vyre_i] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint w = (uint)get_local_id(0);
    while (((uint)(w < 256u))) {
        vyre_store_local_uint(local_table, 256u, w, vyre_load_global_uint(table, table_len, w));
        w = (w + 64u);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    uint c = (uint)get_global_id(0);
    if (((uint)(c < vyre_load_constant_uint(params, params_len, 0u)))) {
        uint range = vyre_load_global_uint(chunks, chunks_len, (c * 2u));
        uint first = vyre_load_global_uint(chunks, chunks_len, ((c * 2u) + 1u));
        uint base = vyre_load_global_uint(ranges, ranges_len, (range * 2u));
        uint size = vyre_load_global_uint(ranges, ranges_len, ((range * 2u) + 1u));
        uint end = (first + min(vyre_load_constant_uint(params, params_len, 1u), (size - first)));
        uint reg = 0u;
        uint i = first;
        while (((uint)(i < end))) {
            reg = (vyre_load_local_uint(local_table, 256u, ((reg ^ vyre_load_global_uchar(data, data_len, (base + i))) & 255u)) ^ (reg >> (8u & 31u)));
            i = (i + 1u);
        }
        uint result_after = reg;
        uint n_after = (size - end);
        uint bit_after = 0u;
        while (((uint)(n_after != 0u))) {
            if (((uint)((n_after & 1u) != 0u))) {
                uint a_after = vyre_load_global_uint(powers, powers_len, bit_after);
                uint b_after = result_after;
                uint p_after = 0u;
                for (uint i_after = 0u, vyre_end1 = 32u; i_after < vyre_end1; ++i_after) {
                    p_after = (p_after ^ (((uint)(((a_after >> ((31u - i_after) & 31u)) & 1u) != 0u)) ? b_after : 0u));
                    b_after = (((uint)((b_after & 1u) != 0u)) ? ((b_after >> (1u & 31u)) ^ 3988292384u) : (b_after >> (1u & 31u)));
                }
                result_after = p_after;
            }
            n_after = (n_after >> (1u & 31u));
            bit_after = (bit_after + 1u);
        }
        uint part = result_after;
        if (((uint)(first == 0u))) {
            uint result_init = 4294967295u;
            uint n_init = size;
            uint bit_init = 0u;
            while (((uint)(n_init != 0u))) {
                if (((uint)((n_init & 1u) != 0u))) {
                    uint a_init = vyre_load_global_uint(powers, powers_len, bit_init);
                    uint b_init = result_init;
                    uint p_init = 0u;
                    for (uint i_init = 0u, vyre_end1 = 32u; i_init < vyre_end1; ++i_init) {
                        p_init = (p_init ^ (((uint)(((a_init >> ((31u - i_init) & 31u)) & 1u) != 0u)) ? b_init : 0u));
                        b_init = (((uint)((b_init & 1u) != 0u)) ? ((b_init >> (1u & 31u)) ^ 3988292384u) : (b_init >> (1u & 31u)));
                    }
                    result_init = p_init;
                }
                n_init = (n_init >> (1u & 31u));
                bit_init = (bit_init + 1u);
            }
            part = ((part ^ result_init) ^ 4294967295u);
        }
        uint old = vyre_atomic_xor_uint(crcs, crcs_len, range, part);
    }
}
