// vyre program "dataflow_frontier_lanes", lowered to OpenCL C 1.2
static inline uint vyre_atomic_or_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_or(&b[i], v) : 0u;
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
static inline void vyre_store_local_uint(__local uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void dataflow_frontier_lanes(
    __constant uint* params, const uint params_len,
    __global const uint* frontier, const uint frontier_len,
    __global const uint* list, const uint list_len,
    __global uint* frontier_lanes, const uint frontier_lanes_len)
{
    __local uint part[256];
    {
        const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
        const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
        for (uint vyre_i = vyre_lid; vyre_i < 256u; vyre_i += vyre_lsize) part[vyre_i] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint group_shift = vyre_load_constant_uint(params, params_len, 13u);
    uint gid = (uint)get_global_id(0);
    uint group_lane = (gid & ((1u << (group_shift & 31u)) - 1u));
    uint local_group = ((uint)get_local_id(0) >> (group_shift & 31u));
    uint groups = (vyre_load_constant_uint(params, params_len, 16u) * (256u >> (group_shift & 31u)));
    uint words = vyre_load_constant_uint(params, params_len, 4u);
    uint count = vyre_load_constant_uint(params, params_len, 7u);
    for (uint ks = 0u, vyre_end0 = (((words + (1u << (group_shift & 31u))) - 1u) >> (group_shift & 31u)); ks < vyre_end0; ++ks) {
        uint w = (group_lane + (ks << (group_shift & 31u)));
        uint acc = 0u;
        if (((uint)(w < words))) {
            uint j = (gid >> (group_shift & 31u));
            while (((uint)(j < count))) {
                acc = (acc | vyre_load_global_uint(frontier, frontier_len, ((vyre_load_global_uint(list, list_len, (j * 2u)) * words) + w)));
                j = (j + groups);
            }
        }
        vyre_store_local_uint(part, 256u, (uint)get_local_id(0), acc);
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        if (((uint)(((uint)(local_group == 0u)) && ((uint)(w < words))))) {
            for (uint p = 1u, vyre_end1 = (256u >> (group_shift & 31u)); p < vyre_end1; ++p) {
                acc = (acc | vyre_load_local_uint(part, 256u, ((p << (group_shift & 31u)) + group_lane)));
            }
            if (((uint)(acc != 0u))) {
                uint lanes_old = vyre_atomic_or_uint(frontier_lanes, frontier_lanes_len, w, acc);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    }
}
