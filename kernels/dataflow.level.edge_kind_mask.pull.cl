// vyre program "dataflow_level_edge_kind_mask_pull", lowered to OpenCL C 1.2
static inline uint vyre_atomic_add_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_add(&b[i], v) : 0u;
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
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

static inline uint vyre_fn_dataflow_transfer(uint lanes, uint lane_base, uint from, uint to, uint from_label, uint to_label, uint edge_kind, uint p0, uint p1, uint p2, uint p3) {
    return (((uint)(((uint)(((uint)(edge_kind < 32u)) && ((uint)(((p0 >> (edge_kind & 31u)) & 1u) != 0u)))) && (((uint)(((uint)(p1 != 0u)) && ((uint)(((from_label >> (16u & 31u)) & 255u) == 4u)))) ^ 1u))) ? lanes : 0u);
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void dataflow_level_edge_kind_mask_pull(
    __global const uint* node_labels, const uint node_labels_len,
    __global const uint* edge_offsets, const uint edge_offsets_len,
    __global const uint* edge_targets, const uint edge_targets_len,
    __global const uint* edge_kinds, const uint edge_kinds_len,
    __global const uint* source_nodes, const uint source_nodes_len,
    __global uint* findings, const uint findings_len,
    __global uint* finding_count, const uint finding_count_len,
    __constant uint* params, const uint params_len,
    __global uint* visited, const uint visited_len,
    __global const uint* frontier, const uint frontier_len,
    __global uint* next, const uint next_len,
    __global const uint* in_offsets, const uint in_offsets_len,
    __global const uint* in_sources, const uint in_sources_len,
    __global const uint* in_kinds, const uint in_kinds_len,
    __global uint* next_list, const uint next_list_len,
    __global uint* next_count, const uint next_count_len)
{
    uint i = (uint)get_global_id(0);
    if (((uint)(i >= vyre_load_constant_uint(params, params_len, 6u)))) {
        return;
    }
    uint words = vyre_load_constant_uint(params, params_len, 4u);
    uint v = vyre_div_uint(i, words);
    uint w = (i - (v * words));
    uint lanes_here = min((vyre_load_constant_uint(params, params_len, 0u) - (w * 32u)), 32u);
    uint mask = (((uint)(lanes_here == 32u)) ? 4294967295u : ((1u << (lanes_here & 31u)) - 1u));
    uint seen = vyre_load_global_uint(visited, visited_len, i);
    uint fresh = 0u;
    if (((uint)((seen & mask) != mask))) {
        uint v_label = vyre_load_global_uint(node_labels, node_labels_len, v);
        uint word_lane_base = (vyre_load_constant_uint(params, params_len, 5u) + (w * 32u));
        uint reached = 0u;
        for (uint e = vyre_load_global_uint(in_offsets, in_offsets_len, v), vyre_end0 = vyre_load_global_uint(in_offsets, in_offsets_len, (v + 1u)); e < vyre_end0; ++e) {
            uint u = vyre_load_global_uint(in_sources, in_sources_len, e);
            uint lanes = (vyre_load_global_uint(frontier, frontier_len, ((u * words) + w)) & (~(seen | reached)));
            if (((uint)(lanes == 0u))) {
                continue;
            }
            reached = (reached | (vyre_fn_dataflow_transfer(lanes, word_lane_base, u, v, vyre_load_global_uint(node_labels, node_labels_len, u), v_label, vyre_load_global_uint(in_kinds, in_kinds_len, e), vyre_load_constant_uint(params, params_len, 9u), vyre_load_constant_uint(params, params_len, 10u), vyre_load_constant_uint(params, params_len, 11u), vyre_load_constant_uint(params, params_len, 12u)) & lanes));
            if (((uint)(((reached | seen) & mask) == mask))) {
                break;
            }
        }
        fresh = (reached & mask);
    }
    if (((uint)(fresh != 0u))) {
        vyre_store_global_uint(visited, visited_len, i, (seen | fresh));
        if (((uint)((((vyre_load_global_uint(node_labels, node_labels_len, v) >> (16u & 31u)) & 255u) | 1u) == 3u))) {
            uint slot = vyre_atomic_add_uint(finding_count, finding_count_len, 0u, popcount(fresh));
            uint max_findings = vyre_load_constant_uint(params, params_len, 2u);
            uint lane_base = (vyre_load_constant_uint(params, params_len, 5u) + (w * 32u));
            uint bits = fresh;
            while (((uint)(bits != 0u))) {
                uint lane_source_idx = (lane_base + vyre_ctz_uint(bits));
                if (((uint)(slot < max_findings))) {
                    vyre_store_global_uint(findings, findings_len, (slot * 4u), vyre_load_global_uint(source_nodes, source_nodes_len, lane_source_idx));
                    vyre_store_global_uint(findings, findings_len, ((slot * 4u) + 1u), v);
                    vyre_store_global_uint(findings, findings_len, ((slot * 4u) + 2u), vyre_load_constant_uint(params, params_len, 3u));
                    vyre_store_global_uint(findings, findings_len, ((slot * 4u) + 3u), lane_source_idx);
                }
                slot = (slot + 1u);
                bits = (bits & (bits - 1u));
            }
        }
        uint at = vyre_atomic_add_uint(next_count, next_count_len, 0u, 1u);
        if (((uint)(at < vyre_load_constant_uint(params, params_len, 8u)))) {
            vyre_store_global_uint(next_list, next_list_len, at, i);
        }
    }
    vyre_store_global_uint(next, next_len, i, fresh);
}
