// vyre program "compression_zstd_blocks_resolve", lowered to OpenCL C 1.2
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

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void compression_zstd_blocks_resolve(
    __global const uint* ranges, const uint ranges_len,
    __global uint* links, const uint links_len,
    __global uchar* output, const uint output_len,
    __global uint* unresolved, const uint unresolved_len,
    __constant uint* params, const uint params_len)
{
    uint range = (uint)get_group_id(0);
    if (((uint)(range >= vyre_load_constant_uint(params, params_len, 0u)))) {
        return;
    }
    uint first_round = ((uint)(vyre_load_constant_uint(params, params_len, 1u) != 0u));
    uint link_at = vyre_load_global_uint(ranges, ranges_len, (range * 3u));
    uint out_at = vyre_load_global_uint(ranges, ranges_len, ((range * 3u) + 1u));
    uint bytes = vyre_load_global_uint(ranges, ranges_len, ((range * 3u) + 2u));
    uint j = (uint)get_local_id(0);
    while (((uint)(j < bytes))) {
        uint i = (link_at + j);
        uint p = vyre_load_global_uint(links, links_len, i);
        if (((uint)(p != i))) {
            uint q = vyre_load_global_uint(links, links_len, p);
            uint hops = 0u;
            while (((uint)(((uint)(q != p)) && ((uint)(hops < 32u))))) {
                p = q;
                q = vyre_load_global_uint(links, links_len, p);
                hops = (hops + 1u);
            }
            if (((uint)(hops != 0u))) {
                vyre_store_global_uint(links, links_len, i, p);
            }
            if (((uint)(q != p))) {
                vyre_store_global_uint(unresolved, unresolved_len, 0u, 1u);
            } else {
                if (((uint)(((uint)(hops != 0u)) || first_round))) {
                    vyre_store_global_uchar(output, output_len, (out_at + j), vyre_load_global_uchar(output, output_len, ((out_at + p) - link_at)));
                }
            }
        }
        j = (j + 256u);
    }
}
