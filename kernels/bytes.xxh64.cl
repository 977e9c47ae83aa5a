// vyre program "bytes_xxh64", lowered to OpenCL C 1.2
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
static inline ulong vyre_load_local_ulong(const __local ulong* b, uint n, uint i) {
    return i < n ? b[i] : 0ul;
}
static inline uint vyre_mod_uint(uint a, uint b) {
    return b == 0u ? 0u : a % b;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}
static inline void vyre_store_local_ulong(__local ulong* b, uint n, uint i, ulong v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void bytes_xxh64(
    __global const uchar* data, const uint data_len,
    __global const uint* ranges, const uint ranges_len,
    __global uint* digests, const uint digests_len,
    __constant uint* params, const uint params_len)
{
    __local ulong accumulators[64];
    {
        const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
        const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
        for (uint vyre_i = vyre_lid; vyre_i < 64u; vyre_i += vyre_lsize) accumulators[vyre_i] = 0ul;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint id = (uint)get_global_id(0);
    uint range = vyre_div_uint(id, 4u);
    uint lane = vyre_mod_uint(id, 4u);
    uint live = ((uint)(range < vyre_load_constant_uint(params, params_len, 0u)));
    uint base = (live ? vyre_load_global_uint(ranges, ranges_len, (range * 2u)) : 0u);
    uint size = (live ? vyre_load_global_uint(ranges, ranges_len, ((range * 2u) + 1u)) : 0u);
    uint stripes = vyre_div_uint(size, 32u);
    ulong acc = (((uint)(lane == 0u)) ? 6983438078262162902ul : (((uint)(lane == 1u)) ? 14029467366897019727ul : (((uint)(lane == 2u)) ? 0ul : 7046029288634856825ul)));
    for (uint s = 0u, vyre_end0 = stripes; s < vyre_end0; ++s) {
        ulong v_stripe = 0ul;
        for (uint b_stripe = 0u, vyre_end1 = 8u; b_stripe < vyre_end1; ++b_stripe) {
            v_stripe = (v_stripe | ((ulong)(vyre_load_global_uchar(data, data_len, (((base + (s * 32u)) + (lane * 8u)) + b_stripe))) << ((ulong)((b_stripe * 8u)) & 63ul)));
        }
        acc = ((((acc + (v_stripe * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (v_stripe * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
    }
    vyre_store_local_ulong(accumulators, 64u, (uint)get_local_id(0), acc);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (((uint)(live && ((uint)(lane == 0u))))) {
        uint first = (uint)get_local_id(0);
        ulong h = 2870177450012600261ul;
        if (((uint)(stripes != 0u))) {
            ulong v1 = vyre_load_local_ulong(accumulators, 64u, first);
            ulong v2 = vyre_load_local_ulong(accumulators, 64u, (first + 1u));
            ulong v3 = vyre_load_local_ulong(accumulators, 64u, (first + 2u));
            ulong v4 = vyre_load_local_ulong(accumulators, 64u, (first + 3u));
            h = (((((v1 << (1ul & 63ul)) | (v1 >> (63ul & 63ul))) + ((v2 << (7ul & 63ul)) | (v2 >> (57ul & 63ul)))) + ((v3 << (12ul & 63ul)) | (v3 >> (52ul & 63ul)))) + ((v4 << (18ul & 63ul)) | (v4 >> (46ul & 63ul))));
            h = (((h ^ ((((0ul + (v1 * 14029467366897019727ul)) << (31ul & 63ul)) | ((0ul + (v1 * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul)) * 11400714785074694791ul) + 9650029242287828579ul);
            h = (((h ^ ((((0ul + (v2 * 14029467366897019727ul)) << (31ul & 63ul)) | ((0ul + (v2 * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul)) * 11400714785074694791ul) + 9650029242287828579ul);
            h = (((h ^ ((((0ul + (v3 * 14029467366897019727ul)) << (31ul & 63ul)) | ((0ul + (v3 * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul)) * 11400714785074694791ul) + 9650029242287828579ul);
            h = (((h ^ ((((0ul + (v4 * 14029467366897019727ul)) << (31ul & 63ul)) | ((0ul + (v4 * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul)) * 11400714785074694791ul) + 9650029242287828579ul);
        }
        h = (h + (ulong)(size));
        uint at = (stripes * 32u);
        while (((uint)((at + 8u) <= size))) {
            ulong v_tail = 0ul;
            for (uint b_tail = 0u, vyre_end1 = 8u; b_tail < vyre_end1; ++b_tail) {
                v_tail = (v_tail | ((ulong)(vyre_load_global_uchar(data, data_len, ((base + at) + b_tail))) << ((ulong)((b_tail * 8u)) & 63ul)));
            }
            h = (((((h ^ ((((0ul + (v_tail * 14029467366897019727ul)) << (31ul & 63ul)) | ((0ul + (v_tail * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul)) << (27ul & 63ul)) | ((h ^ ((((0ul + (v_tail * 14029467366897019727ul)) << (31ul & 63ul)) | ((0ul + (v_tail * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul)) >> (37ul & 63ul))) * 11400714785074694791ul) + 9650029242287828579ul);
            at = (at + 8u);
        }
        if (((uint)((at + 4u) <= size))) {
            ulong word = 0ul;
            for (uint b = 0u, vyre_end0 = 4u; b < vyre_end0; ++b) {
                word = (word | ((ulong)(vyre_load_global_uchar(data, data_len, ((base + at) + b))) << ((ulong)((b * 8u)) & 63ul)));
            }
            h = (((((h ^ (word * 11400714785074694791ul)) << (23ul & 63ul)) | ((h ^ (word * 11400714785074694791ul)) >> (41ul & 63ul))) * 14029467366897019727ul) + 1609587929392839161ul);
            at = (at + 4u);
        }
        while (((uint)(at < size))) {
            h = ((((h ^ ((ulong)(vyre_load_global_uchar(data, data_len, (base + at))) * 2870177450012600261ul)) << (11ul & 63ul)) | ((h ^ ((ulong)(vyre_load_global_uchar(data, data_len, (base + at))) * 2870177450012600261ul)) >> (53ul & 63ul))) * 11400714785074694791ul);
            at = (at + 1u);
        }
        h = ((h ^ (h >> (33ul & 63ul))) * 14029467366897019727ul);
        h = ((h ^ (h >> (29ul & 63ul))) * 1609587929392839161ul);
        h = (h ^ (h >> (32ul & 63ul)));
        vyre_store_global_uint(digests, digests_len, (range * 2u), (uint)(h));
        vyre_store_global_uint(digests, digests_len, ((range * 2u) + 1u), (uint)((h >> (32ul & 63ul))));
    }
}
