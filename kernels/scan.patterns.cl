// vyre program "scan_patterns", lowered to OpenCL C 1.2
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
static inline uint vyre_load_local_uint(const __local uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}
static inline void vyre_store_local_uint(__local uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void scan_patterns(
    __global const uchar* data, const uint data_len,
    __global const uint* chunks, const uint chunks_len,
    __global const uint* entries, const uint entries_len,
    __global const uint* filter, const uint filter_len,
    __global const uint* bucket_start, const uint bucket_start_len,
    __global const uint* items, const uint items_len,
    __global const uint* forms, const uint forms_len,
    __global const uint* form_bytes, const uint form_bytes_len,
    __global const uint* muted, const uint muted_len,
    __global uint* hits, const uint hits_len,
    __global uint* counts, const uint counts_len,
    __constant uint* params, const uint params_len)
{
    __local uint filter_bits[10248];
    {
        const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
        const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
        for (uint vyre_i = vyre_lid; vyre_i < 10248u; vyre_i += vyre_lsize) filter_bits[vyre_i] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint w = (uint)get_local_id(0);
    while (((uint)(w < 10248u))) {
        vyre_store_local_uint(filter_bits, 10248u, w, vyre_load_global_uint(filter, filter_len, w));
        w = (w + 256u);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    uint capacity = vyre_load_constant_uint(params, params_len, 2u);
    uint chunk = (vyre_load_constant_uint(params, params_len, 1u) + (uint)get_group_id(0));
    while (((uint)(chunk < vyre_load_constant_uint(params, params_len, 0u)))) {
        uint entry = vyre_load_global_uint(chunks, chunks_len, (chunk * 2u));
        uint first = vyre_load_global_uint(chunks, chunks_len, ((chunk * 2u) + 1u));
        uint base = vyre_load_global_uint(entries, entries_len, (entry * 2u));
        uint size = vyre_load_global_uint(entries, entries_len, ((entry * 2u) + 1u));
        for (uint i = 0u, vyre_end1 = 16u; i < vyre_end1; ++i) {
            uint p = ((first + (i * 256u)) + (uint)get_local_id(0));
            if (((uint)(p < size))) {
                uint rest = (size - p);
                uint b0 = (((uint)(((vyre_load_global_uchar(data, data_len, (base + p)) | 32u) - 97u) < 26u)) ? (vyre_load_global_uchar(data, data_len, (base + p)) & 223u) : vyre_load_global_uchar(data, data_len, (base + p)));
                uint b1 = (((uint)(rest >= 2u)) ? (((uint)(((vyre_load_global_uchar(data, data_len, ((base + p) + 1u)) | 32u) - 97u) < 26u)) ? (vyre_load_global_uchar(data, data_len, ((base + p) + 1u)) & 223u) : vyre_load_global_uchar(data, data_len, ((base + p) + 1u))) : 0u);
                uint word = 0u;
                if (((uint)(rest >= 4u))) {
                    word = (((b0 | (b1 << (8u & 31u))) | ((((uint)(((vyre_load_global_uchar(data, data_len, ((base + p) + 2u)) | 32u) - 97u) < 26u)) ? (vyre_load_global_uchar(data, data_len, ((base + p) + 2u)) & 223u) : vyre_load_global_uchar(data, data_len, ((base + p) + 2u))) << (16u & 31u))) | ((((uint)(((vyre_load_global_uchar(data, data_len, ((base + p) + 3u)) | 32u) - 97u) < 26u)) ? (vyre_load_global_uchar(data, data_len, ((base + p) + 3u)) & 223u) : vyre_load_global_uchar(data, data_len, ((base + p) + 3u))) << (24u & 31u)));
                }
                if (((uint)(((vyre_load_local_uint(filter_bits, 10248u, ((b0 + 327680u) >> (5u & 31u))) >> (((b0 + 327680u) & 31u) & 31u)) & 1u) != 0u))) {
                    uint it_k1 = vyre_load_global_uint(bucket_start, bucket_start_len, (b0 + 327680u));
                    uint end_k1 = vyre_load_global_uint(bucket_start, bucket_start_len, ((b0 + 327680u) + 1u));
                    while (((uint)(it_k1 < end_k1))) {
                        uint item_k1 = vyre_load_global_uint(items, items_len, it_k1);
                        uint form_k1 = (item_k1 >> (12u & 31u));
                        uint atom_k1 = (item_k1 & 4095u);
                        uint length_k1 = vyre_load_global_uint(forms, forms_len, ((form_k1 * 4u) + 2u));
                        if (((uint)(((uint)(atom_k1 <= p)) && ((uint)(length_k1 <= (size - (p - atom_k1))))))) {
                            uint start_k1 = (p - atom_k1);
                            uint fb_k1 = vyre_load_global_uint(forms, forms_len, ((form_k1 * 4u) + 1u));
                            uint j_k1 = 0u;
                            while (((uint)(j_k1 < length_k1))) {
                                uint m_k1 = vyre_load_global_uint(form_bytes, form_bytes_len, (fb_k1 + j_k1));
                                if (((uint)((vyre_load_global_uchar(data, data_len, ((base + start_k1) + j_k1)) & (m_k1 >> (8u & 31u))) != (m_k1 & 255u)))) {
                                    break;
                                }
                                j_k1 = (j_k1 + 1u);
                            }
                            if (((uint)(j_k1 == length_k1))) {
                                uint pattern_k1 = vyre_load_global_uint(forms, forms_len, (form_k1 * 4u));
                                uint seen_k1 = vyre_atomic_add_uint(counts, counts_len, (pattern_k1 + 1u), 1u);
                                if (((uint)(((uint)(((vyre_load_global_uint(muted, muted_len, (pattern_k1 >> (5u & 31u))) >> ((pattern_k1 & 31u) & 31u)) & 1u) == 0u)) && ((uint)(vyre_load_global_uint(counts, counts_len, 0u) < 2147483648u))))) {
                                    uint slot_k1 = vyre_atomic_add_uint(counts, counts_len, 0u, 1u);
                                    if (((uint)(slot_k1 < capacity))) {
                                        vyre_store_global_uint(hits, hits_len, (slot_k1 * 3u), entry);
                                        vyre_store_global_uint(hits, hits_len, ((slot_k1 * 3u) + 1u), pattern_k1);
                                        vyre_store_global_uint(hits, hits_len, ((slot_k1 * 3u) + 2u), start_k1);
                                    }
                                }
                            }
                        }
                        it_k1 = (it_k1 + 1u);
                    }
                }
                if (((uint)(rest >= 2u))) {
                    if (((uint)(((vyre_load_local_uint(filter_bits, 10248u, (((b0 | (b1 << (8u & 31u))) + 262144u) >> (5u & 31u))) >> ((((b0 | (b1 << (8u & 31u))) + 262144u) & 31u) & 31u)) & 1u) != 0u))) {
                        uint it_k2 = vyre_load_global_uint(bucket_start, bucket_start_len, ((b0 | (b1 << (8u & 31u))) + 262144u));
                        uint end_k2 = vyre_load_global_uint(bucket_start, bucket_start_len, (((b0 | (b1 << (8u & 31u))) + 262144u) + 1u));
                        while (((uint)(it_k2 < end_k2))) {
                            uint item_k2 = vyre_load_global_uint(items, items_len, it_k2);
                            uint form_k2 = (item_k2 >> (12u & 31u));
                            uint atom_k2 = (item_k2 & 4095u);
                            uint length_k2 = vyre_load_global_uint(forms, forms_len, ((form_k2 * 4u) + 2u));
                            if (((uint)(((uint)(atom_k2 <= p)) && ((uint)(length_k2 <= (size - (p - atom_k2))))))) {
                                uint start_k2 = (p - atom_k2);
                                uint fb_k2 = vyre_load_global_uint(forms, forms_len, ((form_k2 * 4u) + 1u));
                                uint j_k2 = 0u;
                                while (((uint)(j_k2 < length_k2))) {
                                    uint m_k2 = vyre_load_global_uint(form_bytes, form_bytes_len, (fb_k2 + j_k2));
                                    if (((uint)((vyre_load_global_uchar(data, data_len, ((base + start_k2) + j_k2)) & (m_k2 >> (8u & 31u))) != (m_k2 & 255u)))) {
                                        break;
                                    }
                                    j_k2 = (j_k2 + 1u);
                                }
                                if (((uint)(j_k2 == length_k2))) {
                                    uint pattern_k2 = vyre_load_global_uint(forms, forms_len, (form_k2 * 4u));
                                    uint seen_k2 = vyre_atomic_add_uint(counts, counts_len, (pattern_k2 + 1u), 1u);
                                    if (((uint)(((uint)(((vyre_load_global_uint(muted, muted_len, (pattern_k2 >> (5u & 31u))) >> ((pattern_k2 & 31u) & 31u)) & 1u) == 0u)) && ((uint)(vyre_load_global_uint(counts, counts_len, 0u) < 2147483648u))))) {
                                        uint slot_k2 = vyre_atomic_add_uint(counts, counts_len, 0u, 1u);
                                        if (((uint)(slot_k2 < capacity))) {
                                            vyre_store_global_uint(hits, hits_len, (slot_k2 * 3u), entry);
                                            vyre_store_global_uint(hits, hits_len, ((slot_k2 * 3u) + 1u), pattern_k2);
                                            vyre_store_global_uint(hits, hits_len, ((slot_k2 * 3u) + 2u), start_k2);
                                        }
                                    }
                                }
                            }
                            it_k2 = (it_k2 + 1u);
                        }
                    }
                }
                if (((uint)(rest >= 4u))) {
                    if (((uint)(((vyre_load_local_uint(filter_bits, 10248u, (((word * 2654435761u) >> (14u & 31u)) >> (5u & 31u))) >> ((((word * 2654435761u) >> (14u & 31u)) & 31u) & 31u)) & 1u) != 0u))) {
                        uint it_k4 = vyre_load_global_uint(bucket_start, bucket_start_len, ((word * 2654435761u) >> (14u & 31u)));
                        uint end_k4 = vyre_load_global_uint(bucket_start, bucket_start_len, (((word * 2654435761u) >> (14u & 31u)) + 1u));
                        while (((uint)(it_k4 < end_k4))) {
                            uint item_k4 = vyre_load_global_uint(items, items_len, it_k4);
                            uint form_k4 = (item_k4 >> (12u & 31u));
                            uint atom_k4 = (item_k4 & 4095u);
                            uint length_k4 = vyre_load_global_uint(forms, forms_len, ((form_k4 * 4u) + 2u));
                            if (((uint)(((uint)(atom_k4 <= p)) && ((uint)(length_k4 <= (size - (p - atom_k4))))))) {
                                uint start_k4 = (p - atom_k4);
                                uint fb_k4 = vyre_load_global_uint(forms, forms_len, ((form_k4 * 4u) + 1u));
                                uint j_k4 = 0u;
                                while (((uint)(j_k4 < length_k4))) {
                                    uint m_k4 = vyre_load_global_uint(form_bytes, form_bytes_len, (fb_k4 + j_k4));
                                    if (((uint)((vyre_load_global_uchar(data, data_len, ((base + start_k4) + j_k4)) & (m_k4 >> (8u & 31u))) != (m_k4 & 255u)))) {
                                        break;
                                    }
                                    j_k4 = (j_k4 + 1u);
                                }
                                if (((uint)(j_k4 == length_k4))) {
                                    uint pattern_k4 = vyre_load_global_uint(forms, forms_len, (form_k4 * 4u));
                                    uint seen_k4 = vyre_atomic_add_uint(counts, counts_len, (pattern_k4 + 1u), 1u);
                                    if (((uint)(((uint)(((vyre_load_global_uint(muted, muted_len, (pattern_k4 >> (5u & 31u))) >> ((pattern_k4 & 31u) & 31u)) & 1u) == 0u)) && ((uint)(vyre_load_global_uint(counts, counts_len, 0u) < 2147483648u))))) {
                                        uint slot_k4 = vyre_atomic_add_uint(counts, counts_len, 0u, 1u);
                                        if (((uint)(slot_k4 < capacity))) {
                                            vyre_store_global_uint(hits, hits_len, (slot_k4 * 3u), entry);
                                            vyre_store_global_uint(hits, hits_len, ((slot_k4 * 3u) + 1u), pattern_k4);
                                            vyre_store_global_uint(hits, hits_len, ((slot_k4 * 3u) + 2u), start_k4);
                                        }
                                    }
                                }
                            }
                            it_k4 = (it_k4 + 1u);
                        }
                    }
                }
            }
        }
        chunk = (chunk + vyre_load_constant_uint(params, params_len, 3u));
    }
}
