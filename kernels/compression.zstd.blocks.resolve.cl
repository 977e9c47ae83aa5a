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
        uint valid0 = ((uint)((bytes - j) > 0u));
        uint at0 = (j + 0u);
        uint p0 = 0u;
        if (valid0) {
            p0 = vyre_load_global_uint(links, links_len, (link_at + at0));
        }
        uint valid1 = ((uint)((bytes - j) > 256u));
        uint at1 = (j + 256u);
        uint p1 = 0u;
        if (valid1) {
            p1 = vyre_load_global_uint(links, links_len, (link_at + at1));
        }
        uint valid2 = ((uint)((bytes - j) > 512u));
        uint at2 = (j + 512u);
        uint p2 = 0u;
        if (valid2) {
            p2 = vyre_load_global_uint(links, links_len, (link_at + at2));
        }
        uint valid3 = ((uint)((bytes - j) > 768u));
        uint at3 = (j + 768u);
        uint p3 = 0u;
        if (valid3) {
            p3 = vyre_load_global_uint(links, links_len, (link_at + at3));
        }
        uint q0 = p0;
        if (((uint)(valid0 && ((uint)(p0 != (link_at + at0)))))) {
            q0 = vyre_load_global_uint(links, links_len, p0);
        }
        uint q1 = p1;
        if (((uint)(valid1 && ((uint)(p1 != (link_at + at1)))))) {
            q1 = vyre_load_global_uint(links, links_len, p1);
        }
        uint q2 = p2;
        if (((uint)(valid2 && ((uint)(p2 != (link_at + at2)))))) {
            q2 = vyre_load_global_uint(links, links_len, p2);
        }
        uint q3 = p3;
        if (((uint)(valid3 && ((uint)(p3 != (link_at + at3)))))) {
            q3 = vyre_load_global_uint(links, links_len, p3);
        }
        if (((uint)(valid0 && ((uint)(p0 != (link_at + at0)))))) {
            uint hops0 = 0u;
            while (((uint)(((uint)(q0 != p0)) && ((uint)(hops0 < 32u))))) {
                p0 = q0;
                q0 = vyre_load_global_uint(links, links_len, p0);
                hops0 = (hops0 + 1u);
            }
            if (((uint)(hops0 != 0u))) {
                vyre_store_global_uint(links, links_len, (link_at + at0), p0);
            }
            if (((uint)(q0 != p0))) {
                vyre_store_global_uint(unresolved, unresolved_len, 0u, 1u);
            } else {
                if (((uint)(((uint)(hops0 != 0u)) || first_round))) {
                    vyre_store_global_uchar(output, output_len, (out_at + at0), vyre_load_global_uchar(output, output_len, ((out_at + p0) - link_at)));
                }
            }
        }
        if (((uint)(valid1 && ((uint)(p1 != (link_at + at1)))))) {
            uint hops1 = 0u;
            while (((uint)(((uint)(q1 != p1)) && ((uint)(hops1 < 32u))))) {
                p1 = q1;
                q1 = vyre_load_global_uint(links, links_len, p1);
                hops1 = (hops1 + 1u);
            }
            if (((uint)(hops1 != 0u))) {
                vyre_store_global_uint(links, links_len, (link_at + at1), p1);
            }
            if (((uint)(q1 != p1))) {
                vyre_store_global_uint(unresolved, unresolved_len, 0u, 1u);
            } else {
                if (((uint)(((uint)(hops1 != 0u)) || first_round))) {
                    vyre_store_global_uchar(output, output_len, (out_at + at1), vyre_load_global_uchar(output, output_len, ((out_at + p1) - link_at)));
                }
            }
        }
        if (((uint)(valid2 && ((uint)(p2 != (link_at + at2)))))) {
            uint hops2 = 0u;
            while (((uint)(((uint)(q2 != p2)) && ((uint)(hops2 < 32u))))) {
                p2 = q2;
                q2 = vyre_load_global_uint(links, links_len, p2);
                hops2 = (hops2 + 1u);
            }
            if (((uint)(hops2 != 0u))) {
                vyre_store_global_uint(links, links_len, (link_at + at2), p2);
            }
            if (((uint)(q2 != p2))) {
                vyre_store_global_uint(unresolved, unresolved_len, 0u, 1u);
            } else {
                if (((uint)(((uint)(hops2 != 0u)) || first_round))) {
                    vyre_store_global_uchar(output, output_len, (out_at + at2), vyre_load_global_uchar(output, output_len, ((out_at + p2) - link_at)));
                }
            }
        }
        if (((uint)(valid3 && ((uint)(p3 != (link_at + at3)))))) {
            uint hops3 = 0u;
            while (((uint)(((uint)(q3 != p3)) && ((uint)(hops3 < 32u))))) {
                p3 = q3;
                q3 = vyre_load_global_uint(links, links_len, p3);
                hops3 = (hops3 + 1u);
            }
            if (((uint)(hops3 != 0u))) {
                vyre_store_global_uint(links, links_len, (link_at + at3), p3);
            }
            if (((uint)(q3 != p3))) {
                vyre_store_global_uint(unresolved, unresolved_len, 0u, 1u);
            } else {
                if (((uint)(((uint)(hops3 != 0u)) || first_round))) {
                    vyre_store_global_uchar(output, output_len, (out_at + at3), vyre_load_global_uchar(output, output_len, ((out_at + p3) - link_at)));
                }
            }
        }
        j = (min(j, 4294966271u) + 1024u);
    }
}
