// vyre program "compression_zstd_blocks_execute_fast", lowered to OpenCL C 1.2, subgroups of 32 cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#ifdef cl_khr_subgroup_shuffle
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle : enable
#endif
static inline uint vyre_ctz_uint(uint x) {
    return x == 0u ? 32u : 31u - clz(x & (0u - x));
}
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uchar(const __global uchar* b, uint words, uint i) {
    return (i >> 2) < words ? (uint)b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_mod_uint(uint a, uint b) {
    return b == 0u ? 0u : a % b;
}
static inline uint vyre_sg_lane(void) { return (uint)get_sub_group_local_id(); }
#ifdef cl_khr_subgroup_shuffle
static inline uint vyre_sg_fetch(uint v, uint src) { return sub_group_shuffle(v, src); }
#else
static inline uint vyre_sg_fetch(uint v, uint src) {
    uint r = v;
    for (uint j = 0u; j < 32u; ++j) {
        const uint t = sub_group_broadcast(v, j);
        if (j == src) r = t;
    }
    return r;
}
#endif
static inline uint vyre_sg_ballot(uint p) { return sub_group_reduce_add(p != 0u ? 1u << vyre_sg_lane() : 0u); }
static inline void vyre_sg_barrier(void) { sub_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); }
static inline void vyre_store_global_uchar(__global uchar* b, uint words, uint i, uint v) {
    if ((i >> 2) < words) b[i] = (uchar)v;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void compression_zstd_blocks_execute_fast(
    __global const uchar* input, const uint input_len,
    __global const uint* blocks, const uint blocks_len,
    __global const uint* plan, const uint plan_len,
    __global const uint* records, const uint records_len,
    __global const uint* exec, const uint exec_len,
    __global const uchar* literals, const uint literals_len,
    __global uchar* output, const uint output_len,
    __global uint* links, const uint links_len,
    __global uint* verdicts, const uint verdicts_len,
    __constant uint* params, const uint params_len)
{
    uint lane = vyre_sg_lane();
    uint slot = (uint)get_sub_group_id();
    uint block = (((uint)get_group_id(0) * 4u) + slot);
    if (((uint)(block >= vyre_load_constant_uint(params, params_len, 0u)))) {
        return;
    }
    uint input_bytes = vyre_load_constant_uint(params, params_len, 1u);
    uint literal_bytes = vyre_load_constant_uint(params, params_len, 2u);
    uint output_bytes = vyre_load_constant_uint(params, params_len, 3u);
    uint history_end = vyre_load_constant_uint(params, params_len, 4u);
    uint exec_at = (block * 8u);
    uint flags = vyre_load_global_uint(exec, exec_len, exec_at);
    uint reason = 0u;
    if (((uint)((flags & 2147483648u) == 0u))) {
        uint run = (flags & 1073741823u);
        uint out_at = vyre_load_global_uint(exec, exec_len, (exec_at + 1u));
        uint op_start = vyre_load_global_uint(exec, exec_len, (exec_at + 2u));
        uint capacity = vyre_load_global_uint(exec, exec_len, (exec_at + 3u));
        uint link_at = vyre_load_global_uint(exec, exec_len, (exec_at + 4u));
        uint rep0 = vyre_load_global_uint(exec, exec_len, (exec_at + 5u));
        uint rep1 = vyre_load_global_uint(exec, exec_len, (exec_at + 6u));
        uint rep2 = vyre_load_global_uint(exec, exec_len, (exec_at + 7u));
        uint frame_out = (out_at - op_start);
        uint frame_link = (link_at - op_start);
        uint op = op_start;
        uint rec = (block * 16u);
        uint kind = vyre_load_global_uint(blocks, blocks_len, (rec + 0u));
        uint type = (kind & 3u);
        uint size = vyre_load_global_uint(blocks, blocks_len, (rec + 1u));
        uint src = vyre_load_global_uint(blocks, blocks_len, (rec + 2u));
        if (((uint)(((uint)(op_start > capacity)) || (((uint)(((uint)((frame_out + op_start) <= output_bytes)) && ((uint)((capacity - op_start) <= (output_bytes - (frame_out + op_start)))))) ^ 1u)))) {
            reason = 1u;
        } else {
            if (((uint)(type < 2u))) {
                if ((((uint)(((uint)(src <= input_bytes)) && ((uint)((((uint)(type == 0u)) ? size : 1u) <= (input_bytes - src))))) ^ 1u)) {
                    reason = 1u;
                } else {
                    if (((uint)(size > (capacity - op)))) {
                        reason = 7u;
                    } else {
                        uint plain_j = lane;
                        while (((uint)(plain_j < size))) {
                            vyre_store_global_uchar(output, output_len, ((frame_out + op) + plain_j), vyre_load_global_uchar(input, input_len, (src + (((uint)(type == 0u)) ? plain_j : 0u))));
                            vyre_store_global_uint(links, links_len, ((frame_link + op) + plain_j), ((frame_link + op) + plain_j));
                            plain_j = (min(plain_j, 4294967263u) + 32u);
                        }
                    }
                }
            } else {
                uint literals_at = vyre_load_global_uint(blocks, blocks_len, (rec + 8u));
                uint first_record = vyre_load_global_uint(plan, plan_len, (block * 2u));
                uint lit_pos = 0u;
                if ((((uint)(((uint)(literals_at <= literal_bytes)) && ((uint)(size <= (literal_bytes - literals_at))))) ^ 1u)) {
                    reason = 1u;
                }
                uint seq_i = 0u;
                while (((uint)(((uint)(reason == 0u)) && ((uint)(seq_i < run))))) {
                    uint mine = ((uint)((seq_i + lane) < run));
                    uint literal_length = 0u;
                    uint match_length = 0u;
                    uint record_slot = 0u;
                    uint record_offset = 0u;
                    if (mine) {
                        uint record_at = (((first_record + seq_i) + lane) * 4u);
                        literal_length = vyre_load_global_uint(records, records_len, record_at);
                        match_length = vyre_load_global_uint(records, records_len, (record_at + 1u));
                        record_slot = vyre_load_global_uint(records, records_len, (record_at + 2u));
                        record_offset = vyre_load_global_uint(records, records_len, (record_at + 3u));
                    }
                    uint offset = (((uint)(record_slot == 0u)) ? record_offset : ((((uint)(record_slot == 1u)) ? rep0 : (((uint)(record_slot == 2u)) ? rep1 : rep2)) - record_offset));
                    uint exact = ((uint)(((uint)(literal_length < 67108864u)) && ((uint)(match_length < 67108864u))));
                    uint inexact_lanes = vyre_sg_ballot((exact ^ 1u));
                    uint batch = min((run - seq_i), min((vyre_ctz_uint(inexact_lanes) + 1u), 32u));
                    uint start = sub_group_scan_exclusive_add((exact ? (literal_length + match_length) : 67108864u));
                    uint lit_start = sub_group_scan_exclusive_add((exact ? literal_length : 67108864u));
                    ulong at_op = ((ulong)(op) + (ulong)(start));
                    ulong at_lit = ((ulong)(lit_pos) + (ulong)(lit_start));
                    uint failure = 0u;
                    if (((uint)(lane < batch))) {
                        if (((uint)(((uint)(at_op > (ulong)(capacity))) || ((uint)(((ulong)(literal_length) + (ulong)(match_length)) > ((ulong)(capacity) - at_op)))))) {
                            failure = 7u;
                        } else {
                            if (((uint)(((uint)(offset == 0u)) || ((uint)((ulong)(offset) > (at_op + (ulong)(literal_length))))))) {
                                failure = 4u;
                            } else {
                                if (((uint)(((uint)(at_lit > (ulong)(size))) || ((uint)((ulong)(literal_length) > ((ulong)(size) - at_lit)))))) {
                                    failure = 1u;
                                }
                            }
                        }
                    }
                    uint failed_lanes = vyre_sg_ballot(((uint)(failure != 0u)));
                    uint first_failed = vyre_ctz_uint(failed_lanes);
                    uint failed_why = sub_group_broadcast(failure, (min(first_failed, 31u)) & (32u - 1u));
                    if (((uint)(first_failed < batch))) {
                        reason = failed_why;
                    }
                    uint executed = min(first_failed, batch);
                    uint last = (((uint)(executed == 0u)) ? 0u : (executed - 1u));
                    uint last_start = sub_group_broadcast(start, (last) & (32u - 1u));
                    uint last_bytes = sub_group_broadcast((literal_length + match_length), (last) & (32u - 1u));
                    uint last_lit_start = sub_group_broadcast(lit_start, (last) & (32u - 1u));
                    uint last_literals = sub_group_broadcast(literal_length, (last) & (32u - 1u));
                    uint region = (((uint)(executed == 0u)) ? 0u : (last_start + last_bytes));
                    uint key = (((uint)(lane < executed)) ? start : 4294967295u);
                    uint base = 0u;
                    while (((uint)(base < region))) {
                        uint p = (base + lane);
                        uint s = 0u;
                        uint probe16 = vyre_sg_fetch(key, ((s + 16u)) & (32u - 1u));
                        if (((uint)(probe16 <= p))) {
                            s = (s + 16u);
                        }
                        uint probe8 = vyre_sg_fetch(key, ((s + 8u)) & (32u - 1u));
                        if (((uint)(probe8 <= p))) {
                            s = (s + 8u);
                        }
                        uint probe4 = vyre_sg_fetch(key, ((s + 4u)) & (32u - 1u));
                        if (((uint)(probe4 <= p))) {
                            s = (s + 4u);
                        }
                        uint probe2 = vyre_sg_fetch(key, ((s + 2u)) & (32u - 1u));
                        if (((uint)(probe2 <= p))) {
                            s = (s + 2u);
                        }
                        uint probe1 = vyre_sg_fetch(key, ((s + 1u)) & (32u - 1u));
                        if (((uint)(probe1 <= p))) {
                            s = (s + 1u);
                        }
                        uint s_start = vyre_sg_fetch(start, (s) & (32u - 1u));
                        uint s_literals = vyre_sg_fetch(literal_length, (s) & (32u - 1u));
                        uint s_offset = vyre_sg_fetch(offset, (s) & (32u - 1u));
                        uint s_lit_start = vyre_sg_fetch(lit_start, (s) & (32u - 1u));
                        if (((uint)(p < region))) {
                            uint within = (p - s_start);
                            uint pos = (op + p);
                            if (((uint)(within < s_literals))) {
                                vyre_store_global_uchar(output, output_len, (frame_out + pos), vyre_load_global_uchar(literals, literals_len, (((literals_at + lit_pos) + s_lit_start) + within)));
                                vyre_store_global_uint(links, links_len, (frame_link + pos), (frame_link + pos));
                            } else {
                                uint t = (within - s_literals);
                                uint from_pos = (pos - s_offset);
                                if (((uint)(t >= s_offset))) {
                                    from_pos = (((pos - t) - s_offset) + vyre_mod_uint(t, s_offset));
                                }
                                uint from = (frame_out + from_pos);
                                if (((uint)(from < history_end))) {
                                    vyre_store_global_uchar(output, output_len, (frame_out + pos), vyre_load_global_uchar(output, output_len, from));
                                    vyre_store_global_uint(links, links_len, (frame_link + pos), (frame_link + pos));
                                } else {
                                    vyre_store_global_uint(links, links_len, (frame_link + pos), (frame_link + from_pos));
                                }
                            }
                        }
                        base = (min(base, 4294967263u) + 32u);
                    }
                    op = (op + region);
                    lit_pos = (lit_pos + (((uint)(executed == 0u)) ? 0u : (last_lit_start + last_literals)));
                    seq_i = (seq_i + executed);
                }
                if (((uint)(((uint)(reason == 0u)) && ((uint)((flags & 1073741824u) != 0u))))) {
                    uint rest = (size - lit_pos);
                    if (((uint)(rest > (capacity - op)))) {
                        reason = 7u;
                    } else {
                        uint rest_j = lane;
                        while (((uint)(rest_j < rest))) {
                            vyre_store_global_uchar(output, output_len, ((frame_out + op) + rest_j), vyre_load_global_uchar(literals, literals_len, ((literals_at + lit_pos) + rest_j)));
                            vyre_store_global_uint(links, links_len, ((frame_link + op) + rest_j), ((frame_link + op) + rest_j));
                            rest_j = (min(rest_j, 4294967263u) + 32u);
                        }
                    }
                }
            }
        }
    }
    if (((uint)(lane == 0u))) {
        vyre_store_global_uint(verdicts, verdicts_len, block, reason);
    }
}
