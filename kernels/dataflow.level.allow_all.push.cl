// vyre program "dataflow_level_allow_all_push", lowered to OpenCL C 1.2
static inline uint vyre_atomic_add_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_add(&b[i], v) : 0u;
}
static inline uint vyre_atomic_or_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_or(&b[i], v) : 0u;
}
static inline uint vyre_atomic_xchg_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_xchg(&b[i], v) : 0u;
}
static inline uint vyre_ctz_uint(uint x) {
    return x == 0u ? 32u : 31u - clz(x & (0u - x));
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

static inline uint vyre_fn_dataflow_transfer(uint lanes, uint lane_base, uint from, uint to, uint from_label, uint to_label, uint edge_kind, uint p0, uint p1, uint p2, uint p3) {
    return lanes;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void dataflow_level_allow_all_push(
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
    __global uint* next, const uint next_len,
    __global const uint* list, const uint list_len,
    __global uint* next_list, const uint next_list_len,
    __global uint* next_count, const uint next_count_len,
    __global uint* stamps, const uint stamps_len)
{
    uint group_shift = vyre_load_constant_uint(params, params_len, 13u);
    uint gid = (uint)get_global_id(0);
    uint j = (gid >> (group_shift & 31u));
    if (((uint)(j >= vyre_load_constant_uint(params, params_len, 7u)))) {
        return;
    }
    uint group_lane = (gid & ((1u << (group_shift & 31u)) - 1u));
    uint words = vyre_load_constant_uint(params, params_len, 4u);
    uint depth = vyre_load_constant_uint(params, params_len, 3u);
    uint u = vyre_load_global_uint(list, list_len, (j * 2u));
    uint first = vyre_load_global_uint(list, list_len, ((j * 2u) + 1u));
    uint u_end = vyre_load_global_uint(edge_offsets, edge_offsets_len, (u + 1u));
    uint last = (first + min(vyre_load_constant_uint(params, params_len, 14u), (u_end - first)));
    uint whole = ((uint)(((uint)(first == vyre_load_global_uint(edge_offsets, edge_offsets_len, u))) && ((uint)(last == u_end))));
    uint u_label = vyre_load_global_uint(node_labels, node_labels_len, u);
    for (uint ks = 0u, vyre_end0 = (((words + (1u << (group_shift & 31u))) - 1u) >> (group_shift & 31u)); ks < vyre_end0; ++ks) {
        uint w = (group_lane + (ks << (group_shift & 31u)));
        if (((uint)(w >= words))) {
            continue;
        }
        uint index = ((u * words) + w);
        uint lanes = vyre_load_global_uint(frontier, frontier_len, index);
        if (((uint)(lanes == 0u))) {
            continue;
        }
        if (whole) {
            vyre_store_global_uint(frontier, frontier_len, index, 0u);
        }
        uint word_lane_base = (vyre_load_constant_uint(params, params_len, 5u) + (w * 32u));
        for (uint e = first, vyre_end1 = last; e < vyre_end1; ++e) {
            uint v = vyre_load_global_uint(edge_targets, edge_targets_len, e);
            uint crossing = (vyre_fn_dataflow_transfer(lanes, word_lane_base, u, v, u_label, vyre_load_global_uint(node_labels, node_labels_len, v), vyre_load_global_uint(edge_kinds, edge_kinds_len, e), vyre_load_constant_uint(params, params_len, 9u), vyre_load_constant_uint(params, params_len, 10u), vyre_load_constant_uint(params, params_len, 11u), vyre_load_constant_uint(params, params_len, 12u)) & lanes);
            if (((uint)(crossing == 0u))) {
                continue;
            }
            uint vi = ((v * words) + w);
            uint fresh = (crossing & (~vyre_load_global_uint(visited, visited_len, vi)));
            if (((uint)(fresh == 0u))) {
                continue;
            }
            uint old = vyre_atomic_or_uint(visited, visited_len, vi, fresh);
            uint gained = (fresh & (~old));
            if (((uint)(gained == 0u))) {
                continue;
            }
            if (((uint)((((vyre_load_global_uint(node_labels, node_labels_len, v) >> (16u & 31u)) & 255u) | 1u) == 3u))) {
                uint slot = vyre_atomic_add_uint(finding_count, finding_count_len, 0u, popcount(gained));
                uint max_findings = vyre_load_constant_uint(params, params_len, 2u);
                uint lane_base = (vyre_load_constant_uint(params, params_len, 5u) + (w * 32u));
                uint bits = gained;
                while (((uint)(bits != 0u))) {
                    uint lane_source_idx = (lane_base + vyre_ctz_uint(bits));
                    if (((uint)(slot < max_findings))) {
                        vyre_store_global_uint(findings, findings_len, (slot * 4u), vyre_load_global_uint(source_nodes, source_nodes_len, lane_source_idx));
                        vyre_store_global_uint(findings, findings_len, ((slot * 4u) + 1u), v);
                        vyre_store_global_uint(findings, findings_len, ((slot * 4u) + 2u), depth);
                        vyre_store_global_uint(findings, findings_len, ((slot * 4u) + 3u), lane_source_idx);
                    }
                    slot = (slot + 1u);
                    bits = (bits & (bits - 1u));
                }
            }
            uint next_old = vyre_atomic_or_uint(next, next_len, vi, gained);
            if (((uint)(vyre_load_global_uint(stamps, stamps_len, v) != depth))) {
                uint stamp_old = vyre_atomic_xchg_uint(stamps, stamps_len, v, depth);
                if (((uint)(stamp_old != depth))) {
                    uint append_degree = (vyre_load_global_uint(edge_offsets, edge_offsets_len, (v + 1u)) - vyre_load_global_uint(edge_offsets, edge_offsets_len, v));
                    uint append_entries = max((vyre_div_uint(append_degree, vyre_load_constant_uint(params, params_len, 14u)) + (((uint)(vyre_mod_uint(append_degree, vyre_load_constant_uint(params, params_len, 14u)) != 0u)) ? 1u : 0u)), 1u);
                    uint append_at = vyre_atomic_add_uint(next_count, next_count_len, 0u, append_entries);
                    uint append_edges_old = vyre_atomic_add_uint(next_count, next_count_len, 32u, append_degree);
                    if (((uint)(append_entries > 1u))) {
                        uint append_extra_old = vyre_atomic_add_uint(next_count, next_count_len, 1u, (append_entries - 1u));
                    }
                    uint entry_first = vyre_load_global_uint(edge_offsets, edge_offsets_len, v);
                    uint entry_chunk = vyre_load_constant_uint(params, params_len, 14u);
                    for (uint c = 0u, vyre_end2 = append_entries; c < vyre_end2; ++c) {
                        vyre_store_global_uint(next_list, next_list_len, ((append_at + c) * 2u), v);
                        vyre_store_global_uint(next_list, next_list_len, (((append_at + c) * 2u) + 1u), (entry_first + (c * entry_chunk)));
                    }
                }
            }
        }
    }
}
