// vyre program "compression_zstd", lowered to OpenCL C 1.2
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
void compression_zstd(
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
    uint input_bytes = vyre_load_constant_uint(params, params_len, 1u);
    uint output_bytes = vyre_load_constant_uint(params, params_len, 2u);
    if (((uint)(((uint)(in_base > input_bytes)) || ((uint)(in_size > (input_bytes - in_base)))))) {
        vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 1u);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
        return;
    }
    uint dst = min(out_base, output_bytes);
    uint room = min(capacity, (output_bytes - dst));
    if (((uint)(in_size < 3u))) {
        vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 1u);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
        return;
    }
    uint header = ((vyre_load_global_uchar(input, input_len, in_base) | (vyre_load_global_uchar(input, input_len, (in_base + 1u)) << (8u & 31u))) | (vyre_load_global_uchar(input, input_len, (in_base + 2u)) << (16u & 31u)));
    uint block_type = ((header >> (1u & 31u)) & 3u);
    uint block_size = (header >> (3u & 31u));
    uint content_size = (in_size - 3u);
    if (((uint)(((uint)(block_type == 3u)) || ((uint)(block_size > 131072u))))) {
        vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 1u);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
        return;
    }
    if (((uint)(block_type == 1u))) {
        if (((uint)(content_size == 0u))) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 3u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
            return;
        }
        if (((uint)(content_size != 1u))) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 1u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
            return;
        }
    } else {
        if (((uint)(content_size != block_size))) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 1u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
            return;
        }
    }
    if (((uint)(block_type == 2u))) {
        vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 4u);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
        return;
    }
    if (((uint)(block_size > room))) {
        vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 2u);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
        return;
    }
    uint src = (in_base + 3u);
    if (((uint)(block_type == 0u))) {
        for (uint raw_i = 0u, vyre_end0 = block_size; raw_i < vyre_end0; ++raw_i) {
            vyre_store_global_uchar(output, output_len, (dst + raw_i), vyre_load_global_uchar(input, input_len, (src + raw_i)));
        }
    } else {
        uint rle_value = vyre_load_global_uchar(input, input_len, src);
        for (uint rle_i = 0u, vyre_end0 = block_size; rle_i < vyre_end0; ++rle_i) {
            vyre_store_global_uchar(output, output_len, (dst + rle_i), rle_value);
        }
    }
    vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 0u);
    vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), block_size);
    return;
}
