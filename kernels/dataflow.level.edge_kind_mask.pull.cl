// vyre program "dataflow_level_edge_kind_mask_pull", lowered to OpenCL C 1.2
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
static inline uint vyre_load_local_uint(const __local uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_mod_uint(uint a, uint b) {
    return b == 0u ? 0u : a % b;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}
static inline void vyre_store_local_uint(__local uint* b, uint n, uint i, uint v) {
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
    __global uint* next_count, const uint next_count_len,
    __global uint* stamps, const uint stamps_len,
    __global const uint* pull_tasks, const uint pull_tasks_len,
    __global const uint* frontier_lanes, const uint frontier_lanes_len)
{
    __local uint group_entries[256];
    __local uint group_edges[256];
    __local uint group_offset[256];
    __local uint list_base[1];
    {
        const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
        const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
        for (uint vyre_i = vyre_lid; vyre_i < 256u; vyre_i += vyre_lsize) group_entries[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 256u; vyre_i += vyre_lsize) group_edges[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 256u; vyre_i += vyre_lsize) group_offset[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 1u; vyre_i += vyre_lsize) list_base[vyre_i] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint group_shift = vyre_load_constant_uint(params, params_len, 13u);
    uint gid = (uint)get_global_id(0);
    uint g = (gid >> (group_shift & 31u));
    uint group_lane = (gid & ((1u << (group_shift & 31u)) - 1u));
    uint local_group = ((uint)get_local_id(0) >> (group_shift & 31u));
    uint n = vyre_load_constant_uint(params, params_len, 1u);
    uint words = vyre_load_constant_uint(params, params_len, 4u);
    uint depth = vyre_load_constant_uint(params, params_len, 3u);
    uint chunk = vyre_load_constant_uint(params, params_len, 14u);
    uint heavy = ((uint)(g >= n));
    uint task = (g - n);
    uint v = (heavy ? vyre_load_global_uint(pull_tasks, pull_tasks_len, (task * 2u)) : g);
    uint in_begin = vyre_load_global_uint(in_offsets, in_offsets_len, v);
    uint in_end = vyre_load_global_uint(in_offsets, in_offsets_len, (v + 1u));
    uint first = (heavy ? vyre_load_global_uint(pull_tasks, pull_tasks_len, ((task * 2u) + 1u)) : in_begin);
    uint last = (heavy ? (first + min(chunk, (in_end - first))) : in_end);
    uint works = (heavy ? ((uint)(task < vyre_load_constant_uint(params, params_len, 15u))) : ((uint)((in_end - in_begin) <= chunk)));
    if (works) {
        uint v_label = vyre_load_global_uint(node_labels, node_labels_len, v);
        for (uint ks = 0u, vyre_end0 = (((words + (1u << (group_shift & 31u))) - 1u) >> (group_shift & 31u)); ks < vyre_end0; ++ks) {
            uint w = (group_lane + (ks << (group_shift & 31u)));
            if (((uint)(w >= words))) {
                continue;
            }
            uint i = ((v * words) + w);
            uint lanes_here = min((vyre_load_constant_uint(params, params_len, 0u) - (w * 32u)), 32u);
            uint mask = (((uint)(lanes_here == 32u)) ? 4294967295u : ((1u << (lanes_here & 31u)) - 1u));
            uint seen = vyre_load_global_uint(visited, visited_len, i);
            uint need = ((mask & vyre_load_global_uint(frontier_lanes, frontier_lanes_len, w)) & (~seen));
            if (((uint)(need == 0u))) {
                continue;
            }
            uint word_lane_base = (vyre_load_constant_uint(params, params_len, 5u) + (w * 32u));
            uint reached = 0u;
            for (uint e = first, vyre_end1 = last; e < vyre_end1; ++e) {
                uint u = vyre_load_global_uint(in_sources, in_sources_len, e);
                uint lanes = ((vyre_load_global_uint(frontier, frontier_len, ((u * words) + w)) & need) & (~reached));
                if (((uint)(lanes == 0u))) {
                    continue;
                }
                reached = (reached | (vyre_fn_dataflow_transfer(lanes, word_lane_base, u, v, vyre_load_global_uint(node_labels, node_labels_len, u), v_label, vyre_load_global_uint(in_kinds, in_kinds_len, e), vyre_load_constant_uint(params, params_len, 9u), vyre_load_constant_uint(params, params_len, 10u), vyre_load_constant_uint(params, params_len, 11u), vyre_load_constant_uint(params, params_len, 12u)) & lanes));
                if (((uint)(reached == need))) {
                    break;
                }
            }
            if (((uint)(reached == 0u))) {
                continue;
            }
            uint gained = reached;
            uint listed = 1u;
            if (heavy) {
                uint old = vyre_atomic_or_uint(visited, visited_len, i, reached);
                gained = (reached & (~old));
                if (((uint)(gained != 0u))) {
                    uint next_old = vyre_atomic_or_uint(next, next_len, i, gained);
                    uint stamp_old = vyre_atomic_xchg_uint(stamps, stamps_len, v, depth);
                    listed = (((uint)(stamp_old != depth)) ? 1u : 0u);
                }
            } else {
                vyre_store_global_uint(visited, visited_len, i, (seen | reached));
                vyre_store_global_uint(next, next_len, i, reached);
            }
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
            if (((uint)(listed != 0u))) {
                uint degree = (vyre_load_global_uint(edge_offsets, edge_offsets_len, (v + 1u)) - vyre_load_global_uint(edge_offsets, edge_offsets_len, v));
                vyre_store_local_uint(group_entries, 256u, local_group, max((vyre_div_uint(degree, chunk) + (((uint)(vyre_mod_uint(degree, chunk) != 0u)) ? 1u : 0u)), 1u));
                vyre_store_local_uint(group_edges, 256u, local_group, degree);
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (((uint)((uint)get_local_id(0) == 0u))) {
        uint total = 0u;
        uint edges = 0u;
        uint extra = 0u;
        for (uint p = 0u, vyre_end0 = (256u >> (group_shift & 31u)); p < vyre_end0; ++p) {
            uint count = vyre_load_local_uint(group_entries, 256u, p);
            vyre_store_local_uint(group_offset, 256u, p, total);
            total = (total + count);
            edges = (edges + vyre_load_local_uint(group_edges, 256u, p));
            extra = (extra + (((uint)(count > 1u)) ? (count - 1u) : 0u));
        }
        if (((uint)(total != 0u))) {
            uint list_at = vyre_atomic_add_uint(next_count, next_count_len, 0u, total);
            vyre_store_local_uint(list_base, 1u, 0u, list_at);
            uint edges_old = vyre_atomic_add_uint(next_count, next_count_len, 32u, edges);
            if (((uint)(extra != 0u))) {
                uint extra_old = vyre_atomic_add_uint(next_count, next_count_len, 1u, extra);
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (((uint)(((uint)(group_lane == 0u)) && ((uint)(vyre_load_local_uint(group_entries, 256u, local_group) != 0u))))) {
        uint entry_first = vyre_load_global_uint(edge_offsets, edge_offsets_len, v);
        uint entry_chunk = vyre_load_constant_uint(params, params_len, 14u);
        for (uint c = 0u, vyre_end0 = vyre_load_local_uint(group_entries, 256u, local_group); c < vyre_end0; ++c) {
            vyre_store_global_uint(next_list, next_list_len, (((vyre_load_local_uint(list_base, 1u, 0u) + vyre_load_local_uint(group_offset, 256u, local_group)) + c) * 2u), v);
            vyre_store_global_uint(next_list, next_list_len, ((((vyre_load_local_uint(list_base, 1u, 0u) + vyre_load_local_uint(group_offset, 256u, local_group)) + c) * 2u) + 1u), (entry_first + (c * entry_chunk)));
        }
    }
}
