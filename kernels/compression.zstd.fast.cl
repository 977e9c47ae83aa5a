// vyre program "compression_zstd_fast", lowered to OpenCL C 1.2
static inline uint vyre_div_uint(uint a, uint b) {
    return b == 0u ? a : a / b;
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
static inline void vyre_store_global_uchar(__global uchar* b, uint words, uint i, uint v) {
    if ((i >> 2) < words) b[i] = (uchar)v;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void compression_zstd_fast(
    __global const uchar* input, const uint input_len,
    __global const uint* descriptors, const uint descriptors_len,
    __global uchar* output, const uint output_len,
    __global uint* statuses, const uint statuses_len,
    __constant uint* params, const uint params_len)
{
    uint lid = (uint)get_local_id(0);
    uint slices = max(vyre_load_constant_uint(params, params_len, 3u), 1u);
    uint group = (uint)get_group_id(0);
    uint block_index = vyre_div_uint(group, slices);
    uint slice = vyre_mod_uint(group, slices);
    if (((uint)(block_index >= vyre_load_constant_uint(params, params_len, 0u)))) {
        return;
    }
    uint writes_status = ((uint)(((uint)(lid == 0u)) && ((uint)(slice == 0u))));
    uint in_base = vyre_load_global_uint(descriptors, descriptors_len, (block_index * 5u));
    uint in_size = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 1u));
    uint out_base = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 2u));
    uint capacity = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 3u));
    uint input_bytes = vyre_load_constant_uint(params, params_len, 1u);
    uint output_bytes = vyre_load_constant_uint(params, params_len, 2u);
    if (((uint)(((uint)(in_base > input_bytes)) || ((uint)(in_size > (input_bytes - in_base)))))) {
        if (writes_status) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 1u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
        }
        return;
    }
    uint dst = min(out_base, output_bytes);
    uint room = min(capacity, (output_bytes - dst));
    if (((uint)(in_size < 3u))) {
        if (writes_status) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 1u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
        }
        return;
    }
    uint header = ((vyre_load_global_uchar(input, input_len, in_base) | (vyre_load_global_uchar(input, input_len, (in_base + 1u)) << (8u & 31u))) | (vyre_load_global_uchar(input, input_len, (in_base + 2u)) << (16u & 31u)));
    uint block_type = ((header >> (1u & 31u)) & 3u);
    uint block_size = (header >> (3u & 31u));
    uint content_size = (in_size - 3u);
    if (((uint)(((uint)(block_type == 3u)) || ((uint)(block_size > 131072u))))) {
        if (writes_status) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 1u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
        }
        return;
    }
    if (((uint)(block_type == 1u))) {
        if (((uint)(content_size == 0u))) {
            if (writes_status) {
                vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 3u);
                vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
            }
            return;
        }
        if (((uint)(content_size != 1u))) {
            if (writes_status) {
                vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 1u);
                vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
            }
            return;
        }
    } else {
        if (((uint)(content_size != block_size))) {
            if (writes_status) {
                vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 1u);
                vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
            }
            return;
        }
    }
    if (((uint)(block_type == 2u))) {
        if (writes_status) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 4u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
        }
        return;
    }
    if (((uint)(block_size > room))) {
        if (writes_status) {
            vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 2u);
            vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), 0u);
        }
        return;
    }
    uint src = (in_base + 3u);
    uint lo = (min(slice, 8u) * 16384u);
    uint hi = (((uint)((slice + 1u) == slices)) ? block_size : min(block_size, (lo + 16384u)));
    uint at = lo;
    if (((uint)(block_type == 0u))) {
        while (((uint)(((uint)(at < hi)) && ((uint)((hi - at) >= 2048u))))) {
            uint v0 = vyre_load_global_uchar(input, input_len, (src + ((at + 0u) + lid)));
            uint v1 = vyre_load_global_uchar(input, input_len, (src + ((at + 256u) + lid)));
            uint v2 = vyre_load_global_uchar(input, input_len, (src + ((at + 512u) + lid)));
            uint v3 = vyre_load_global_uchar(input, input_len, (src + ((at + 768u) + lid)));
            uint v4 = vyre_load_global_uchar(input, input_len, (src + ((at + 1024u) + lid)));
            uint v5 = vyre_load_global_uchar(input, input_len, (src + ((at + 1280u) + lid)));
            uint v6 = vyre_load_global_uchar(input, input_len, (src + ((at + 1536u) + lid)));
            uint v7 = vyre_load_global_uchar(input, input_len, (src + ((at + 1792u) + lid)));
            vyre_store_global_uchar(output, output_len, (((dst + at) + 0u) + lid), v0);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 256u) + lid), v1);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 512u) + lid), v2);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 768u) + lid), v3);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 1024u) + lid), v4);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 1280u) + lid), v5);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 1536u) + lid), v6);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 1792u) + lid), v7);
            at = (at + 2048u);
        }
        uint tail_i = (at + lid);
        while (((uint)(tail_i < hi))) {
            vyre_store_global_uchar(output, output_len, (dst + tail_i), vyre_load_global_uchar(input, input_len, (src + tail_i)));
            tail_i = (tail_i + 256u);
        }
    } else {
        uint rle_value = vyre_load_global_uchar(input, input_len, src);
        while (((uint)(((uint)(at < hi)) && ((uint)((hi - at) >= 2048u))))) {
            uint v0 = rle_value;
            uint v1 = rle_value;
            uint v2 = rle_value;
            uint v3 = rle_value;
            uint v4 = rle_value;
            uint v5 = rle_value;
            uint v6 = rle_value;
            uint v7 = rle_value;
            vyre_store_global_uchar(output, output_len, (((dst + at) + 0u) + lid), v0);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 256u) + lid), v1);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 512u) + lid), v2);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 768u) + lid), v3);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 1024u) + lid), v4);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 1280u) + lid), v5);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 1536u) + lid), v6);
            vyre_store_global_uchar(output, output_len, (((dst + at) + 1792u) + lid), v7);
            at = (at + 2048u);
        }
        uint tail_i = (at + lid);
        while (((uint)(tail_i < hi))) {
            vyre_store_global_uchar(output, output_len, (dst + tail_i), rle_value);
            tail_i = (tail_i + 256u);
        }
    }
    if (writes_status) {
        vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), 0u);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), block_size);
    }
    return;
}
