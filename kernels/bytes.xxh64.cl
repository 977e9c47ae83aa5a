// vyre program "bytes_xxh64", lowered to OpenCL C 1.2
static inline uint vyre_div_uint(uint a, uint b) {
    return b == 0u ? a : a / b;
}
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
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
    __global const uint* data, const uint data_len,
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
    uint base = 0u;
    uint size = 0u;
    if (((uint)(range < vyre_load_constant_uint(params, params_len, 0u)))) {
        uint b = vyre_load_global_uint(ranges, ranges_len, (range * 2u));
        uint n = vyre_load_global_uint(ranges, ranges_len, ((range * 2u) + 1u));
        if (((uint)(((ulong)(b) + (ulong)(n)) <= ((ulong)(data_len) * 4ul)))) {
            base = b;
            size = n;
        }
    }
    uint live = ((uint)(range < vyre_load_constant_uint(params, params_len, 0u)));
    uint stripes = vyre_div_uint(size, 32u);
    ulong shift = (ulong)((vyre_mod_uint(base, 4u) * 8u));
    uint third = (((uint)(vyre_mod_uint(base, 4u) != 0u)) ? 2u : 1u);
    ulong acc = (((uint)(lane == 0u)) ? 6983438078262162902ul : (((uint)(lane == 1u)) ? 14029467366897019727ul : (((uint)(lane == 2u)) ? 0ul : 7046029288634856825ul)));
    uint first = (vyre_div_uint(base, 4u) + (lane * 2u));
    uint steps = vyre_div_uint(stripes, 32u);
    uint w0_0 = 0u;
    uint w1_0 = 0u;
    uint w2_0 = 0u;
    uint w0_1 = 0u;
    uint w1_1 = 0u;
    uint w2_1 = 0u;
    uint w0_2 = 0u;
    uint w1_2 = 0u;
    uint w2_2 = 0u;
    uint w0_3 = 0u;
    uint w1_3 = 0u;
    uint w2_3 = 0u;
    uint w0_4 = 0u;
    uint w1_4 = 0u;
    uint w2_4 = 0u;
    uint w0_5 = 0u;
    uint w1_5 = 0u;
    uint w2_5 = 0u;
    uint w0_6 = 0u;
    uint w1_6 = 0u;
    uint w2_6 = 0u;
    uint w0_7 = 0u;
    uint w1_7 = 0u;
    uint w2_7 = 0u;
    uint w0_8 = 0u;
    uint w1_8 = 0u;
    uint w2_8 = 0u;
    uint w0_9 = 0u;
    uint w1_9 = 0u;
    uint w2_9 = 0u;
    uint w0_10 = 0u;
    uint w1_10 = 0u;
    uint w2_10 = 0u;
    uint w0_11 = 0u;
    uint w1_11 = 0u;
    uint w2_11 = 0u;
    uint w0_12 = 0u;
    uint w1_12 = 0u;
    uint w2_12 = 0u;
    uint w0_13 = 0u;
    uint w1_13 = 0u;
    uint w2_13 = 0u;
    uint w0_14 = 0u;
    uint w1_14 = 0u;
    uint w2_14 = 0u;
    uint w0_15 = 0u;
    uint w1_15 = 0u;
    uint w2_15 = 0u;
    uint w0_16 = 0u;
    uint w1_16 = 0u;
    uint w2_16 = 0u;
    uint w0_17 = 0u;
    uint w1_17 = 0u;
    uint w2_17 = 0u;
    uint w0_18 = 0u;
    uint w1_18 = 0u;
    uint w2_18 = 0u;
    uint w0_19 = 0u;
    uint w1_19 = 0u;
    uint w2_19 = 0u;
    uint w0_20 = 0u;
    uint w1_20 = 0u;
    uint w2_20 = 0u;
    uint w0_21 = 0u;
    uint w1_21 = 0u;
    uint w2_21 = 0u;
    uint w0_22 = 0u;
    uint w1_22 = 0u;
    uint w2_22 = 0u;
    uint w0_23 = 0u;
    uint w1_23 = 0u;
    uint w2_23 = 0u;
    uint w0_24 = 0u;
    uint w1_24 = 0u;
    uint w2_24 = 0u;
    uint w0_25 = 0u;
    uint w1_25 = 0u;
    uint w2_25 = 0u;
    uint w0_26 = 0u;
    uint w1_26 = 0u;
    uint w2_26 = 0u;
    uint w0_27 = 0u;
    uint w1_27 = 0u;
    uint w2_27 = 0u;
    uint w0_28 = 0u;
    uint w1_28 = 0u;
    uint w2_28 = 0u;
    uint w0_29 = 0u;
    uint w1_29 = 0u;
    uint w2_29 = 0u;
    uint w0_30 = 0u;
    uint w1_30 = 0u;
    uint w2_30 = 0u;
    uint w0_31 = 0u;
    uint w1_31 = 0u;
    uint w2_31 = 0u;
    if (((uint)(steps != 0u))) {
        w0_0 = (data[(first + 0u)]);
        w1_0 = (data[(first + 1u)]);
        w2_0 = (data[((first + 0u) + third)]);
        w0_1 = (data[(first + 8u)]);
        w1_1 = (data[(first + 9u)]);
        w2_1 = (data[((first + 8u) + third)]);
        w0_2 = (data[(first + 16u)]);
        w1_2 = (data[(first + 17u)]);
        w2_2 = (data[((first + 16u) + third)]);
        w0_3 = (data[(first + 24u)]);
        w1_3 = (data[(first + 25u)]);
        w2_3 = (data[((first + 24u) + third)]);
        w0_4 = (data[(first + 32u)]);
        w1_4 = (data[(first + 33u)]);
        w2_4 = (data[((first + 32u) + third)]);
        w0_5 = (data[(first + 40u)]);
        w1_5 = (data[(first + 41u)]);
        w2_5 = (data[((first + 40u) + third)]);
        w0_6 = (data[(first + 48u)]);
        w1_6 = (data[(first + 49u)]);
        w2_6 = (data[((first + 48u) + third)]);
        w0_7 = (data[(first + 56u)]);
        w1_7 = (data[(first + 57u)]);
        w2_7 = (data[((first + 56u) + third)]);
        w0_8 = (data[(first + 64u)]);
        w1_8 = (data[(first + 65u)]);
        w2_8 = (data[((first + 64u) + third)]);
        w0_9 = (data[(first + 72u)]);
        w1_9 = (data[(first + 73u)]);
        w2_9 = (data[((first + 72u) + third)]);
        w0_10 = (data[(first + 80u)]);
        w1_10 = (data[(first + 81u)]);
        w2_10 = (data[((first + 80u) + third)]);
        w0_11 = (data[(first + 88u)]);
        w1_11 = (data[(first + 89u)]);
        w2_11 = (data[((first + 88u) + third)]);
        w0_12 = (data[(first + 96u)]);
        w1_12 = (data[(first + 97u)]);
        w2_12 = (data[((first + 96u) + third)]);
        w0_13 = (data[(first + 104u)]);
        w1_13 = (data[(first + 105u)]);
        w2_13 = (data[((first + 104u) + third)]);
        w0_14 = (data[(first + 112u)]);
        w1_14 = (data[(first + 113u)]);
        w2_14 = (data[((first + 112u) + third)]);
        w0_15 = (data[(first + 120u)]);
        w1_15 = (data[(first + 121u)]);
        w2_15 = (data[((first + 120u) + third)]);
        w0_16 = (data[(first + 128u)]);
        w1_16 = (data[(first + 129u)]);
        w2_16 = (data[((first + 128u) + third)]);
        w0_17 = (data[(first + 136u)]);
        w1_17 = (data[(first + 137u)]);
        w2_17 = (data[((first + 136u) + third)]);
        w0_18 = (data[(first + 144u)]);
        w1_18 = (data[(first + 145u)]);
        w2_18 = (data[((first + 144u) + third)]);
        w0_19 = (data[(first + 152u)]);
        w1_19 = (data[(first + 153u)]);
        w2_19 = (data[((first + 152u) + third)]);
        w0_20 = (data[(first + 160u)]);
        w1_20 = (data[(first + 161u)]);
        w2_20 = (data[((first + 160u) + third)]);
        w0_21 = (data[(first + 168u)]);
        w1_21 = (data[(first + 169u)]);
        w2_21 = (data[((first + 168u) + third)]);
        w0_22 = (data[(first + 176u)]);
        w1_22 = (data[(first + 177u)]);
        w2_22 = (data[((first + 176u) + third)]);
        w0_23 = (data[(first + 184u)]);
        w1_23 = (data[(first + 185u)]);
        w2_23 = (data[((first + 184u) + third)]);
        w0_24 = (data[(first + 192u)]);
        w1_24 = (data[(first + 193u)]);
        w2_24 = (data[((first + 192u) + third)]);
        w0_25 = (data[(first + 200u)]);
        w1_25 = (data[(first + 201u)]);
        w2_25 = (data[((first + 200u) + third)]);
        w0_26 = (data[(first + 208u)]);
        w1_26 = (data[(first + 209u)]);
        w2_26 = (data[((first + 208u) + third)]);
        w0_27 = (data[(first + 216u)]);
        w1_27 = (data[(first + 217u)]);
        w2_27 = (data[((first + 216u) + third)]);
        w0_28 = (data[(first + 224u)]);
        w1_28 = (data[(first + 225u)]);
        w2_28 = (data[((first + 224u) + third)]);
        w0_29 = (data[(first + 232u)]);
        w1_29 = (data[(first + 233u)]);
        w2_29 = (data[((first + 232u) + third)]);
        w0_30 = (data[(first + 240u)]);
        w1_30 = (data[(first + 241u)]);
        w2_30 = (data[((first + 240u) + third)]);
        w0_31 = (data[(first + 248u)]);
        w1_31 = (data[(first + 249u)]);
        w2_31 = (data[((first + 248u) + third)]);
    }
    for (uint step = 0u, vyre_end0 = steps; step < vyre_end0; ++step) {
        acc = ((((acc + (((((ulong)(w0_0) | ((ulong)(w1_0) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_0) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_0) | ((ulong)(w1_0) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_0) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_1) | ((ulong)(w1_1) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_1) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_1) | ((ulong)(w1_1) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_1) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_2) | ((ulong)(w1_2) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_2) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_2) | ((ulong)(w1_2) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_2) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_3) | ((ulong)(w1_3) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_3) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_3) | ((ulong)(w1_3) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_3) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_4) | ((ulong)(w1_4) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_4) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_4) | ((ulong)(w1_4) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_4) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_5) | ((ulong)(w1_5) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_5) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_5) | ((ulong)(w1_5) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_5) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_6) | ((ulong)(w1_6) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_6) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_6) | ((ulong)(w1_6) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_6) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_7) | ((ulong)(w1_7) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_7) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_7) | ((ulong)(w1_7) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_7) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_8) | ((ulong)(w1_8) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_8) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_8) | ((ulong)(w1_8) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_8) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_9) | ((ulong)(w1_9) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_9) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_9) | ((ulong)(w1_9) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_9) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_10) | ((ulong)(w1_10) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_10) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_10) | ((ulong)(w1_10) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_10) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_11) | ((ulong)(w1_11) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_11) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_11) | ((ulong)(w1_11) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_11) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_12) | ((ulong)(w1_12) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_12) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_12) | ((ulong)(w1_12) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_12) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_13) | ((ulong)(w1_13) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_13) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_13) | ((ulong)(w1_13) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_13) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_14) | ((ulong)(w1_14) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_14) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_14) | ((ulong)(w1_14) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_14) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_15) | ((ulong)(w1_15) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_15) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_15) | ((ulong)(w1_15) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_15) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_16) | ((ulong)(w1_16) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_16) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_16) | ((ulong)(w1_16) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_16) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_17) | ((ulong)(w1_17) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_17) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_17) | ((ulong)(w1_17) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_17) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_18) | ((ulong)(w1_18) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_18) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_18) | ((ulong)(w1_18) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_18) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_19) | ((ulong)(w1_19) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_19) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_19) | ((ulong)(w1_19) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_19) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_20) | ((ulong)(w1_20) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_20) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_20) | ((ulong)(w1_20) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_20) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_21) | ((ulong)(w1_21) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_21) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_21) | ((ulong)(w1_21) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_21) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_22) | ((ulong)(w1_22) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_22) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_22) | ((ulong)(w1_22) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_22) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_23) | ((ulong)(w1_23) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_23) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_23) | ((ulong)(w1_23) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_23) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_24) | ((ulong)(w1_24) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_24) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_24) | ((ulong)(w1_24) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_24) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_25) | ((ulong)(w1_25) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_25) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_25) | ((ulong)(w1_25) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_25) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_26) | ((ulong)(w1_26) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_26) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_26) | ((ulong)(w1_26) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_26) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_27) | ((ulong)(w1_27) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_27) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_27) | ((ulong)(w1_27) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_27) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_28) | ((ulong)(w1_28) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_28) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_28) | ((ulong)(w1_28) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_28) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_29) | ((ulong)(w1_29) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_29) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_29) | ((ulong)(w1_29) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_29) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_30) | ((ulong)(w1_30) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_30) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_30) | ((ulong)(w1_30) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_30) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        acc = ((((acc + (((((ulong)(w0_31) | ((ulong)(w1_31) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_31) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)(w0_31) | ((ulong)(w1_31) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)(w2_31) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
        uint at_next = (((uint)((step + 1u) < steps)) ? (first + ((step + 1u) * 256u)) : first);
        w0_0 = (data[(at_next + 0u)]);
        w1_0 = (data[(at_next + 1u)]);
        w2_0 = (data[((at_next + 0u) + third)]);
        w0_1 = (data[(at_next + 8u)]);
        w1_1 = (data[(at_next + 9u)]);
        w2_1 = (data[((at_next + 8u) + third)]);
        w0_2 = (data[(at_next + 16u)]);
        w1_2 = (data[(at_next + 17u)]);
        w2_2 = (data[((at_next + 16u) + third)]);
        w0_3 = (data[(at_next + 24u)]);
        w1_3 = (data[(at_next + 25u)]);
        w2_3 = (data[((at_next + 24u) + third)]);
        w0_4 = (data[(at_next + 32u)]);
        w1_4 = (data[(at_next + 33u)]);
        w2_4 = (data[((at_next + 32u) + third)]);
        w0_5 = (data[(at_next + 40u)]);
        w1_5 = (data[(at_next + 41u)]);
        w2_5 = (data[((at_next + 40u) + third)]);
        w0_6 = (data[(at_next + 48u)]);
        w1_6 = (data[(at_next + 49u)]);
        w2_6 = (data[((at_next + 48u) + third)]);
        w0_7 = (data[(at_next + 56u)]);
        w1_7 = (data[(at_next + 57u)]);
        w2_7 = (data[((at_next + 56u) + third)]);
        w0_8 = (data[(at_next + 64u)]);
        w1_8 = (data[(at_next + 65u)]);
        w2_8 = (data[((at_next + 64u) + third)]);
        w0_9 = (data[(at_next + 72u)]);
        w1_9 = (data[(at_next + 73u)]);
        w2_9 = (data[((at_next + 72u) + third)]);
        w0_10 = (data[(at_next + 80u)]);
        w1_10 = (data[(at_next + 81u)]);
        w2_10 = (data[((at_next + 80u) + third)]);
        w0_11 = (data[(at_next + 88u)]);
        w1_11 = (data[(at_next + 89u)]);
        w2_11 = (data[((at_next + 88u) + third)]);
        w0_12 = (data[(at_next + 96u)]);
        w1_12 = (data[(at_next + 97u)]);
        w2_12 = (data[((at_next + 96u) + third)]);
        w0_13 = (data[(at_next + 104u)]);
        w1_13 = (data[(at_next + 105u)]);
        w2_13 = (data[((at_next + 104u) + third)]);
        w0_14 = (data[(at_next + 112u)]);
        w1_14 = (data[(at_next + 113u)]);
        w2_14 = (data[((at_next + 112u) + third)]);
        w0_15 = (data[(at_next + 120u)]);
        w1_15 = (data[(at_next + 121u)]);
        w2_15 = (data[((at_next + 120u) + third)]);
        w0_16 = (data[(at_next + 128u)]);
        w1_16 = (data[(at_next + 129u)]);
        w2_16 = (data[((at_next + 128u) + third)]);
        w0_17 = (data[(at_next + 136u)]);
        w1_17 = (data[(at_next + 137u)]);
        w2_17 = (data[((at_next + 136u) + third)]);
        w0_18 = (data[(at_next + 144u)]);
        w1_18 = (data[(at_next + 145u)]);
        w2_18 = (data[((at_next + 144u) + third)]);
        w0_19 = (data[(at_next + 152u)]);
        w1_19 = (data[(at_next + 153u)]);
        w2_19 = (data[((at_next + 152u) + third)]);
        w0_20 = (data[(at_next + 160u)]);
        w1_20 = (data[(at_next + 161u)]);
        w2_20 = (data[((at_next + 160u) + third)]);
        w0_21 = (data[(at_next + 168u)]);
        w1_21 = (data[(at_next + 169u)]);
        w2_21 = (data[((at_next + 168u) + third)]);
        w0_22 = (data[(at_next + 176u)]);
        w1_22 = (data[(at_next + 177u)]);
        w2_22 = (data[((at_next + 176u) + third)]);
        w0_23 = (data[(at_next + 184u)]);
        w1_23 = (data[(at_next + 185u)]);
        w2_23 = (data[((at_next + 184u) + third)]);
        w0_24 = (data[(at_next + 192u)]);
        w1_24 = (data[(at_next + 193u)]);
        w2_24 = (data[((at_next + 192u) + third)]);
        w0_25 = (data[(at_next + 200u)]);
        w1_25 = (data[(at_next + 201u)]);
        w2_25 = (data[((at_next + 200u) + third)]);
        w0_26 = (data[(at_next + 208u)]);
        w1_26 = (data[(at_next + 209u)]);
        w2_26 = (data[((at_next + 208u) + third)]);
        w0_27 = (data[(at_next + 216u)]);
        w1_27 = (data[(at_next + 217u)]);
        w2_27 = (data[((at_next + 216u) + third)]);
        w0_28 = (data[(at_next + 224u)]);
        w1_28 = (data[(at_next + 225u)]);
        w2_28 = (data[((at_next + 224u) + third)]);
        w0_29 = (data[(at_next + 232u)]);
        w1_29 = (data[(at_next + 233u)]);
        w2_29 = (data[((at_next + 232u) + third)]);
        w0_30 = (data[(at_next + 240u)]);
        w1_30 = (data[(at_next + 241u)]);
        w2_30 = (data[((at_next + 240u) + third)]);
        w0_31 = (data[(at_next + 248u)]);
        w1_31 = (data[(at_next + 249u)]);
        w2_31 = (data[((at_next + 248u) + third)]);
    }
    for (uint s = (steps * 32u), vyre_end0 = stripes; s < vyre_end0; ++s) {
        uint at_stripe = (first + (s * 8u));
        acc = ((((acc + (((((ulong)((data[at_stripe])) | ((ulong)((data[(at_stripe + 1u)])) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)((data[(at_stripe + third)])) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((acc + (((((ulong)((data[at_stripe])) | ((ulong)((data[(at_stripe + 1u)])) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)((data[(at_stripe + third)])) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul);
    }
    vyre_store_local_ulong(accumulators, 64u, (uint)get_local_id(0), acc);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (((uint)(live && ((uint)(lane == 0u))))) {
        uint mine = (uint)get_local_id(0);
        ulong h = 2870177450012600261ul;
        if (((uint)(stripes != 0u))) {
            ulong v1 = vyre_load_local_ulong(accumulators, 64u, mine);
            ulong v2 = vyre_load_local_ulong(accumulators, 64u, (mine + 1u));
            ulong v3 = vyre_load_local_ulong(accumulators, 64u, (mine + 2u));
            ulong v4 = vyre_load_local_ulong(accumulators, 64u, (mine + 3u));
            h = (((((v1 << (1ul & 63ul)) | (v1 >> (63ul & 63ul))) + ((v2 << (7ul & 63ul)) | (v2 >> (57ul & 63ul)))) + ((v3 << (12ul & 63ul)) | (v3 >> (52ul & 63ul)))) + ((v4 << (18ul & 63ul)) | (v4 >> (46ul & 63ul))));
            h = (((h ^ ((((0ul + (v1 * 14029467366897019727ul)) << (31ul & 63ul)) | ((0ul + (v1 * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul)) * 11400714785074694791ul) + 9650029242287828579ul);
            h = (((h ^ ((((0ul + (v2 * 14029467366897019727ul)) << (31ul & 63ul)) | ((0ul + (v2 * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul)) * 11400714785074694791ul) + 9650029242287828579ul);
            h = (((h ^ ((((0ul + (v3 * 14029467366897019727ul)) << (31ul & 63ul)) | ((0ul + (v3 * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul)) * 11400714785074694791ul) + 9650029242287828579ul);
            h = (((h ^ ((((0ul + (v4 * 14029467366897019727ul)) << (31ul & 63ul)) | ((0ul + (v4 * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul)) * 11400714785074694791ul) + 9650029242287828579ul);
        }
        h = (h + (ulong)(size));
        uint at = (base + (stripes * 32u));
        uint end = (base + size);
        while (((uint)((at + 8u) <= end))) {
            uint w_tail = vyre_div_uint(at, 4u);
            h = (((((h ^ ((((0ul + (((((ulong)((data[w_tail])) | ((ulong)((data[(w_tail + 1u)])) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)((data[(w_tail + third)])) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((0ul + (((((ulong)((data[w_tail])) | ((ulong)((data[(w_tail + 1u)])) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)((data[(w_tail + third)])) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul)) << (27ul & 63ul)) | ((h ^ ((((0ul + (((((ulong)((data[w_tail])) | ((ulong)((data[(w_tail + 1u)])) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)((data[(w_tail + third)])) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) << (31ul & 63ul)) | ((0ul + (((((ulong)((data[w_tail])) | ((ulong)((data[(w_tail + 1u)])) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)((data[(w_tail + third)])) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) * 14029467366897019727ul)) >> (33ul & 63ul))) * 11400714785074694791ul)) >> (37ul & 63ul))) * 11400714785074694791ul) + 9650029242287828579ul);
            at = (at + 8u);
        }
        if (((uint)((at + 4u) <= end))) {
            uint w_word = vyre_div_uint(at, 4u);
            ulong word = (((((ulong)((data[w_word])) | ((ulong)((data[((w_word + third) - 1u)])) << (32ul & 63ul))) >> (shift & 63ul)) | (((ulong)((data[w_word])) << (1ul & 63ul)) << ((63ul - shift) & 63ul))) & 4294967295ul);
            h = (((((h ^ (word * 11400714785074694791ul)) << (23ul & 63ul)) | ((h ^ (word * 11400714785074694791ul)) >> (41ul & 63ul))) * 14029467366897019727ul) + 1609587929392839161ul);
            at = (at + 4u);
        }
        while (((uint)(at < end))) {
            h = ((((h ^ ((ulong)((((data[vyre_div_uint(at, 4u)]) >> ((vyre_mod_uint(at, 4u) * 8u) & 31u)) & 255u)) * 2870177450012600261ul)) << (11ul & 63ul)) | ((h ^ ((ulong)((((data[vyre_div_uint(at, 4u)]) >> ((vyre_mod_uint(at, 4u) * 8u) & 31u)) & 255u)) * 2870177450012600261ul)) >> (53ul & 63ul))) * 11400714785074694791ul);
            at = (at + 1u);
        }
        h = ((h ^ (h >> (33ul & 63ul))) * 14029467366897019727ul);
        h = ((h ^ (h >> (29ul & 63ul))) * 1609587929392839161ul);
        h = (h ^ (h >> (32ul & 63ul)));
        vyre_store_global_uint(digests, digests_len, (range * 2u), (uint)(h));
        vyre_store_global_uint(digests, digests_len, ((range * 2u) + 1u), (uint)((h >> (32ul & 63ul))));
    }
}
