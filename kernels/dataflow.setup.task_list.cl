// vyre program "dataflow_setup_task_list", lowered to OpenCL C 1.2
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
void dataflow_setup_task_list(
    __constant uint* params, const uint params_len,
    __global const uint* counts, const uint counts_len,
    __global const uint* in_offsets, const uint in_offsets_len,
    __global uint* pull_tasks, const uint pull_tasks_len)
{
    uint id = (uint)get_global_id(0);
    uint chunk = vyre_load_constant_uint(params, params_len, 3u);
    if (((uint)(id < vyre_load_constant_uint(params, params_len, 0u)))) {
        uint begin = vyre_load_global_uint(in_offsets, in_offsets_len, id);
        uint end = vyre_load_global_uint(in_offsets, in_offsets_len, (id + 1u));
        if (((uint)((end - begin) > chunk))) {
            uint at = (vyre_load_global_uint(counts, counts_len, id) * 2u);
            uint first = begin;
            while (((uint)(first < end))) {
                vyre_store_global_uint(pull_tasks, pull_tasks_len, at, id);
                vyre_store_global_uint(pull_tasks, pull_tasks_len, (at + 1u), first);
                at = (at + 2u);
                first = (first + (((uint)((end - first) > chunk)) ? chunk : (end - first)));
            }
        }
    }
}
