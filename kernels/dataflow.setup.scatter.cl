// vyre program "dataflow_setup_scatter", lowered to OpenCL C 1.2
static inline uint vyre_atomic_add_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_add(&b[i], v) : 0u;
}
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
void dataflow_setup_scatter(
    __global const uint* offsets, const uint offsets_len,
    __global const uint* targets, const uint targets_len,
    __global const uint* kinds, const uint kinds_len,
    __constant uint* params, const uint params_len,
    __global uint* cursor, const uint cursor_len,
    __global uint* in_sources, const uint in_sources_len,
    __global uint* in_kinds, const uint in_kinds_len)
{
    uint edge = (uint)get_global_id(0);
    if (((uint)(edge < vyre_load_constant_uint(params, params_len, 1u)))) {
        uint lo = 0u;
        uint hi = vyre_load_constant_uint(params, params_len, 0u);
        while (((uint)((hi - lo) > 1u))) {
            uint mid = (lo + vyre_div_uint((hi - lo), 2u));
            if (((uint)(vyre_load_global_uint(offsets, offsets_len, mid) <= edge))) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        uint at = vyre_atomic_add_uint(cursor, cursor_len, vyre_load_global_uint(targets, targets_len, edge), 1u);
        vyre_store_global_uint(in_sources, in_sources_len, at, lo);
        if (((uint)(vyre_load_constant_uint(params, params_len, 2u) != 0u))) {
            vyre_store_global_uint(in_kinds, in_kinds_len, at, vyre_load_global_uint(kinds, kinds_len, edge));
        }
    }
}
