// vyre program "bytes_heads", lowered to OpenCL C 1.2
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
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void bytes_heads(
    __global const uchar* data, const uint data_len,
    __global const uint* ranges, const uint ranges_len,
    __global uint* heads, const uint heads_len,
    __constant uint* params, const uint params_len)
{
    uint id = (uint)get_global_id(0);
    uint range = vyre_div_uint(id, vyre_load_constant_uint(params, params_len, 1u));
    if (((uint)(range < vyre_load_constant_uint(params, params_len, 0u)))) {
        uint at = ((id - (range * vyre_load_constant_uint(params, params_len, 1u))) * 4u);
        uint base = vyre_load_global_uint(ranges, ranges_len, (range * 2u));
        uint size = vyre_load_global_uint(ranges, ranges_len, ((range * 2u) + 1u));
        uint word = 0u;
        for (uint b = 0u, vyre_end0 = 4u; b < vyre_end0; ++b) {
            if (((uint)((at + b) < size))) {
                word = (word | (vyre_load_global_uchar(data, data_len, ((base + at) + b)) << ((b * 8u) & 31u)));
            }
        }
        vyre_store_global_uint(heads, heads_len, id, word);
    }
}
