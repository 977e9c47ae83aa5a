// vyre program "compression_zstd_blocks_resolve", lowered to OpenCL C 1.2
static inline uint vyre_atomic_add_uint(volatile __global uint* b, uint n, uint i, uint v) {
    return i < n ? atomic_add(&b[i], v) : 0u;
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
    __constant uint* params, const uint params_len,
    __global uint* list, const uint list_len)
{
    uint units = vyre_load_constant_uint(params, params_len, 0u);
    uint round_kind = vyre_load_constant_uint(params, params_len, 1u);
    uint most_hops = vyre_load_constant_uint(params, params_len, 2u);
    uint capacity = vyre_load_constant_uint(params, params_len, 3u);
    if (((uint)(round_kind == 2u))) {
        uint entry = (uint)get_global_id(0);
        if (((uint)(entry < units))) {
            uint i = vyre_load_global_uint(list, list_len, (2u * entry));
            uint delta = (vyre_load_global_uint(list, list_len, ((2u * entry) + 1u)) - i);
            uint p = vyre_load_global_uint(links, links_len, i);
            uint q = vyre_load_global_uint(links, links_len, p);
            uint hops = 0u;
            while (((uint)(((uint)(q != p)) && ((uint)(hops < most_hops))))) {
                p = q;
                q = vyre_load_global_uint(links, links_len, p);
                hops = (hops + 1u);
            }
            if (((uint)(hops != 0u))) {
                vyre_store_global_uint(links, links_len, i, p);
            }
            if (((uint)(q != p))) {
                vyre_store_global_uint(unresolved, unresolved_len, 0u, 1u);
                if (((uint)(round_kind == 1u))) {
                    uint slot = vyre_atomic_add_uint(unresolved, unresolved_len, 1u, 1u);
                    if (((uint)(slot < capacity))) {
                        vyre_store_global_uint(list, list_len, (2u * slot), i);
                        vyre_store_global_uint(list, list_len, ((2u * slot) + 1u), (i + delta));
                    }
                }
            } else {
                if (((uint)(((uint)(hops != 0u)) || ((uint)(round_kind != 0u))))) {
                    vyre_store_global_uchar(output, output_len, (i + delta), vyre_load_global_uchar(output, output_len, (p + delta)));
                }
            }
        }
    } else {
        uint range = (uint)get_group_id(0);
        if (((uint)(range < units))) {
            uint link_at = vyre_load_global_uint(ranges, ranges_len, (range * 3u));
            uint out_at = vyre_load_global_uint(ranges, ranges_len, ((range * 3u) + 1u));
            uint bytes = vyre_load_global_uint(ranges, ranges_len, ((range * 3u) + 2u));
            uint delta = (out_at - link_at);
            uint j = (uint)get_local_id(0);
            while (((uint)(j < bytes))) {
                uint valid0 = ((uint)((bytes - j) > 0u));
                uint at0 = ((link_at + j) + 0u);
                uint p0 = 0u;
                if (valid0) {
                    p0 = vyre_load_global_uint(links, links_len, at0);
                }
                uint valid1 = ((uint)((bytes - j) > 256u));
                uint at1 = ((link_at + j) + 256u);
                uint p1 = 0u;
                if (valid1) {
                    p1 = vyre_load_global_uint(links, links_len, at1);
                }
                uint valid2 = ((uint)((bytes - j) > 512u));
                uint at2 = ((link_at + j) + 512u);
                uint p2 = 0u;
                if (valid2) {
                    p2 = vyre_load_global_uint(links, links_len, at2);
                }
                uint valid3 = ((uint)((bytes - j) > 768u));
                uint at3 = ((link_at + j) + 768u);
                uint p3 = 0u;
                if (valid3) {
                    p3 = vyre_load_global_uint(links, links_len, at3);
                }
                uint q0 = p0;
                if (((uint)(valid0 && ((uint)(p0 != at0))))) {
                    q0 = vyre_load_global_uint(links, links_len, p0);
                }
                uint q1 = p1;
                if (((uint)(valid1 && ((uint)(p1 != at1))))) {
                    q1 = vyre_load_global_uint(links, links_len, p1);
                }
                uint q2 = p2;
                if (((uint)(valid2 && ((uint)(p2 != at2))))) {
                    q2 = vyre_load_global_uint(links, links_len, p2);
                }
                uint q3 = p3;
                if (((uint)(valid3 && ((uint)(p3 != at3))))) {
                    q3 = vyre_load_global_uint(links, links_len, p3);
                }
                if (((uint)(valid0 && ((uint)(p0 != at0))))) {
                    uint hops0 = 0u;
                    while (((uint)(((uint)(q0 != p0)) && ((uint)(hops0 < most_hops))))) {
                        p0 = q0;
                        q0 = vyre_load_global_uint(links, links_len, p0);
                        hops0 = (hops0 + 1u);
                    }
                    if (((uint)(hops0 != 0u))) {
                        vyre_store_global_uint(links, links_len, at0, p0);
                    }
                    if (((uint)(q0 != p0))) {
                        vyre_store_global_uint(unresolved, unresolved_len, 0u, 1u);
                        if (((uint)(round_kind == 1u))) {
                            uint slot0 = vyre_atomic_add_uint(unresolved, unresolved_len, 1u, 1u);
                            if (((uint)(slot0 < capacity))) {
                                vyre_store_global_uint(list, list_len, (2u * slot0), at0);
                                vyre_store_global_uint(list, list_len, ((2u * slot0) + 1u), (at0 + delta));
                            }
                        }
                    } else {
                        if (((uint)(((uint)(hops0 != 0u)) || ((uint)(round_kind != 0u))))) {
                            vyre_store_global_uchar(output, output_len, (at0 + delta), vyre_load_global_uchar(output, output_len, (p0 + delta)));
                        }
                    }
                }
                if (((uint)(valid1 && ((uint)(p1 != at1))))) {
                    uint hops1 = 0u;
                    while (((uint)(((uint)(q1 != p1)) && ((uint)(hops1 < most_hops))))) {
                        p1 = q1;
                        q1 = vyre_load_global_uint(links, links_len, p1);
                        hops1 = (hops1 + 1u);
                    }
                    if (((uint)(hops1 != 0u))) {
                        vyre_store_global_uint(links, links_len, at1, p1);
                    }
                    if (((uint)(q1 != p1))) {
                        vyre_store_global_uint(unresolved, unresolved_len, 0u, 1u);
                        if (((uint)(round_kind == 1u))) {
                            uint slot1 = vyre_atomic_add_uint(unresolved, unresolved_len, 1u, 1u);
                            if (((uint)(slot1 < capacity))) {
                                vyre_store_global_uint(list, list_len, (2u * slot1), at1);
                                vyre_store_global_uint(list, list_len, ((2u * slot1) + 1u), (at1 + delta));
                            }
                        }
                    } else {
                        if (((uint)(((uint)(hops1 != 0u)) || ((uint)(round_kind != 0u))))) {
                            vyre_store_global_uchar(output, output_len, (at1 + delta), vyre_load_global_uchar(output, output_len, (p1 + delta)));
                        }
                    }
                }
                if (((uint)(valid2 && ((uint)(p2 != at2))))) {
                    uint hops2 = 0u;
                    while (((uint)(((uint)(q2 != p2)) && ((uint)(hops2 < most_hops))))) {
                        p2 = q2;
                        q2 = vyre_load_global_uint(links, links_len, p2);
                        hops2 = (hops2 + 1u);
                    }
                    if (((uint)(hops2 != 0u))) {
                        vyre_store_global_uint(links, links_len, at2, p2);
                    }
                    if (((uint)(q2 != p2))) {
                        vyre_store_global_uint(unresolved, unresolved_len, 0u, 1u);
                        if (((uint)(round_kind == 1u))) {
                            uint slot2 = vyre_atomic_add_uint(unresolved, unresolved_len, 1u, 1u);
                            if (((uint)(slot2 < capacity))) {
                                vyre_store_global_uint(list, list_len, (2u * slot2), at2);
                                vyre_store_global_uint(list, list_len, ((2u * slot2) + 1u), (at2 + delta));
                            }
                        }
                    } else {
                        if (((uint)(((uint)(hops2 != 0u)) || ((uint)(round_kind != 0u))))) {
                            vyre_store_global_uchar(output, output_len, (at2 + delta), vyre_load_global_uchar(output, output_len, (p2 + delta)));
                        }
                    }
                }
                if (((uint)(valid3 && ((uint)(p3 != at3))))) {
                    uint hops3 = 0u;
                    while (((uint)(((uint)(q3 != p3)) && ((uint)(hops3 < most_hops))))) {
                        p3 = q3;
                        q3 = vyre_load_global_uint(links, links_len, p3);
                        hops3 = (hops3 + 1u);
                    }
                    if (((uint)(hops3 != 0u))) {
                        vyre_store_global_uint(links, links_len, at3, p3);
                    }
                    if (((uint)(q3 != p3))) {
                        vyre_store_global_uint(unresolved, unresolved_len, 0u, 1u);
                        if (((uint)(round_kind == 1u))) {
                            uint slot3 = vyre_atomic_add_uint(unresolved, unresolved_len, 1u, 1u);
                            if (((uint)(slot3 < capacity))) {
                                vyre_store_global_uint(list, list_len, (2u * slot3), at3);
                                vyre_store_global_uint(list, list_len, ((2u * slot3) + 1u), (at3 + delta));
                            }
                        }
                    } else {
                        if (((uint)(((uint)(hops3 != 0u)) || ((uint)(round_kind != 0u))))) {
                            vyre_store_global_uchar(output, output_len, (at3 + delta), vyre_load_global_uchar(output, output_len, (p3 + delta)));
                        }
                    }
                }
                j = (min(j, 4294966271u) + 1024u);
            }
        }
    }
}
