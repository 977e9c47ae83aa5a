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

__kernel __attribute__((reqd_work_group_size(32, 1, 1)))
void compression_lz4_pages(
    __global const uint* pages, const uint pages_len,
    __global uchar* output, const uint output_len,
    __global uint* records, const uint records_len,
    __constant uint* params, const uint params_len)
{
    __local uint page[1024];
    __local uint table[2048];
    __local uint hashes[32];
    __local uint found[32];
    __local uint bits[32];
    __local uint red[32];
    __local uint part[4];
    __local uint seqs[64];
    __local uint meta[1];
    {
        const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
        const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
        for (uint vyre_i = vyre_lid; vyre_i < 1024u; vyre_i += vyre_lsize) page[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 2048u; vyre_i += vyre_lsize) table[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 32u; vyre_i += vyre_lsize) hashes[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 32u; vyre_i += vyre_lsize) found[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 32u; vyre_i += vyre_lsize) bits[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 32u; vyre_i += vyre_lsize) red[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 4u; vyre_i += vyre_lsize) part[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 64u; vyre_i += vyre_lsize) seqs[vyre_i] = 0u;
        for (uint vyre_i = vyre_lid; vyre_i < 1u; vyre_i += vyre_lsize) meta[vyre_i] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint lid = (uint)get_local_id(0);
    uint page_index = (uint)get_group_id(0);
    if (((uint)(page_index >= vyre_load_constant_uint(params, params_len, 0u)))) {
        return;
    }
    uint in_base = (page_index * 1024u);
    uint slot = (page_index * 4096u);
    uint lane = (lid & 31u);
    uint first_word = vyre_load_global_uint(pages, pages_len, in_base);
    uint fill_word = ((first_word & 255u) * 16843009u);
    uint differs = 0u;
    uint load_0 = vyre_load_global_uint(pages, pages_len, ((in_base + 0u) + lane));
    uint load_1 = vyre_load_global_uint(pages, pages_len, ((in_base + 32u) + lane));
    uint load_2 = vyre_load_global_uint(pages, pages_len, ((in_base + 64u) + lane));
    uint load_3 = vyre_load_global_uint(pages, pages_len, ((in_base + 96u) + lane));
    uint load_4 = vyre_load_global_uint(pages, pages_len, ((in_base + 128u) + lane));
    uint load_5 = vyre_load_global_uint(pages, pages_len, ((in_base + 160u) + lane));
    uint load_6 = vyre_load_global_uint(pages, pages_len, ((in_base + 192u) + lane));
    uint load_7 = vyre_load_global_uint(pages, pages_len, ((in_base + 224u) + lane));
    vyre_store_local_uint(page, 1024u, (0u + lane), load_0);
    differs = (differs | (load_0 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (32u + lane), load_1);
    differs = (differs | (load_1 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (64u + lane), load_2);
    differs = (differs | (load_2 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (96u + lane), load_3);
    differs = (differs | (load_3 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (128u + lane), load_4);
    differs = (differs | (load_4 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (160u + lane), load_5);
    differs = (differs | (load_5 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (192u + lane), load_6);
    differs = (differs | (load_6 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (224u + lane), load_7);
    differs = (differs | (load_7 ^ fill_word));
    uint load_8 = vyre_load_global_uint(pages, pages_len, ((in_base + 256u) + lane));
    uint load_9 = vyre_load_global_uint(pages, pages_len, ((in_base + 288u) + lane));
    uint load_10 = vyre_load_global_uint(pages, pages_len, ((in_base + 320u) + lane));
    uint load_11 = vyre_load_global_uint(pages, pages_len, ((in_base + 352u) + lane));
    uint load_12 = vyre_load_global_uint(pages, pages_len, ((in_base + 384u) + lane));
    uint load_13 = vyre_load_global_uint(pages, pages_len, ((in_base + 416u) + lane));
    uint load_14 = vyre_load_global_uint(pages, pages_len, ((in_base + 448u) + lane));
    uint load_15 = vyre_load_global_uint(pages, pages_len, ((in_base + 480u) + lane));
    vyre_store_local_uint(page, 1024u, (256u + lane), load_8);
    differs = (differs | (load_8 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (288u + lane), load_9);
    differs = (differs | (load_9 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (320u + lane), load_10);
    differs = (differs | (load_10 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (352u + lane), load_11);
    differs = (differs | (load_11 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (384u + lane), load_12);
    differs = (differs | (load_12 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (416u + lane), load_13);
    differs = (differs | (load_13 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (448u + lane), load_14);
    differs = (differs | (load_14 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (480u + lane), load_15);
    differs = (differs | (load_15 ^ fill_word));
    uint load_16 = vyre_load_global_uint(pages, pages_len, ((in_base + 512u) + lane));
    uint load_17 = vyre_load_global_uint(pages, pages_len, ((in_base + 544u) + lane));
    uint load_18 = vyre_load_global_uint(pages, pages_len, ((in_base + 576u) + lane));
    uint load_19 = vyre_load_global_uint(pages, pages_len, ((in_base + 608u) + lane));
    uint load_20 = vyre_load_global_uint(pages, pages_len, ((in_base + 640u) + lane));
    uint load_21 = vyre_load_global_uint(pages, pages_len, ((in_base + 672u) + lane));
    uint load_22 = vyre_load_global_uint(pages, pages_len, ((in_base + 704u) + lane));
    uint load_23 = vyre_load_global_uint(pages, pages_len, ((in_base + 736u) + lane));
    vyre_store_local_uint(page, 1024u, (512u + lane), load_16);
    differs = (differs | (load_16 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (544u + lane), load_17);
    differs = (differs | (load_17 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (576u + lane), load_18);
    differs = (differs | (load_18 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (608u + lane), load_19);
    differs = (differs | (load_19 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (640u + lane), load_20);
    differs = (differs | (load_20 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (672u + lane), load_21);
    differs = (differs | (load_21 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (704u + lane), load_22);
    differs = (differs | (load_22 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (736u + lane), load_23);
    differs = (differs | (load_23 ^ fill_word));
    uint load_24 = vyre_load_global_uint(pages, pages_len, ((in_base + 768u) + lane));
    uint load_25 = vyre_load_global_uint(pages, pages_len, ((in_base + 800u) + lane));
    uint load_26 = vyre_load_global_uint(pages, pages_len, ((in_base + 832u) + lane));
    uint load_27 = vyre_load_global_uint(pages, pages_len, ((in_base + 864u) + lane));
    uint load_28 = vyre_load_global_uint(pages, pages_len, ((in_base + 896u) + lane));
    uint load_29 = vyre_load_global_uint(pages, pages_len, ((in_base + 928u) + lane));
    uint load_30 = vyre_load_global_uint(pages, pages_len, ((in_base + 960u) + lane));
    uint load_31 = vyre_load_global_uint(pages, pages_len, ((in_base + 992u) + lane));
    vyre_store_local_uint(page, 1024u, (768u + lane), load_24);
    differs = (differs | (load_24 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (800u + lane), load_25);
    differs = (differs | (load_25 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (832u + lane), load_26);
    differs = (differs | (load_26 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (864u + lane), load_27);
    differs = (differs | (load_27 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (896u + lane), load_28);
    differs = (differs | (load_28 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (928u + lane), load_29);
    differs = (differs | (load_29 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (960u + lane), load_30);
    differs = (differs | (load_30 ^ fill_word));
    vyre_store_local_uint(page, 1024u, (992u + lane), load_31);
    differs = (differs | (load_31 ^ fill_word));
    if (((uint)(differs != 0u))) {
        vyre_store_local_uint(meta, 1u, 0u, 1u);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (((uint)(vyre_load_local_uint(meta, 1u, 0u) == 0u))) {
        if (((uint)(lid == 0u))) {
            vyre_store_global_uint(records, records_len, (page_index * 2u), 0u);
            vyre_store_global_uint(records, records_len, ((page_index * 2u) + 1u), (2u | ((first_word & 255u) << (8u & 31u))));
        }
        return;
    }
    uint anchor = 0u;
    uint pos = 0u;
    uint emitted = 0u;
    uint stored = 0u;
    uint count = 0u;
    uint written = 0u;
    uint chunk = 0u;
    while (((uint)(((uint)(((uint)(chunk < 128u)) && ((uint)(stored == 0u)))) && ((uint)(pos <= 4084u))))) {
        uint c0 = (chunk * 32u);
        uint p = (c0 + lane);
        uint wp_at = p;
        uint wp_sh = ((wp_at & 3u) << (3u & 31u));
        uint wp_r0 = vyre_load_local_uint(page, 1024u, (((wp_at >> (2u & 31u)) + 0u) & 1023u));
        uint wp_r1 = vyre_load_local_uint(page, 1024u, (((wp_at >> (2u & 31u)) + 1u) & 1023u));
        uint wp_r2 = vyre_load_local_uint(page, 1024u, (((wp_at >> (2u & 31u)) + 2u) & 1023u));
        uint wp_r3 = vyre_load_local_uint(page, 1024u, (((wp_at >> (2u & 31u)) + 3u) & 1023u));
        uint wp_r4 = vyre_load_local_uint(page, 1024u, (((wp_at >> (2u & 31u)) + 4u) & 1023u));
        uint wp0 = (uint)(((((ulong)(wp_r1) << (32ul & 63ul)) | (ulong)(wp_r0)) >> ((ulong)(wp_sh) & 63ul)));
        uint wp1 = (uint)(((((ulong)(wp_r2) << (32ul & 63ul)) | (ulong)(wp_r1)) >> ((ulong)(wp_sh) & 63ul)));
        uint wp2 = (uint)(((((ulong)(wp_r3) << (32ul & 63ul)) | (ulong)(wp_r2)) >> ((ulong)(wp_sh) & 63ul)));
        uint wp3 = (uint)(((((ulong)(wp_r4) << (32ul & 63ul)) | (ulong)(wp_r3)) >> ((ulong)(wp_sh) & 63ul)));
        uint h = ((wp0 * 2654435761u) >> (20u & 31u));
        vyre_store_local_uint(hashes, 32u, lane, h);
        uint tidx = (h & 2047u);
        uint thalf = ((h >> (11u & 31u)) << (4u & 31u));
        uint tval = ((vyre_load_local_uint(table, 2048u, tidx) >> (thalf & 31u)) & 65535u);
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        if (((uint)(count > 8u))) {
            uint emit_k0 = written;
            while (((uint)(emit_k0 < emitted))) {
                uint emit_o = (emit_k0 + lid);
                uint emit_at = 0u;
                uint emit_in8 = (uint)(((uint)((emit_at + 8u) < count)));
                uint emit_bf8 = (uint)(((uint)(vyre_load_local_uint(seqs, 64u, (((4u * (emit_at + 8u)) + 2u) & 63u)) <= emit_o)));
                emit_at = (emit_at + (((uint)((emit_in8 & emit_bf8) != 0u)) ? 8u : 0u));
                uint emit_in4 = (uint)(((uint)((emit_at + 4u) < count)));
                uint emit_bf4 = (uint)(((uint)(vyre_load_local_uint(seqs, 64u, (((4u * (emit_at + 4u)) + 2u) & 63u)) <= emit_o)));
                emit_at = (emit_at + (((uint)((emit_in4 & emit_bf4) != 0u)) ? 4u : 0u));
                uint emit_in2 = (uint)(((uint)((emit_at + 2u) < count)));
                uint emit_bf2 = (uint)(((uint)(vyre_load_local_uint(seqs, 64u, (((4u * (emit_at + 2u)) + 2u) & 63u)) <= emit_o)));
                emit_at = (emit_at + (((uint)((emit_in2 & emit_bf2) != 0u)) ? 2u : 0u));
                uint emit_in1 = (uint)(((uint)((emit_at + 1u) < count)));
                uint emit_bf1 = (uint)(((uint)(vyre_load_local_uint(seqs, 64u, (((4u * (emit_at + 1u)) + 2u) & 63u)) <= emit_o)));
                emit_at = (emit_at + (((uint)((emit_in1 & emit_bf1) != 0u)) ? 1u : 0u));
                uint emit_e0 = vyre_load_local_uint(seqs, 64u, ((4u * emit_at) & 63u));
                uint emit_e1 = vyre_load_local_uint(seqs, 64u, (((4u * emit_at) + 1u) & 63u));
                uint emit_e3 = vyre_load_local_uint(seqs, 64u, (((4u * emit_at) + 3u) & 63u));
                uint emit_kk = (emit_o - vyre_load_local_uint(seqs, 64u, (((4u * emit_at) + 2u) & 63u)));
                uint emit_ll = (emit_e0 >> (16u & 31u));
                uint emit_le = ((emit_e3 >> (8u & 31u)) & 255u);
                uint emit_me = (emit_e3 >> (16u & 31u));
                uint emit_li = ((emit_kk - 1u) - emit_le);
                uint emit_ai = (emit_li - emit_ll);
                uint emit_lit = ((vyre_load_local_uint(page, 1024u, ((((emit_e0 & 65535u) + emit_li) >> (2u & 31u)) & 1023u)) >> (((((emit_e0 & 65535u) + emit_li) & 3u) << (3u & 31u)) & 31u)) & 255u);
                uint emit_v = (emit_e3 & 255u);
                emit_v = (((uint)((emit_kk - 1u) < emit_le)) ? (((uint)(emit_kk < emit_le)) ? 255u : ((emit_ll - 15u) - (255u * (emit_le - 1u)))) : emit_v);
                emit_v = (((uint)(emit_li < emit_ll)) ? emit_lit : emit_v);
                emit_v = (((uint)(emit_ai < 2u)) ? ((emit_e1 >> ((emit_ai << (3u & 31u)) & 31u)) & 255u) : emit_v);
                emit_v = (((uint)((emit_ai - 2u) < emit_me)) ? (((uint)((emit_ai - 1u) < emit_me)) ? 255u : (((emit_e1 >> (16u & 31u)) - 15u) - (255u * (emit_me - 1u)))) : emit_v);
                if (((uint)(emit_o < emitted))) {
                    vyre_store_global_uchar(output, output_len, (slot + emit_o), emit_v);
                }
                emit_k0 = (emit_k0 + 32u);
            }
            written = emitted;
            count = 0u;
        }
        uint eq0_0 = ((((uint)(vyre_load_local_uint(hashes, 32u, 0u) == h)) ? 1u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 1u) == h)) ? 2u : 0u));
        uint eq0_2 = ((((uint)(vyre_load_local_uint(hashes, 32u, 2u) == h)) ? 4u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 3u) == h)) ? 8u : 0u));
        uint eq0_4 = ((((uint)(vyre_load_local_uint(hashes, 32u, 4u) == h)) ? 16u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 5u) == h)) ? 32u : 0u));
        uint eq0_6 = ((((uint)(vyre_load_local_uint(hashes, 32u, 6u) == h)) ? 64u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 7u) == h)) ? 128u : 0u));
        uint eq0_8 = ((((uint)(vyre_load_local_uint(hashes, 32u, 8u) == h)) ? 256u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 9u) == h)) ? 512u : 0u));
        uint eq0_10 = ((((uint)(vyre_load_local_uint(hashes, 32u, 10u) == h)) ? 1024u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 11u) == h)) ? 2048u : 0u));
        uint eq0_12 = ((((uint)(vyre_load_local_uint(hashes, 32u, 12u) == h)) ? 4096u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 13u) == h)) ? 8192u : 0u));
        uint eq0_14 = ((((uint)(vyre_load_local_uint(hashes, 32u, 14u) == h)) ? 16384u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 15u) == h)) ? 32768u : 0u));
        uint eq0_16 = ((((uint)(vyre_load_local_uint(hashes, 32u, 16u) == h)) ? 65536u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 17u) == h)) ? 131072u : 0u));
        uint eq0_18 = ((((uint)(vyre_load_local_uint(hashes, 32u, 18u) == h)) ? 262144u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 19u) == h)) ? 524288u : 0u));
        uint eq0_20 = ((((uint)(vyre_load_local_uint(hashes, 32u, 20u) == h)) ? 1048576u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 21u) == h)) ? 2097152u : 0u));
        uint eq0_22 = ((((uint)(vyre_load_local_uint(hashes, 32u, 22u) == h)) ? 4194304u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 23u) == h)) ? 8388608u : 0u));
        uint eq0_24 = ((((uint)(vyre_load_local_uint(hashes, 32u, 24u) == h)) ? 16777216u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 25u) == h)) ? 33554432u : 0u));
        uint eq0_26 = ((((uint)(vyre_load_local_uint(hashes, 32u, 26u) == h)) ? 67108864u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 27u) == h)) ? 134217728u : 0u));
        uint eq0_28 = ((((uint)(vyre_load_local_uint(hashes, 32u, 28u) == h)) ? 268435456u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 29u) == h)) ? 536870912u : 0u));
        uint eq0_30 = ((((uint)(vyre_load_local_uint(hashes, 32u, 30u) == h)) ? 1073741824u : 0u) | (((uint)(vyre_load_local_uint(hashes, 32u, 31u) == h)) ? 2147483648u : 0u));
        uint or0_0_0 = (eq0_0 | eq0_2);
        uint or0_0_2 = (eq0_4 | eq0_6);
        uint or0_0_4 = (eq0_8 | eq0_10);
        uint or0_0_6 = (eq0_12 | eq0_14);
        uint or0_0_8 = (eq0_16 | eq0_18);
        uint or0_0_10 = (eq0_20 | eq0_22);
        uint or0_0_12 = (eq0_24 | eq0_26);
        uint or0_0_14 = (eq0_28 | eq0_30);
        uint or0_1_0 = (or0_0_0 | or0_0_2);
        uint or0_1_2 = (or0_0_4 | or0_0_6);
        uint or0_1_4 = (or0_0_8 | or0_0_10);
        uint or0_1_6 = (or0_0_12 | or0_0_14);
        uint or0_2_0 = (or0_1_0 | or0_1_2);
        uint or0_2_2 = (or0_1_4 | or0_1_6);
        uint or0_3_0 = (or0_2_0 | or0_2_2);
        uint lw = (lane >> (5u & 31u));
        uint lb = (lane & 31u);
        uint pred = 32u;
        uint later = 0u;
        uint below0 = (((uint)(lw > 0u)) ? or0_3_0 : (((uint)(lw == 0u)) ? (or0_3_0 & ((1u << (lb & 31u)) - 1u)) : 0u));
        pred = (((uint)(below0 != 0u)) ? (31u - clz(below0)) : pred);
        later = (later | (((uint)(lw < 0u)) ? or0_3_0 : (((uint)(lw == 0u)) ? ((or0_3_0 >> (lb & 31u)) >> (1u & 31u)) : 0u)));
        uint cand = (((uint)(pred < 32u)) ? ((c0 + pred) + 1u) : tval);
        if (((uint)(((uint)(later == 0u)) && ((uint)(thalf == 0u))))) {
            vyre_store_local_uint(table, 2048u, tidx, ((vyre_load_local_uint(table, 2048u, tidx) & 4294901760u) | (p + 1u)));
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        if (((uint)(((uint)(later == 0u)) && ((uint)(thalf != 0u))))) {
            vyre_store_local_uint(table, 2048u, tidx, ((vyre_load_local_uint(table, 2048u, tidx) & 65535u) | ((p + 1u) << (16u & 31u))));
        }
        uint entry = cand;
        if (((uint)(((uint)(cand != 0u)) && ((uint)(p <= 4084u))))) {
            uint wc_at = (cand - 1u);
            uint wc_sh = ((wc_at & 3u) << (3u & 31u));
            uint wc_r0 = vyre_load_local_uint(page, 1024u, (((wc_at >> (2u & 31u)) + 0u) & 1023u));
            uint wc_r1 = vyre_load_local_uint(page, 1024u, (((wc_at >> (2u & 31u)) + 1u) & 1023u));
            uint wc_r2 = vyre_load_local_uint(page, 1024u, (((wc_at >> (2u & 31u)) + 2u) & 1023u));
            uint wc_r3 = vyre_load_local_uint(page, 1024u, (((wc_at >> (2u & 31u)) + 3u) & 1023u));
            uint wc_r4 = vyre_load_local_uint(page, 1024u, (((wc_at >> (2u & 31u)) + 4u) & 1023u));
            uint wc0 = (uint)(((((ulong)(wc_r1) << (32ul & 63ul)) | (ulong)(wc_r0)) >> ((ulong)(wc_sh) & 63ul)));
            uint wc1 = (uint)(((((ulong)(wc_r2) << (32ul & 63ul)) | (ulong)(wc_r1)) >> ((ulong)(wc_sh) & 63ul)));
            uint wc2 = (uint)(((((ulong)(wc_r3) << (32ul & 63ul)) | (ulong)(wc_r2)) >> ((ulong)(wc_sh) & 63ul)));
            uint wc3 = (uint)(((((ulong)(wc_r4) << (32ul & 63ul)) | (ulong)(wc_r3)) >> ((ulong)(wc_sh) & 63ul)));
            if (((uint)(wc0 == wp0))) {
                uint dw = 0u;
                uint dat = 16u;
                uint d3 = (wp3 ^ wc3);
                dw = (((uint)(d3 != 0u)) ? d3 : dw);
                dat = (((uint)(d3 != 0u)) ? 12u : dat);
                uint d2 = (wp2 ^ wc2);
                dw = (((uint)(d2 != 0u)) ? d2 : dw);
                dat = (((uint)(d2 != 0u)) ? 8u : dat);
                uint d1 = (wp1 ^ wc1);
                dw = (((uint)(d1 != 0u)) ? d1 : dw);
                dat = (((uint)(d1 != 0u)) ? 4u : dat);
                uint len = min((dat + (((uint)(dw != 0u)) ? (vyre_ctz_uint(dw) >> (3u & 31u)) : 0u)), (4091u - p));
                uint back = (((uint)(((uint)(cand > 1u)) && ((uint)(((vyre_load_local_uint(page, 1024u, (((p - 1u) >> (2u & 31u)) & 1023u)) >> ((((p - 1u) & 3u) << (3u & 31u)) & 31u)) & 255u) == ((vyre_load_local_uint(page, 1024u, (((cand - 2u) >> (2u & 31u)) & 1023u)) >> ((((cand - 2u) & 3u) << (3u & 31u)) & 31u)) & 255u))))) ? 32768u : 0u);
                entry = (((len << (16u & 31u)) | back) | cand);
            }
        }
        vyre_store_local_uint(found, 32u, lane, entry);
        vyre_store_local_uint(bits, 32u, lane, (((uint)(entry >= 262144u)) ? (1u << (lb & 31u)) : 0u));
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        uint starts0_grp = ((lid & 3u) * 8u);
        uint starts0_acc = (((vyre_load_local_uint(bits, 32u, starts0_grp) | vyre_load_local_uint(bits, 32u, (starts0_grp + 1u))) | (vyre_load_local_uint(bits, 32u, (starts0_grp + 2u)) | vyre_load_local_uint(bits, 32u, (starts0_grp + 3u)))) | ((vyre_load_local_uint(bits, 32u, (starts0_grp + 4u)) | vyre_load_local_uint(bits, 32u, (starts0_grp + 5u))) | (vyre_load_local_uint(bits, 32u, (starts0_grp + 6u)) | vyre_load_local_uint(bits, 32u, (starts0_grp + 7u)))));
        if (((uint)(lid < 4u))) {
            vyre_store_local_uint(part, 4u, lane, starts0_acc);
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        uint starts0_m0 = (((vyre_load_local_uint(part, 4u, 0u) | vyre_load_local_uint(part, 4u, 1u)) | vyre_load_local_uint(part, 4u, 2u)) | vyre_load_local_uint(part, 4u, 3u));
        uint ahead0 = (starts0_m0 & (4294967295u << (((pos - c0) & 31u) & 31u)));
        while (((uint)(((uint)(((uint)(pos < (c0 + 32u))) && ((uint)(stored == 0u)))) && ((uint)(ahead0 != 0u))))) {
            uint s_rel = 32u;
            uint s_rel_b0 = (starts0_m0 & (4294967295u << ((pos - c0) & 31u)));
            s_rel = (((uint)(s_rel_b0 != 0u)) ? (0u + vyre_ctz_uint(s_rel_b0)) : s_rel);
            uint s = (c0 + s_rel);
            uint e = vyre_load_local_uint(found, 32u, (s_rel & 31u));
            uint mc = ((e & 32767u) - 1u);
            uint mlen = (e >> (16u & 31u));
            uint off = (s - mc);
            uint ext_x = (((uint)(mlen == 16u)) ? (s + 16u) : 4091u);
            while (((uint)(ext_x < 4091u))) {
                barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
                uint ext_y = (ext_x + (4u * lane));
                uint ext_a_at = ext_y;
                uint ext_a_lo = vyre_load_local_uint(page, 1024u, ((ext_a_at >> (2u & 31u)) & 1023u));
                uint ext_a_hi = vyre_load_local_uint(page, 1024u, (((ext_a_at >> (2u & 31u)) + 1u) & 1023u));
                uint ext_a = (uint)(((((ulong)(ext_a_hi) << (32ul & 63ul)) | (ulong)(ext_a_lo)) >> ((ulong)(((ext_a_at & 3u) << (3u & 31u))) & 63ul)));
                uint ext_b_at = (ext_y - off);
                uint ext_b_lo = vyre_load_local_uint(page, 1024u, ((ext_b_at >> (2u & 31u)) & 1023u));
                uint ext_b_hi = vyre_load_local_uint(page, 1024u, (((ext_b_at >> (2u & 31u)) + 1u) & 1023u));
                uint ext_b = (uint)(((((ulong)(ext_b_hi) << (32ul & 63ul)) | (ulong)(ext_b_lo)) >> ((ulong)(((ext_b_at & 3u) << (3u & 31u))) & 63ul)));
                uint ext_d = (ext_a ^ ext_b);
                vyre_store_local_uint(bits, 32u, lane, (((uint)(ext_d != 0u)) ? (1u << (lb & 31u)) : 0u));
                vyre_store_local_uint(red, 32u, lane, (vyre_ctz_uint(ext_d) >> (3u & 31u)));
                barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
                uint miss1_grp = ((lid & 3u) * 8u);
                uint miss1_acc = (((vyre_load_local_uint(bits, 32u, miss1_grp) | vyre_load_local_uint(bits, 32u, (miss1_grp + 1u))) | (vyre_load_local_uint(bits, 32u, (miss1_grp + 2u)) | vyre_load_local_uint(bits, 32u, (miss1_grp + 3u)))) | ((vyre_load_local_uint(bits, 32u, (miss1_grp + 4u)) | vyre_load_local_uint(bits, 32u, (miss1_grp + 5u))) | (vyre_load_local_uint(bits, 32u, (miss1_grp + 6u)) | vyre_load_local_uint(bits, 32u, (miss1_grp + 7u)))));
                if (((uint)(lid < 4u))) {
                    vyre_store_local_uint(part, 4u, lane, miss1_acc);
                }
                barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
                uint miss1_m0 = (((vyre_load_local_uint(part, 4u, 0u) | vyre_load_local_uint(part, 4u, 1u)) | vyre_load_local_uint(part, 4u, 2u)) | vyre_load_local_uint(part, 4u, 3u));
                uint ext_f = 32u;
                uint ext_f_b0 = (miss1_m0 & 4294967295u);
                ext_f = (((uint)(ext_f_b0 != 0u)) ? (0u + vyre_ctz_uint(ext_f_b0)) : ext_f);
                uint ext_end = min(((ext_x + (4u * ext_f)) + vyre_load_local_uint(red, 32u, (ext_f & 31u))), 4091u);
                ext_x = (((uint)(ext_f < 32u)) ? 4091u : min((ext_x + 128u), 4091u));
                mlen = ((((uint)(ext_f < 32u)) ? ext_end : 4091u) - s);
            }
            uint q = s;
            if (((uint)((e & 32768u) != 0u))) {
                while (((uint)(((uint)(((uint)(q > anchor)) && ((uint)(mc > 0u)))) && ((uint)(((vyre_load_local_uint(page, 1024u, (((q - 1u) >> (2u & 31u)) & 1023u)) >> ((((q - 1u) & 3u) << (3u & 31u)) & 31u)) & 255u) == ((vyre_load_local_uint(page, 1024u, (((mc - 1u) >> (2u & 31u)) & 1023u)) >> ((((mc - 1u) & 3u) << (3u & 31u)) & 31u)) & 255u)))))) {
                    q = (q - 1u);
                    mc = (mc - 1u);
                    mlen = (mlen + 1u);
                }
            }
            uint ll = (q - anchor);
            uint mlx = (mlen - 4u);
            uint le = vyre_div_uint((ll + 240u), 255u);
            uint me = vyre_div_uint((mlx + 240u), 255u);
            uint need = (((3u + le) + ll) + me);
            if (((uint)(((emitted + need) + 1u) >= 4096u))) {
                stored = 1u;
            } else {
                if (((uint)(lid == 0u))) {
                    uint list_at = ((4u * count) & 63u);
                    vyre_store_local_uint(seqs, 64u, list_at, (anchor | (ll << (16u & 31u))));
                    vyre_store_local_uint(seqs, 64u, (list_at + 1u), (off | (mlx << (16u & 31u))));
                    vyre_store_local_uint(seqs, 64u, (list_at + 2u), emitted);
                    vyre_store_local_uint(seqs, 64u, (list_at + 3u), ((((min(ll, 15u) << (4u & 31u)) | min(mlx, 15u)) | (le << (8u & 31u))) | (me << (16u & 31u))));
                }
                count = (count + 1u);
                emitted = (emitted + need);
                anchor = (q + mlen);
                pos = anchor;
            }
            uint next0 = (starts0_m0 & (4294967295u << (((pos - c0) & 31u) & 31u)));
            ahead0 = next0;
        }
        pos = max(pos, (c0 + 32u));
        chunk = (chunk + 1u);
    }
    uint last_ll = (4096u - anchor);
    uint last_le = vyre_div_uint((last_ll + 240u), 255u);
    uint last_size = ((1u + last_le) + last_ll);
    if (((uint)((emitted + last_size) >= 4096u))) {
        stored = 1u;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    uint no_match = 0u;
    if (((uint)(stored == 0u))) {
        if (((uint)(lid == 0u))) {
            uint list_at = ((4u * count) & 63u);
            vyre_store_local_uint(seqs, 64u, list_at, (anchor | (last_ll << (16u & 31u))));
            vyre_store_local_uint(seqs, 64u, (list_at + 1u), (no_match | (no_match << (16u & 31u))));
            vyre_store_local_uint(seqs, 64u, (list_at + 2u), emitted);
            vyre_store_local_uint(seqs, 64u, (list_at + 3u), ((((min(last_ll, 15u) << (4u & 31u)) | min(no_match, 15u)) | (last_le << (8u & 31u))) | (no_match << (16u & 31u))));
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (((uint)(stored == 0u))) {
        uint tail_k0 = written;
        while (((uint)(tail_k0 < (emitted + last_size)))) {
            uint tail_o = (tail_k0 + lid);
            uint tail_at = 0u;
            uint tail_in8 = (uint)(((uint)((tail_at + 8u) < (count + 1u))));
            uint tail_bf8 = (uint)(((uint)(vyre_load_local_uint(seqs, 64u, (((4u * (tail_at + 8u)) + 2u) & 63u)) <= tail_o)));
            tail_at = (tail_at + (((uint)((tail_in8 & tail_bf8) != 0u)) ? 8u : 0u));
            uint tail_in4 = (uint)(((uint)((tail_at + 4u) < (count + 1u))));
            uint tail_bf4 = (uint)(((uint)(vyre_load_local_uint(seqs, 64u, (((4u * (tail_at + 4u)) + 2u) & 63u)) <= tail_o)));
            tail_at = (tail_at + (((uint)((tail_in4 & tail_bf4) != 0u)) ? 4u : 0u));
            uint tail_in2 = (uint)(((uint)((tail_at + 2u) < (count + 1u))));
            uint tail_bf2 = (uint)(((uint)(vyre_load_local_uint(seqs, 64u, (((4u * (tail_at + 2u)) + 2u) & 63u)) <= tail_o)));
            tail_at = (tail_at + (((uint)((tail_in2 & tail_bf2) != 0u)) ? 2u : 0u));
            uint tail_in1 = (uint)(((uint)((tail_at + 1u) < (count + 1u))));
            uint tail_bf1 = (uint)(((uint)(vyre_load_local_uint(seqs, 64u, (((4u * (tail_at + 1u)) + 2u) & 63u)) <= tail_o)));
            tail_at = (tail_at + (((uint)((tail_in1 & tail_bf1) != 0u)) ? 1u : 0u));
            uint tail_e0 = vyre_load_local_uint(seqs, 64u, ((4u * tail_at) & 63u));
            uint tail_e1 = vyre_load_local_uint(seqs, 64u, (((4u * tail_at) + 1u) & 63u));
            uint tail_e3 = vyre_load_local_uint(seqs, 64u, (((4u * tail_at) + 3u) & 63u));
            uint tail_kk = (tail_o - vyre_load_local_uint(seqs, 64u, (((4u * tail_at) + 2u) & 63u)));
            uint tail_ll = (tail_e0 >> (16u & 31u));
            uint tail_le = ((tail_e3 >> (8u & 31u)) & 255u);
            uint tail_me = (tail_e3 >> (16u & 31u));
            uint tail_li = ((tail_kk - 1u) - tail_le);
            uint tail_ai = (tail_li - tail_ll);
            uint tail_lit = ((vyre_load_local_uint(page, 1024u, ((((tail_e0 & 65535u) + tail_li) >> (2u & 31u)) & 1023u)) >> (((((tail_e0 & 65535u) + tail_li) & 3u) << (3u & 31u)) & 31u)) & 255u);
            uint tail_v = (tail_e3 & 255u);
            tail_v = (((uint)((tail_kk - 1u) < tail_le)) ? (((uint)(tail_kk < tail_le)) ? 255u : ((tail_ll - 15u) - (255u * (tail_le - 1u)))) : tail_v);
            tail_v = (((uint)(tail_li < tail_ll)) ? tail_lit : tail_v);
            tail_v = (((uint)(tail_ai < 2u)) ? ((tail_e1 >> ((tail_ai << (3u & 31u)) & 31u)) & 255u) : tail_v);
            tail_v = (((uint)((tail_ai - 2u) < tail_me)) ? (((uint)((tail_ai - 1u) < tail_me)) ? 255u : (((tail_e1 >> (16u & 31u)) - 15u) - (255u * (tail_me - 1u)))) : tail_v);
            if (((uint)(tail_o < (emitted + last_size)))) {
                vyre_store_global_uchar(output, output_len, (slot + tail_o), tail_v);
            }
            tail_k0 = (tail_k0 + 32u);
        }
        emitted = (emitted + last_size);
    }
    if (((uint)(stored != 0u))) {
        for (uint raw_t = 0u, vyre_end0 = 128u; raw_t < vyre_end0; ++raw_t) {
            uint raw_i = ((raw_t * 32u) + lane);
            vyre_store_global_uchar(output, output_len, (slot + raw_i), ((vyre_load_local_uint(page, 1024u, ((raw_i >> (2u & 31u)) & 1023u)) >> (((raw_i & 3u) << (3u & 31u)) & 31u)) & 255u));
        }
        if (((uint)(lid == 0u))) {
            vyre_store_global_uint(records, records_len, (page_index * 2u), 4096u);
            vyre_store_global_uint(records, records_len, ((page_index * 2u) + 1u), 1u);
        }
        return;
    }
    if (((uint)(lid == 0u))) {
        vyre_store_global_uint(records, records_len, (page_index * 2u), emitted);
        vyre_store_global_uint(records, records_len, ((page_index * 2u) + 1u), 0u);
    }
}
