// vyre program "dataflow_init", lowered to OpenCL C 1.2
static inline uint vyre_atomic_add_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_add(&b[i], v) : 0u;
}
static inline uint vyre_atomic_or_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_or(&b[i], v) : 0u;
}
static inline uint vyre_atomic_xchg_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_xchg(&b[i], v) : 0u;
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
static inline uint vyre_mod_uint(uint a, uint b) {
    return b == 0u ? 0u : a % b;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void dataflow_init(
    __global const uint* node_labels, const uint node_labels_len,
    __global const uint* edge_offsets, const uint edge_offsets_len,
    __global const uint* edge_targets, const uint edge_targets_len,
    __global const uint* edge_kinds, const uint edge_kinds_len,
    __global const uint* source_nodes, const uint source_nodes_len,
    __global uint* findings, const uint findings_len,
    __global uint* finding_count, const uint finding_count_len,
    __constant uint* params, const uint params_len,
    __global uint* visited, const uint visited_len,
    __global uint* frontier, const uint frontier_len,
    __global uint* next_list, const uint next_list_len,
    __global uint* next_count, const uint next_count_len,
    __global uint* stamps, const uint stamps_len)
{
    uint lane = (uint)get_global_id(0);
    if (((uint)(lane >= vyre_load_constant_uint(params, params_len, 0u)))) {
        return;
    }
    uint source_idx = (vyre_load_constant_uint(params, params_len, 5u) + lane);
    uint node = vyre_load_global_uint(source_nodes, source_nodes_len, source_idx);
    uint index = ((node * vyre_load_constant_uint(params, params_len, 4u)) + (lane >> (5u & 31u)));
    uint bit = (1u << ((lane & 31u) & 31u));
    uint visited_old = vyre_atomic_or_uint(visited, visited_len, index, bit);
    if (((uint)(((vyre_load_global_uint(node_labels, node_labels_len, node) >> (16u & 31u)) & 255u) == 3u))) {
        uint slot = vyre_atomic_add_uint(finding_count, finding_count_len, 0u, 1u);
        if (((uint)(slot < vyre_load_constant_uint(params, params_len, 2u)))) {
            vyre_store_global_uint(findings, findings_len, (slot * 4u), node);
            vyre_store_global_uint(findings, findings_len, ((slot * 4u) + 1u), node);
            vyre_store_global_uint(findings, findings_len, ((slot * 4u) + 2u), 0u);
            vyre_store_global_uint(findings, findings_len, ((slot * 4u) + 3u), source_idx);
        }
    }
    uint frontier_old = vyre_atomic_or_uint(frontier, frontier_len, index, bit);
    uint stamp_old = vyre_atomic_xchg_uint(stamps, stamps_len, node, 0u);
    if (((uint)(stamp_old != 0u))) {
        uint append_degree = (vyre_load_global_uint(edge_offsets, edge_offsets_len, (node + 1u)) - vyre_load_global_uint(edge_offsets, edge_offsets_len, node));
        uint append_entries = max((vyre_div_uint(append_degree, vyre_load_constant_uint(params, params_len, 14u)) + (((uint)(vyre_mod_uint(append_degree, vyre_load_constant_uint(params, params_len, 14u)) != 0u)) ? 1u : 0u)), 1u);
        uint append_at = vyre_atomic_add_uint(next_count, next_count_len, 0u, append_entries);
        uint append_edges_old = vyre_atomic_add_uint(next_count, next_count_len, 32u, append_degree);
        if (((uint)(append_entries > 1u))) {
            uint append_extra_old = vyre_atomic_add_uint(next_count, next_count_len, 1u, (append_entries - 1u));
        }
        uint entry_first = vyre_load_global_uint(edge_offsets, edge_offsets_len, node);
        uint entry_chunk = vyre_load_constant_uint(params, params_len, 14u);
        for (uint c = 0u, vyre_end0 = append_entries; c < vyre_end0; ++c) {
            vyre_store_global_uint(next_list, next_list_len, ((append_at + c) * 2u), node);
            vyre_store_global_uint(next_list, next_list_len, (((append_at + c) * 2u) + 1u), (entry_first + (c * entry_chunk)));
        }
    }
}
