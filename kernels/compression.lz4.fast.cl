// vyre program "compression_lz4_fast", lowered to OpenCL C 1.2, subgroups of 32 cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#ifdef cl_khr_subgroup_shuffle
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle : enable
#endif
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
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void compression_lz4_fast(
    __global const uchar* input, const uint input_len,
    __global const uint* descriptors, const uint descriptors_len,
    __global uchar* output, const uint output_len,
    __global uint* statuses, const uint statuses_len,
    __constant uint* params, const uint params_len)
{
    uint lane = vyre_sg_lane();
    uint block_index = (((uint)get_group_id(0) * 2u) + (uint)get_sub_group_id());
    if (((uint)(block_index >= vyre_load_constant_uint(params, params_len, 0u)))) {
        return;
    }
    uint in_base = vyre_load_global_uint(descriptors, descriptors_len, (block_index * 5u));
    uint in_size = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 1u));
    uint out_base = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 2u));
    uint capacity = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 3u));
    uint block_flags = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 4u));
    uint input_bytes = vyre_load_constant_uint(params, params_len, 1u);
    uint output_bytes = vyre_load_constant_uint(params, params_len, 2u);
    uint code = 0u;
    uint op = 0u;
    uint ring_base = ((uint)get_sub_group_id() * 0u);
    uint stage_base = ((uint)get_sub_group_id() * 0u);
    if (((uint)(((uint)(in_base > input_bytes)) || ((uint)(in_size > (input_bytes - in_base)))))) {
        code = 4u;
    } else {
        if (((uint)(((uint)(out_base > output_bytes)) || ((uint)(capacity > (output_bytes - out_base)))))) {
            code = 3u;
        } else {
            if (((uint)((block_flags & 1u) != 0u))) {
                if (((uint)(in_size > capacity))) {
                    code = 3u;
                } else {
                    uint stored_j = lane;
                    while (((uint)(stored_j < in_size))) {
                        uint stored_j_byte = ((uint)input[(in_base + stored_j)]);
                        output[(((out_base + 0u) + stored_j) + 0u)] = (uchar)(stored_j_byte);
                        stored_j = (min(stored_j, 4294967263u) + 32u);
                    }
                    op = in_size;
                }
            } else {
                uint ip = 0u;
                uint last_byte = ((in_base + in_size) - 1u);
                uint fenced = 0u;
                uint stage_from = 0u;
                uint token = 0u;
                token = vyre_load_global_uchar(input, input_len, in_base);
                while (((uint)(ip < in_size))) {
                    ip = (ip + 1u);
                    uint literal_length = (token >> (4u & 31u));
                    uint match_length = ((token & 15u) + 4u);
                    if (((uint)(literal_length == 15u))) {
                        uint literal_extra = 255u;
                        while (((uint)(literal_extra == 255u))) {
                            if (((uint)(ip == in_size))) {
                                code = 1u;
                                break;
                            }
                            literal_extra = ((uint)input[(in_base + ip)]);
                            ip = (ip + 1u);
                            literal_length = (((uint)(literal_length > (4294967295u - literal_extra))) ? 4294967295u : (literal_length + literal_extra));
                        }
                    }
                    if (((uint)(((uint)(code == 0u)) && ((uint)(literal_length > (in_size - ip)))))) {
                        code = 4u;
                    }
                    if (((uint)(((uint)(code == 0u)) && ((uint)(literal_length > (capacity - op)))))) {
                        code = 3u;
                    }
                    if (((uint)(code != 0u))) {
                        break;
                    }
                    uint after_literals = (ip + literal_length);
                    uint offset = 0u;
                    offset = (((uint)input[min((in_base + after_literals), last_byte)]) | (((uint)input[min(((in_base + after_literals) + 1u), last_byte)]) << (8u & 31u)));
                    token = ((uint)input[min(((in_base + after_literals) + 2u), last_byte)]);
                    uint one_step = ((uint)(((uint)(((uint)(((uint)(((uint)(((uint)(((uint)(literal_length <= 32u)) && ((uint)(match_length <= 32u)))) && ((uint)(match_length != 19u)))) && ((uint)((in_size - after_literals) >= 2u)))) && ((uint)(offset >= match_length)))) && ((uint)(offset <= (op + literal_length))))) && ((uint)(match_length <= ((capacity - op) - literal_length)))));
                    if (one_step) {
                        uint step_literal_at = (in_base + ip);
                        uint step_from = ((op + literal_length) - offset);
                        if (((uint)(min((step_from + match_length), op) > fenced))) {
                            vyre_sg_barrier();
                            fenced = op;
                        }
                        uint step_literal = ((uint)input[min((step_literal_at + lane), last_byte)]);
                        uint step_source = (step_from + min(lane, (match_length - 1u)));
                        uint step_match = 0u;
                        if (((uint)(step_source < op))) {
                            step_match = ((uint)output[(out_base + step_source)]);
                        } else {
                            step_match = ((uint)input[min((step_literal_at + (step_source - op)), last_byte)]);
                        }
                        if (((uint)(lane < literal_length))) {
                            output[((out_base + op) + lane)] = (uchar)(step_literal);
                        }
                        if (((uint)(lane < match_length))) {
                            output[(((out_base + op) + literal_length) + lane)] = (uchar)(step_match);
                        }
                        ip = (after_literals + 2u);
                        op = ((op + literal_length) + match_length);
                        continue;
                    }
                    uint literal_at = (in_base + ip);
                    uint literal_j = lane;
                    while (((uint)(literal_j < literal_length))) {
                        uint literal_j_byte = ((uint)input[(literal_at + literal_j)]);
                        output[(((out_base + op) + literal_j) + 0u)] = (uchar)(literal_j_byte);
                        literal_j = (min(literal_j, 4294967263u) + 32u);
                    }
                    ip = after_literals;
                    op = (op + literal_length);
                    if (((uint)(ip == in_size))) {
                        break;
                    }
                    if (((uint)((in_size - ip) < 2u))) {
                        code = 1u;
                        break;
                    }
                    ip = (ip + 2u);
                    if (((uint)(match_length == 19u))) {
                        if (((uint)(((uint)(token < 255u)) && ((uint)(ip < in_size))))) {
                            match_length = (match_length + token);
                            ip = (ip + 1u);
                            token = ((uint)input[(in_base + min(ip, (in_size - 1u)))]);
                        } else {
                            uint match_extra = 255u;
                            while (((uint)(match_extra == 255u))) {
                                if (((uint)(ip == in_size))) {
                                    code = 1u;
                                    break;
                                }
                                match_extra = ((uint)input[(in_base + ip)]);
                                ip = (ip + 1u);
                                match_length = (((uint)(match_length > (4294967295u - match_extra))) ? 4294967295u : (match_length + match_extra));
                            }
                            token = ((uint)input[(in_base + min(ip, (in_size - 1u)))]);
                        }
                    }
                    if (((uint)(code != 0u))) {
                        break;
                    }
                    if (((uint)(((uint)(offset == 0u)) || ((uint)(offset > op))))) {
                        code = 2u;
                        break;
                    }
                    if (((uint)(match_length > (capacity - op)))) {
                        code = 5u;
                        break;
                    }
                    uint match_from = (op - offset);
                    if (((uint)((match_from + min(offset, match_length)) > fenced))) {
                        vyre_sg_barrier();
                        fenced = op;
                    }
                    if (((uint)(offset >= match_length))) {
                        uint match_j = lane;
                        while (((uint)(match_j < match_length))) {
                            uint match_j_byte = ((uint)output[((out_base + match_from) + match_j)]);
                            output[(((out_base + op) + match_j) + 0u)] = (uchar)(match_j_byte);
                            match_j = (min(match_j, 4294967263u) + 32u);
                        }
                    } else {
                        uint repeat_j = lane;
                        uint repeat_j_at = 0u;
                        uint repeat_j_step = 0u;
                        if (((uint)((offset & (offset - 1u)) == 0u))) {
                            repeat_j_at = (lane & (offset - 1u));
                            repeat_j_step = (32u & (offset - 1u));
                        } else {
                            repeat_j_at = vyre_mod_uint(lane, offset);
                            repeat_j_step = vyre_mod_uint(32u, offset);
                        }
                        if (((uint)(repeat_j_step == 0u))) {
                            uint repeat_j_same = ((uint)output[((out_base + match_from) + repeat_j_at)]);
                            while (((uint)(repeat_j < match_length))) {
                                output[((out_base + op) + repeat_j)] = (uchar)(repeat_j_same);
                                repeat_j = (min(repeat_j, 4294967263u) + 32u);
                            }
                        } else {
                            while (((uint)(repeat_j < match_length))) {
                                uint repeat_j_byte = ((uint)output[((out_base + match_from) + repeat_j_at)]);
                                output[((out_base + op) + repeat_j)] = (uchar)(repeat_j_byte);
                                repeat_j = (min(repeat_j, 4294967263u) + 32u);
                                repeat_j_at = (repeat_j_at + repeat_j_step);
                                repeat_j_at = (((uint)(repeat_j_at >= offset)) ? (repeat_j_at - offset) : repeat_j_at);
                            }
                        }
                    }
                    op = (op + match_length);
                }
            }
        }
    }
    if (((uint)(lane == 0u))) {
        vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), code);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), op);
    }
}
