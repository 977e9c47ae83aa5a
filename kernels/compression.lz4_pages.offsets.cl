// vyre program "compression_lz4_pages_offsets", lowered to OpenCL C 1.2
static inline uint vyre_div_uint(uint a, uint b) {
    return b == 0u ? a : a / b;
}
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_local_uint(const __local uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}
static inline void vyre_store_local_uint(__local uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void compression_lz4_pages_offsets(
    __global const uint* records, const uint records_len,
    __global uint* offsets, const uint offsets_len,
    __constant uint* params, const uint params_len)
{
    __local uint part[256];
    {
        const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
        const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
        for (uint vyre_i = vyre_lid; vyre_i < 256u; vyre_i += vyre_lsize) part[vyre_i] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint count = vyre_load_constant_uint(params, params_len, 0u);
    uint lid = (uint)get_local_id(0);
    uint per = vyre_div_uint((count + 255u), 256u);
    uint first = (lid * per);
    uint own = 0u;
    for (uint i = 0u, vyre_end0 = per; i < vyre_end0; ++i) {
        if (((uint)((first + i) < count))) {
            own = (own + vyre_load_global_uint(records, records_len, ((first + i) * 2u)));
        }
    }
    vyre_store_local_uint(part, 256u, lid, own);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (uint s = 0u, vyre_end0 = 8u; s < vyre_end0; ++s) {
        uint add = 0u;
        if (((uint)(lid >= (1u << (s & 31u))))) {
            add = vyre_load_local_uint(part, 256u, (lid - (1u << (s & 31u))));
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        vyre_store_local_uint(part, 256u, lid, (vyre_load_local_uint(part, 256u, lid) + add));
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    }
    uint run = (vyre_load_local_uint(part, 256u, lid) - own);
    for (uint i = 0u, vyre_end0 = per; i < vyre_end0; ++i) {
        if (((uint)((first + i) < count))) {
            vyre_store_global_uint(offsets, offsets_len, (first + i), run);
            run = (run + vyre_load_global_uint(records, records_len, ((first + i) * 2u)));
        }
    }
    if (((uint)(lid == 255u))) {
        vyre_store_global_uint(offsets, offsets_len, count, vyre_load_local_uint(part, 256u, lid));
    }
}
