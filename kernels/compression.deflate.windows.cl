// vyre program "compression_deflate_windows", lowered to OpenCL C 1.2
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(1024, 1, 1)))
void compression_deflate_windows(
    __global uint* elements, const uint elements_len,
    __global const uint* pieces, const uint pieces_len,
    __global const uint* statuses, const uint statuses_len,
    __constant uint* params, const uint params_len)
{
    uint piece = 1u;
    while (((uint)(piece < vyre_load_constant_uint(params, params_len, 0u)))) {
        uint base = vyre_load_global_uint(pieces, pieces_len, ((piece * 7u) + 4u));
        uint written = vyre_load_global_uint(statuses, statuses_len, ((piece * 4u) + 1u));
        uint previous = vyre_load_global_uint(pieces, pieces_len, (((piece - 1u) * 7u) + 4u));
        uint previous_written = vyre_load_global_uint(statuses, statuses_len, (((piece - 1u) * 4u) + 1u));
        uint j = ((written - min(written, 32768u)) + (uint)get_local_id(0));
        while (((uint)(j < written))) {
            uint window_value = vyre_load_global_uint(elements, elements_len, (base + j));
            if (((uint)(window_value >= 256u))) {
                uint window_at = (window_value - 256u);
                if (((uint)(((uint)(window_at < 32768u)) && ((uint)((previous_written + window_at) >= 32768u))))) {
                    window_value = vyre_load_global_uint(elements, elements_len, (((previous + previous_written) - 32768u) + window_at));
                } else {
                    window_value = 4294967295u;
                }
            }
            vyre_store_global_uint(elements, elements_len, (base + j), window_value);
            j = (j + 1024u);
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        piece = (piece + 1u);
    }
}
