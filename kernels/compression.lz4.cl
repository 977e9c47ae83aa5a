// vyre program "compression_lz4", lowered to OpenCL C 1.2
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uchar(const __global uchar* b, uint words, uint i) {
    return (i >> 2) < words ? (uint)b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline void vyre_store_global_uchar(__global uchar* b, uint words, uint i, uint v) {
    if ((i >> 2) < words) b[i] = (uchar)v;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void compression_lz4(
    __global const uchar* input, const uint input_len,
    __global const uint* descriptors, const uint descriptors_len,
    __global uchar* output, const uint output_len,
    __global uint* statuses, const uint statuses_len,
    __constant uint* params, const uint params_len)
{
    uint block_index = (uint)get_global_id(0);
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
    if (((uint)(((uint)(in_base > input_bytes)) || ((uint)(in_size > (input_bytes - in_base)))))) {
        vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 4u);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
        return;
    }
    if (((uint)(((uint)(out_base > output_bytes)) || ((uint)(capacity > (output_bytes - out_base)))))) {
        vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 3u);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
        return;
    }
    if (((uint)((block_flags & 1u) != 0u))) {
        if (((uint)(in_size > capacity))) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 3u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
            return;
        }
        for (uint stored_i = 0u, vyre_end0 = in_size; stored_i < vyre_end0; ++stored_i) {
            vyre_store_global_uchar(output, output_len, (out_base + stored_i), vyre_load_global_uchar(input, input_len, (in_base + stored_i)));
        }
        vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 0u);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), in_size);
        return;
    }
    uint ip = 0u;
    uint op = 0u;
    while (((uint)(ip < in_size))) {
        uint token = vyre_load_global_uchar(input, input_len, (in_base + ip));
        ip = (ip + 1u);
        uint literal_length = (token >> (4u & 31u));
        if (((uint)(literal_length == 15u))) {
            uint literal_extra = 255u;
            while (((uint)(literal_extra == 255u))) {
                if (((uint)(ip == in_size))) {
                    vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 1u);
                    vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), op);
                    return;
                }
                literal_extra = vyre_load_global_uchar(input, input_len, (in_base + ip));
                ip = (ip + 1u);
                literal_length = (((uint)(literal_length > (4294967295u - literal_extra))) ? 4294967295u : (literal_length + literal_extra));
            }
        }
        if (((uint)(literal_length > (in_size - ip)))) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 4u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), op);
            return;
        }
        if (((uint)(literal_length > (capacity - op)))) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 3u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), op);
            return;
        }
        for (uint literal_i = 0u, vyre_end1 = literal_length; literal_i < vyre_end1; ++literal_i) {
            vyre_store_global_uchar(output, output_len, ((out_base + op) + literal_i), vyre_load_global_uchar(input, input_len, ((in_base + ip) + literal_i)));
        }
        ip = (ip + literal_length);
        op = (op + literal_length);
        if (((uint)(ip == in_size))) {
            break;
        }
        if (((uint)((in_size - ip) < 2u))) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 1u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), op);
            return;
        }
        uint offset = (vyre_load_global_uchar(input, input_len, (in_base + ip)) | (vyre_load_global_uchar(input, input_len, ((in_base + ip) + 1u)) << (8u & 31u)));
        ip = (ip + 2u);
        uint match_length = ((token & 15u) + 4u);
        if (((uint)(match_length == 19u))) {
            uint match_extra = 255u;
            while (((uint)(match_extra == 255u))) {
                if (((uint)(ip == in_size))) {
                    vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 1u);
                    vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), op);
                    return;
                }
                match_extra = vyre_load_global_uchar(input, input_len, (in_base + ip));
                ip = (ip + 1u);
                match_length = (((uint)(match_length > (4294967295u - match_extra))) ? 4294967295u : (match_length + match_extra));
            }
        }
        if (((uint)(((uint)(offset == 0u)) || ((uint)(offset > op))))) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 2u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), op);
            return;
        }
        if (((uint)(match_length > (capacity - op)))) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 5u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), op);
            return;
        }
        for (uint match_i = 0u, vyre_end1 = match_length; match_i < vyre_end1; ++match_i) {
            vyre_store_global_uchar(output, output_len, ((out_base + op) + match_i), vyre_load_global_uchar(output, output_len, (((out_base + op) - offset) + match_i)));
        }
        op = (op + match_length);
    }
    vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 0u);
    vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), op);
    return;
}
