// vyre program "dataflow_setup_check", lowered to OpenCL C 1.2
static inline uint vyre_atomic_add_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_add(&b[i], v) : 0u;
}
static inline uint vyre_atomic_min_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_min(&b[i], v) : 0u;
}
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void dataflow_setup_check(
    __global const uint* offsets, const uint offsets_len,
    __global const uint* targets, const uint targets_len,
    __constant uint* params, const uint params_len,
    __global uint* counts, const uint counts_len,
    __global uint* bad, const uint bad_len)
{
    uint id = (uint)get_global_id(0);
    uint n = vyre_load_constant_uint(params, params_len, 0u);
    uint e = vyre_load_constant_uint(params, params_len, 1u);
    if (((uint)(id < n))) {
        uint next = vyre_load_global_uint(offsets, offsets_len, (id + 1u));
        if (((uint)(((uint)(next < vyre_load_global_uint(offsets, offsets_len, id))) || ((uint)(next > e))))) {
            uint bad_offset = vyre_atomic_min_uint(bad, bad_len, 0u, (id + 1u));
        }
    }
    if (((uint)(id < e))) {
        uint v = vyre_load_global_uint(targets, targets_len, id);
        if (((uint)(v < n))) {
            uint degree_old = vyre_atomic_add_uint(counts, counts_len, v, 1u);
        } else {
            uint bad_target = vyre_atomic_min_uint(bad, bad_len, 1u, id);
        }
    }
}
