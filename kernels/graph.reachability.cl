// vyre program "graph_reachability", lowered to OpenCL C 1.2
static inline uint vyre_atomic_add_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_add(&b[i], v) : 0u;
}
static inline uint vyre_atomic_or_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_or(&b[i], v) : 0u;
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

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void graph_reachability(
    __global const uint* node_labels, const uint node_labels_len,
    __global const uint* edge_offsets, const uint edge_offsets_len,
    __global const uint* edge_targets, const uint edge_targets_len,
    __global const uint* source_nodes, const uint source_nodes_len,
    __global uint* findings, const uint findings_len,
    __global uint* finding_count, const uint finding_count_len,
    __constant uint* params, const uint params_len,
    __global uint* visited_set, const uint visited_set_len,
    __global uint* queue_overflows, const uint queue_overflows_len,
    __global uint* queue, const uint queue_len)
{
    uint source_idx = (uint)get_global_id(0);
    uint num_sources = vyre_load_constant_uint(params, params_len, 0u);
    if (((uint)(source_idx >= num_sources))) {
        return;
    }
    uint max_findings = vyre_load_constant_uint(params, params_len, 2u);
    uint max_depth = vyre_load_constant_uint(params, params_len, 3u);
    uint visited_base = (source_idx * vyre_load_constant_uint(params, params_len, 4u));
    uint start = vyre_load_global_uint(source_nodes, source_nodes_len, source_idx);
    uint start_old = vyre_atomic_or_uint(visited_set, visited_set_len, (visited_base + (start >> (5u & 31u))), (1u << ((start & 31u) & 31u)));
    {
        uint slot_start = vyre_atomic_add_uint(finding_count, finding_count_len, 0u, 1u);
        if (((uint)(slot_start < max_findings))) {
            vyre_store_global_uint(findings, findings_len, (slot_start * 4u), start);
            vyre_store_global_uint(findings, findings_len, ((slot_start * 4u) + 1u), start);
            vyre_store_global_uint(findings, findings_len, ((slot_start * 4u) + 2u), 0u);
            vyre_store_global_uint(findings, findings_len, ((slot_start * 4u) + 3u), source_idx);
        }
    }
    vyre_store_global_uint(queue, queue_len, source_idx, start);
    uint level_size = 1u;
    uint queue_half = 0u;
    uint depth = 0u;
    while (((uint)(((uint)(level_size > 0u)) && ((uint)(depth < max_depth))))) {
        uint next_half = (queue_half ^ 1u);
        uint next_size = 0u;
        uint next_depth = (depth + 1u);
        for (uint i = 0u, vyre_end1 = level_size; i < vyre_end1; ++i) {
            uint u = vyre_load_global_uint(queue, queue_len, ((((queue_half * 4096u) + i) * num_sources) + source_idx));
            if (((uint)(((vyre_load_global_uint(node_labels, node_labels_len, u) >> (16u & 31u)) & 255u) == 4u))) {
                continue;
            }
            for (uint e = vyre_load_global_uint(edge_offsets, edge_offsets_len, u), vyre_end2 = vyre_load_global_uint(edge_offsets, edge_offsets_len, (u + 1u)); e < vyre_end2; ++e) {
                uint v = vyre_load_global_uint(edge_targets, edge_targets_len, e);
                uint word = (visited_base + (v >> (5u & 31u)));
                uint bit = (1u << ((v & 31u) & 31u));
                if (((uint)((vyre_load_global_uint(visited_set, visited_set_len, word) & bit) != 0u))) {
                    continue;
                }
                uint old = vyre_atomic_or_uint(visited_set, visited_set_len, word, bit);
                if (((uint)((old & bit) != 0u))) {
                    continue;
                }
                {
                    uint slot_reached = vyre_atomic_add_uint(finding_count, finding_count_len, 0u, 1u);
                    if (((uint)(slot_reached < max_findings))) {
                        vyre_store_global_uint(findings, findings_len, (slot_reached * 4u), start);
                        vyre_store_global_uint(findings, findings_len, ((slot_reached * 4u) + 1u), v);
                        vyre_store_global_uint(findings, findings_len, ((slot_reached * 4u) + 2u), next_depth);
                        vyre_store_global_uint(findings, findings_len, ((slot_reached * 4u) + 3u), source_idx);
                    }
                }
                if (((uint)(next_size < 4096u))) {
                    vyre_store_global_uint(queue, queue_len, ((((next_half * 4096u) + next_size) * num_sources) + source_idx), v);
                    next_size = (next_size + 1u);
                } else {
                    uint overflow_old = vyre_atomic_add_uint(queue_overflows, queue_overflows_len, 0u, 1u);
                }
            }
        }
        queue_half = next_half;
        level_size = next_size;
        depth = next_depth;
    }
}
