// vyre program "dataflow_setup_tasks", lowered to OpenCL C 1.2
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
void dataflow_setup_tasks(
    __constant uint* params, const uint params_len,
    __global uint* counts, const uint counts_len,
    __global const uint* in_offsets, const uint in_offsets_len)
{
    uint id = (uint)get_global_id(0);
    uint chunk = vyre_load_constant_uint(params, params_len, 3u);
    if (((uint)(id <= vyre_load_constant_uint(params, params_len, 0u)))) {
        uint degree = (vyre_load_global_uint(in_offsets, in_offsets_len, (id + 1u)) - vyre_load_global_uint(in_offsets, in_offsets_len, id));
        vyre_store_global_uint(counts, counts_len, id, (((uint)(((uint)(id < vyre_load_constant_uint(params, params_len, 0u))) && ((uint)(degree > chunk)))) ? (vyre_div_uint((degree - 1u), chunk) + 1u) : 0u));
    }
}
