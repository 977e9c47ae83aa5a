// vyre program "compression_lz4_pages_pack", lowered to OpenCL C 1.2
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

__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void compression_lz4_pages_pack(
    __global const uint* records, const uint records_len,
    __global const uchar* output, const uint output_len,
    __global const uint* offsets, const uint offsets_len,
    __global uchar* packed, const uint packed_len,
    __constant uint* params, const uint params_len)
{
    uint g = (uint)get_group_id(0);
    if (((uint)(g < vyre_load_constant_uint(params, params_len, 0u)))) {
        uint length = vyre_load_global_uint(records, records_len, (g * 2u));
        uint slot = (g * vyre_load_constant_uint(params, params_len, 1u));
        uint at = vyre_load_global_uint(offsets, offsets_len, g);
        uint i = (uint)get_local_id(0);
        while (((uint)(i < length))) {
            vyre_store_global_uchar(packed, packed_len, (at + i), vyre_load_global_uchar(output, output_len, (slot + i)));
            i = (i + 128u);
        }
    }
}
