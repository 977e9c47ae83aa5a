// vyre program "compression_lz4_pages", lowered to OpenCL C 1.2
static inline uint vyre_ctz_uint(uint x) {
    return x == 0u ? 32u : 31u - clz(x & (0u - x));
}
static inline uint vyre_div_uint(uint a, uint b) {
    return b == 0u ? a : a / b;
}
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_local_uint(const __local uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline void vyre_store_global_uchar(__global uchar* b, uint words, uint i, uint v) {
    if ((i >> 2) < words) b[i] = (uchar)v;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}
static inline void vyre_store_local_uint(__local uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void compression_lz4_pages(
    __global const uint* pages, const uint pages_len,
    __global uchar* output, const uint output_len,
    __global uint* records, const uint records_len,
    __constant uint* params, const uint params_len)
{
    __local uint page[1024];
    __local uint keys[4096];
    __local uint found[4096];
    __local uint starts[128];
    __local uint meta[4];
    {
        const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
        const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
        for (uint vyre_i = vyre_lid; vyre_i < 1024u; vyre_i += vyre_lsize) page[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 4096u; vyre_i += vyre_lsize) keys[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 4096u; vyre_i += vyre_lsize) found[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 128u; vyre_i += vyre_lsize) starts[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 4u; vyre_i += vyre_lsize) meta[vyre_i] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint lid = (uint)get_local_id(0);
    uint page_index = (uint)get_group_id(0);
    if (((uint)(page_index >= vyre_load_constant_uint(params, params_len, 0u)))) {
        return;
    }
    uint in_base = (page_index * 1024u);
    uint slot = (page_index * 4096u);
    uint first_word = vyre_load_global_uint(pages, pages_len, in_base);
    uint fill_word = ((first_word & 255u) * 16843009u);
    uint differs = 0u;
    for (uint load_t = 0u, vyre_end0 = 8u; load_t < vyre_end0; ++load_t) {
        uint load_i = ((load_t * 128u) + lid);
        uint load_v = vyre_load_global_uint(pages, pages_len, (in_base + load_i));
        vyre_store_local_uint(page, 1024u, load_i, load_v);
        differs = (differs | (load_v ^ fill_word));
    }
    if (((uint)(differs != 0u))) {
        vyre_store_local_uint(meta, 4u, 0u, 1u);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (((uint)(vyre_load_local_uint(meta, 4u, 0u) == 0u))) {
        if (((uint)(lid == 0u))) {
            vyre_store_global_uint(records, records_len, (page_index * 2u), 0u);
            vyre_store_global_uint(records, records_len, ((page_index * 2u) + 1u), (2u | ((first_word & 255u) << (8u & 31u))));
        }
        return;
    }
    for (uint key_t = 0u, vyre_end0 = 32u; key_t < vyre_end0; ++key_t) {
        uint key_p = ((key_t * 128u) + lid);
        uint key_s_sh = ((key_p & 3u) << (3u & 31u));
        uint key_s_lo = vyre_load_local_uint(page, 1024u, (key_p >> (2u & 31u)));
        uint key_s_hi = vyre_load_local_uint(page, 1024u, ((key_p >> (2u & 31u)) + 1u));
        uint key_s = (((uint)(key_s_sh == 0u)) ? key_s_lo : ((key_s_lo >> (key_s_sh & 31u)) | (key_s_hi << ((32u - key_s_sh) & 31u))));
        vyre_store_local_uint(keys, 4096u, key_p, ((((key_s * 2654435761u) >> (12u & 31u)) << (12u & 31u)) | key_p));
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (uint sort_k = 1u, vyre_end0 = 13u; sort_k < vyre_end0; ++sort_k) {
        for (uint sort_j = 0u, vyre_end1 = sort_k; sort_j < vyre_end1; ++sort_j) {
            uint sort_jb = ((sort_k - 1u) - sort_j);
            uint sort_jmask = ((1u << (sort_jb & 31u)) - 1u);
            for (uint sort_t = 0u, vyre_end2 = 16u; sort_t < vyre_end2; ++sort_t) {
                uint sort_idx = ((sort_t * 128u) + lid);
                uint sort_lo = (((sort_idx >> (sort_jb & 31u)) << ((sort_jb + 1u) & 31u)) | (sort_idx & sort_jmask));
                uint sort_hi = (sort_lo + (1u << (sort_jb & 31u)));
                uint sort_a = vyre_load_local_uint(keys, 4096u, sort_lo);
                uint sort_b = vyre_load_local_uint(keys, 4096u, sort_hi);
                uint sort_up = ((uint)(((sort_lo >> (sort_k & 31u)) & 1u) == 0u));
                vyre_store_local_uint(keys, 4096u, sort_lo, (sort_up ? min(sort_a, sort_b) : max(sort_a, sort_b)));
                vyre_store_local_uint(keys, 4096u, sort_hi, (sort_up ? max(sort_a, sort_b) : min(sort_a, sort_b)));
            }
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        }
    }
    for (uint cand_t = 0u, vyre_end0 = 32u; cand_t < vyre_end0; ++cand_t) {
        uint cand_s = ((cand_t * 128u) + lid);
        uint cand_key = vyre_load_local_uint(keys, 4096u, cand_s);
        uint cand_before = vyre_load_local_uint(keys, 4096u, (cand_s - 1u));
        uint cand_same = ((uint)(((uint)(cand_s > 0u)) && ((uint)((cand_before >> (12u & 31u)) == (cand_key >> (12u & 31u))))));
        vyre_store_local_uint(found, 4096u, (cand_key & 4095u), (cand_same ? ((cand_before & 4095u) + 1u) : 0u));
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (uint len_t = 0u, vyre_end0 = 32u; len_t < vyre_end0; ++len_t) {
        uint len_p = ((len_t * 128u) + lid);
        uint len_f = vyre_load_local_uint(found, 4096u, len_p);
        uint len = 0u;
        if (((uint)(((uint)(len_f != 0u)) && ((uint)(len_p < 4091u))))) {
            uint len_c = (len_f - 1u);
            uint len_limit = min(64u, (4091u - len_p));
            while (((uint)(len < len_limit))) {
                uint len_x_sh = (((len_p + len) & 3u) << (3u & 31u));
                uint len_x_lo = vyre_load_local_uint(page, 1024u, ((len_p + len) >> (2u & 31u)));
                uint len_x_hi = vyre_load_local_uint(page, 1024u, (((len_p + len) >> (2u & 31u)) + 1u));
                uint len_x = (((uint)(len_x_sh == 0u)) ? len_x_lo : ((len_x_lo >> (len_x_sh & 31u)) | (len_x_hi << ((32u - len_x_sh) & 31u))));
                uint len_y_sh = (((len_c + len) & 3u) << (3u & 31u));
                uint len_y_lo = vyre_load_local_uint(page, 1024u, ((len_c + len) >> (2u & 31u)));
                uint len_y_hi = vyre_load_local_uint(page, 1024u, (((len_c + len) >> (2u & 31u)) + 1u));
                uint len_y = (((uint)(len_y_sh == 0u)) ? len_y_lo : ((len_y_lo >> (len_y_sh & 31u)) | (len_y_hi << ((32u - len_y_sh) & 31u))));
                uint len_diff = (len_x ^ len_y);
                if (((uint)(len_diff != 0u))) {
                    len = (len + (vyre_ctz_uint(len_diff) >> (3u & 31u)));
                    break;
                }
                len = (len + 4u);
            }
            len = min(len, len_limit);
        }
        vyre_store_local_uint(found, 4096u, len_p, ((len << (16u & 31u)) | len_f));
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (uint bits_t = 0u, vyre_end0 = 1u; bits_t < vyre_end0; ++bits_t) {
        uint bits_w = ((bits_t * 128u) + lid);
        if (((uint)(bits_w < 128u))) {
            uint bits = 0u;
            for (uint bits_b = 0u, vyre_end1 = 32u; bits_b < vyre_end1; ++bits_b) {
                uint bits_bit = ((bits_b + bits_w) & 31u);
                uint bits_p = ((bits_w * 32u) + bits_bit);
                if (((uint)(((uint)(bits_p <= 4084u)) && ((uint)((vyre_load_local_uint(found, 4096u, bits_p) >> (16u & 31u)) >= 4u))))) {
                    bits = (bits | (1u << (bits_bit & 31u)));
                }
            }
            vyre_store_local_uint(starts, 128u, bits_w, bits);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (((uint)(lid == 0u))) {
        uint anchor = 0u;
        uint pos = 0u;
        uint size = 0u;
        uint count = 0u;
        while (((uint)(size < 4096u))) {
            uint q = 4096u;
            uint walk_w = (pos >> (5u & 31u));
            uint walk_m = 0u;
            if (((uint)(walk_w < 128u))) {
                walk_m = (vyre_load_local_uint(starts, 128u, walk_w) & (4294967295u << ((pos & 31u) & 31u)));
            }
            while (((uint)(walk_w < 128u))) {
                if (((uint)(walk_m != 0u))) {
                    q = ((walk_w << (5u & 31u)) + vyre_ctz_uint(walk_m));
                    break;
                }
                walk_w = (walk_w + 1u);
                walk_m = vyre_load_local_uint(starts, 128u, walk_w);
            }
            if (((uint)(q >= 4096u))) {
                break;
            }
            uint walk_e = vyre_load_local_uint(found, 4096u, q);
            uint walk_c = ((walk_e & 65535u) - 1u);
            uint walk_len = (walk_e >> (16u & 31u));
            uint walk_off = (q - walk_c);
            if (((uint)(walk_len == 64u))) {
                uint ext_x = (q + walk_len);
                while (1u) {
                    uint ext_e = vyre_load_local_uint(found, 4096u, ext_x);
                    if (((uint)(((uint)(((uint)(ext_x < 4091u)) && ((uint)((ext_e & 65535u) != 0u)))) && ((uint)((ext_x - ((ext_e & 65535u) - 1u)) == walk_off))))) {
                        uint ext_more = (ext_e >> (16u & 31u));
                        walk_len = (walk_len + ext_more);
                        ext_x = (ext_x + ext_more);
                        if (((uint)(ext_more < 64u))) {
                            break;
                        }
                    } else {
                        while (((uint)(((uint)(ext_x < 4091u)) && ((uint)(((vyre_load_local_uint(page, 1024u, (ext_x >> (2u & 31u))) >> (((ext_x & 3u) << (3u & 31u)) & 31u)) & 255u) == ((vyre_load_local_uint(page, 1024u, ((ext_x - walk_off) >> (2u & 31u))) >> ((((ext_x - walk_off) & 3u) << (3u & 31u)) & 31u)) & 255u)))))) {
                            ext_x = (ext_x + 1u);
                            walk_len = (walk_len + 1u);
                        }
                        break;
                    }
                }
            }
            while (((uint)(((uint)(((uint)(q > anchor)) && ((uint)(walk_c > 0u)))) && ((uint)(((vyre_load_local_uint(page, 1024u, ((q - 1u) >> (2u & 31u))) >> ((((q - 1u) & 3u) << (3u & 31u)) & 31u)) & 255u) == ((vyre_load_local_uint(page, 1024u, ((walk_c - 1u) >> (2u & 31u))) >> ((((walk_c - 1u) & 3u) << (3u & 31u)) & 31u)) & 255u)))))) {
                q = (q - 1u);
                walk_c = (walk_c - 1u);
                walk_len = (walk_len + 1u);
            }
            uint walk_ll = (q - anchor);
            vyre_store_local_uint(keys, 4096u, (count * 3u), (anchor | (walk_ll << (16u & 31u))));
            vyre_store_local_uint(keys, 4096u, ((count * 3u) + 1u), (walk_off | (walk_len << (16u & 31u))));
            vyre_store_local_uint(keys, 4096u, ((count * 3u) + 2u), size);
            size = ((((size + 3u) + (((uint)(walk_ll >= 15u)) ? (1u + vyre_div_uint((walk_ll - 15u), 255u)) : 0u)) + walk_ll) + (((uint)((walk_len - 4u) >= 15u)) ? (1u + vyre_div_uint(((walk_len - 4u) - 15u), 255u)) : 0u));
            count = (count + 1u);
            anchor = (q + walk_len);
            pos = anchor;
        }
        uint last_ll = (4096u - anchor);
        vyre_store_local_uint(keys, 4096u, (count * 3u), (anchor | (last_ll << (16u & 31u))));
        vyre_store_local_uint(keys, 4096u, ((count * 3u) + 1u), 0u);
        vyre_store_local_uint(keys, 4096u, ((count * 3u) + 2u), size);
        size = (((size + 1u) + (((uint)(last_ll >= 15u)) ? (1u + vyre_div_uint((last_ll - 15u), 255u)) : 0u)) + last_ll);
        vyre_store_local_uint(meta, 4u, 1u, (count + 1u));
        vyre_store_local_uint(meta, 4u, 2u, size);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    uint sequences = vyre_load_local_uint(meta, 4u, 1u);
    uint total = vyre_load_local_uint(meta, 4u, 2u);
    if (((uint)(total >= 4096u))) {
        for (uint raw_t = 0u, vyre_end0 = 32u; raw_t < vyre_end0; ++raw_t) {
            uint raw_i = ((raw_t * 128u) + lid);
            vyre_store_global_uchar(output, output_len, (slot + raw_i), ((vyre_load_local_uint(page, 1024u, (raw_i >> (2u & 31u))) >> (((raw_i & 3u) << (3u & 31u)) & 31u)) & 255u));
        }
        if (((uint)(lid == 0u))) {
            vyre_store_global_uint(records, records_len, (page_index * 2u), 4096u);
            vyre_store_global_uint(records, records_len, ((page_index * 2u) + 1u), 1u);
        }
        return;
    }
    for (uint hdr_t = 0u, vyre_end0 = 8u; hdr_t < vyre_end0; ++hdr_t) {
        uint hdr_s = ((hdr_t * 128u) + lid);
        if (((uint)(hdr_s < sequences))) {
            uint hdr_r0 = vyre_load_local_uint(keys, 4096u, (hdr_s * 3u));
            uint hdr_r1 = vyre_load_local_uint(keys, 4096u, ((hdr_s * 3u) + 1u));
            uint hdr_ll = (hdr_r0 >> (16u & 31u));
            uint hdr_ml = (hdr_r1 >> (16u & 31u));
            uint hdr_mlx = (((uint)(hdr_ml == 0u)) ? 0u : (hdr_ml - 4u));
            uint hdr_at = (slot + vyre_load_local_uint(keys, 4096u, ((hdr_s * 3u) + 2u)));
            vyre_store_global_uchar(output, output_len, hdr_at, ((min(hdr_ll, 15u) << (4u & 31u)) | min(hdr_mlx, 15u)));
            hdr_at = (hdr_at + 1u);
            if (((uint)(hdr_ll >= 15u))) {
                uint hdr_rest = (hdr_ll - 15u);
                while (((uint)(hdr_rest >= 255u))) {
                    vyre_store_global_uchar(output, output_len, hdr_at, 255u);
                    hdr_at = (hdr_at + 1u);
                    hdr_rest = (hdr_rest - 255u);
                }
                vyre_store_global_uchar(output, output_len, hdr_at, hdr_rest);
                hdr_at = (hdr_at + 1u);
            }
            hdr_at = (hdr_at + hdr_ll);
            if (((uint)(hdr_ml != 0u))) {
                vyre_store_global_uchar(output, output_len, hdr_at, (hdr_r1 & 255u));
                vyre_store_global_uchar(output, output_len, (hdr_at + 1u), ((hdr_r1 >> (8u & 31u)) & 255u));
                hdr_at = (hdr_at + 2u);
                if (((uint)(hdr_mlx >= 15u))) {
                    uint hdr_rest = (hdr_mlx - 15u);
                    while (((uint)(hdr_rest >= 255u))) {
                        vyre_store_global_uchar(output, output_len, hdr_at, 255u);
                        hdr_at = (hdr_at + 1u);
                        hdr_rest = (hdr_rest - 255u);
                    }
                    vyre_store_global_uchar(output, output_len, hdr_at, hdr_rest);
                    hdr_at = (hdr_at + 1u);
                }
            }
        }
    }
    for (uint lit_t = 0u, vyre_end0 = 32u; lit_t < vyre_end0; ++lit_t) {
        uint lit_p = ((lit_t * 128u) + lid);
        uint lit_seq = 0u;
        if (((uint)(((uint)((lit_seq + 512u) < sequences)) && ((uint)((vyre_load_local_uint(keys, 4096u, ((lit_seq + 512u) * 3u)) & 65535u) <= lit_p))))) {
            lit_seq = (lit_seq + 512u);
        }
        if (((uint)(((uint)((lit_seq + 256u) < sequences)) && ((uint)((vyre_load_local_uint(keys, 4096u, ((lit_seq + 256u) * 3u)) & 65535u) <= lit_p))))) {
            lit_seq = (lit_seq + 256u);
        }
        if (((uint)(((uint)((lit_seq + 128u) < sequences)) && ((uint)((vyre_load_local_uint(keys, 4096u, ((lit_seq + 128u) * 3u)) & 65535u) <= lit_p))))) {
            lit_seq = (lit_seq + 128u);
        }
        if (((uint)(((uint)((lit_seq + 64u) < sequences)) && ((uint)((vyre_load_local_uint(keys, 4096u, ((lit_seq + 64u) * 3u)) & 65535u) <= lit_p))))) {
            lit_seq = (lit_seq + 64u);
        }
        if (((uint)(((uint)((lit_seq + 32u) < sequences)) && ((uint)((vyre_load_local_uint(keys, 4096u, ((lit_seq + 32u) * 3u)) & 65535u) <= lit_p))))) {
            lit_seq = (lit_seq + 32u);
        }
        if (((uint)(((uint)((lit_seq + 16u) < sequences)) && ((uint)((vyre_load_local_uint(keys, 4096u, ((lit_seq + 16u) * 3u)) & 65535u) <= lit_p))))) {
            lit_seq = (lit_seq + 16u);
        }
        if (((uint)(((uint)((lit_seq + 8u) < sequences)) && ((uint)((vyre_load_local_uint(keys, 4096u, ((lit_seq + 8u) * 3u)) & 65535u) <= lit_p))))) {
            lit_seq = (lit_seq + 8u);
        }
        if (((uint)(((uint)((lit_seq + 4u) < sequences)) && ((uint)((vyre_load_local_uint(keys, 4096u, ((lit_seq + 4u) * 3u)) & 65535u) <= lit_p))))) {
            lit_seq = (lit_seq + 4u);
        }
        if (((uint)(((uint)((lit_seq + 2u) < sequences)) && ((uint)((vyre_load_local_uint(keys, 4096u, ((lit_seq + 2u) * 3u)) & 65535u) <= lit_p))))) {
            lit_seq = (lit_seq + 2u);
        }
        if (((uint)(((uint)((lit_seq + 1u) < sequences)) && ((uint)((vyre_load_local_uint(keys, 4096u, ((lit_seq + 1u) * 3u)) & 65535u) <= lit_p))))) {
            lit_seq = (lit_seq + 1u);
        }
        uint lit_r0 = vyre_load_local_uint(keys, 4096u, (lit_seq * 3u));
        uint lit_start = (lit_r0 & 65535u);
        uint lit_ll = (lit_r0 >> (16u & 31u));
        if (((uint)(lit_p < (lit_start + lit_ll)))) {
            vyre_store_global_uchar(output, output_len, ((((slot + vyre_load_local_uint(keys, 4096u, ((lit_seq * 3u) + 2u))) + 1u) + (((uint)(lit_ll >= 15u)) ? (1u + vyre_div_uint((lit_ll - 15u), 255u)) : 0u)) + (lit_p - lit_start)), ((vyre_load_local_uint(page, 1024u, (lit_p >> (2u & 31u))) >> (((lit_p & 3u) << (3u & 31u)) & 31u)) & 255u));
        }
    }
    if (((uint)(lid == 0u))) {
        vyre_store_global_uint(records, records_len, (page_index * 2u), total);
        vyre_store_global_uint(records, records_len, ((page_index * 2u) + 1u), 0u);
    }
}
