// vyre program "primitive_prefix_sum_tiles", lowered to OpenCL C 1.2
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
void primitive_prefix_sum_tiles(
    __global uint* data, const uint data_len,
    __global uint* tile_sums, const uint tile_sums_len,
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
    uint base = (((uint)get_group_id(0) * 2048u) + (lid * 8u));
    uint own = 0u;
    for (uint i = 0u, vyre_end0 = 8u; i < vyre_end0; ++i) {
        if (((uint)((base + i) < count))) {
            own = (own + vyre_load_global_uint(data, data_len, (base + i)));
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
    for (uint i = 0u, vyre_end0 = 8u; i < vyre_end0; ++i) {
        if (((uint)((base + i) < count))) {
            uint v = vyre_load_global_uint(data, data_len, (base + i));
            vyre_store_global_uint(data, data_len, (base + i), run);
            run = (run + v);
        }
    }
    if (((uint)(lid == 255u))) {
        vyre_store_global_uint(tile_sums, tile_sums_len, (uint)get_group_id(0), vyre_load_local_uint(part, 256u, lid));
    }
}
