// vyre program "primitive_prefix_sum_carry", lowered to OpenCL C 1.2
static inline uint vyre_div_uint(uint a, uint b) {
    return b == 0u ? a : a / b;
}
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void primitive_prefix_sum_carry(
    __global uint* data, const uint data_len,
    __global const uint* tile_sums, const uint tile_sums_len,
    __constant uint* params, const uint params_len)
{
    uint id = (uint)get_global_id(0);
    if (((uint)(((uint)(id < vyre_load_constant_uint(params, params_len, 0u))) && ((uint)(id >= 2048u))))) {
        vyre_store_global_uint(data, data_len, id, (vyre_load_global_uint(data, data_len, id) + vyre_load_global_uint(tile_sums, tile_sums_len, vyre_div_uint(id, 2048u))));
    }
}
