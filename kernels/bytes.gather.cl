// vyre program "bytes_gather", lowered to OpenCL C 1.2
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uchar(const __global uchar* b, uint words, uint i) {
    return (i >> 2) < words ? (uint)b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void bytes_gather(
    __global const uchar* data, const uint data_len,
    __global const uint* ranges, const uint ranges_len,
    __global uint* packed, const uint packed_len,
    __constant uint* params, const uint params_len)
{
    uint range = (uint)get_group_id(0);
    if (((uint)(range < vyre_load_constant_uint(params, params_len, 0u)))) {
        uint base = vyre_load_global_uint(ranges, ranges_len, (range * 3u));
        uint size = vyre_load_global_uint(ranges, ranges_len, ((range * 3u) + 1u));
        uint first = vyre_load_global_uint(ranges, ranges_len, ((range * 3u) + 2u));
        uint w = (uint)get_local_id(0);
        while (((uint)((w * 4u) < size))) {
            uint at = (w * 4u);
            uint word = 0u;
            for (uint b = 0u, vyre_end1 = 4u; b < vyre_end1; ++b) {
                if (((uint)((at + b) < size))) {
                    word = (word | (vyre_load_global_uchar(data, data_len, ((base + at) + b)) << ((b * 8u) & 31u)));
                }
            }
            vyre_store_global_uint(packed, packed_len, (first + w), word);
            w = (w + 128u);
        }
    }
}
