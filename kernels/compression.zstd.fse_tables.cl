// vyre program "compression_zstd_fse_tables", lowered to OpenCL C 1.2
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
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}
static inline void vyre_store_local_uint(__local uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void compression_zstd_fse_tables(
    __global const uint* descriptions, const uint descriptions_len,
    __global uint* tables, const uint tables_len,
    __constant uint* params, const uint params_len)
{
    __local uint next[3392];
    {
        const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
        const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
        for (uint vyre_i = vyre_lid; vyre_i < 3392u; vyre_i += vyre_lsize) next[vyre_i] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint id = (uint)get_global_id(0);
    uint lane = (uint)get_local_id(0);
    uint base = (id * 29u);
    uint at = (((uint)(id < vyre_load_constant_uint(params, params_len, 0u))) ? vyre_load_global_uint(descriptions, descriptions_len, base) : 4294967295u);
    uint words = vyre_load_constant_uint(params, params_len, 1u);
    if (((uint)(at < words))) {
        uint head = vyre_load_global_uint(descriptions, descriptions_len, (base + 1u));
        uint log = (head & 255u);
        uint n = (head >> (8u & 31u));
        uint size = (1u << ((((uint)(log <= 9u)) ? log : 0u) & 31u));
        uint ok = ((uint)(((uint)(((uint)(((uint)(log >= 5u)) && ((uint)(log <= 9u)))) && ((uint)(n <= 53u)))) && ((uint)(size < (words - at)))));
        uint total = 0u;
        for (uint s = 0u, vyre_end0 = (ok ? n : 0u); s < vyre_end0; ++s) {
            uint h_sum = ((vyre_load_global_uint(descriptions, descriptions_len, ((base + 2u) + vyre_div_uint(s, 2u))) >> (((s & 1u) * 16u) & 31u)) & 65535u);
            total = (total + (((uint)(h_sum == 65535u)) ? 1u : (((uint)(h_sum < 32768u)) ? h_sum : 0u)));
            ok = ((uint)(ok && ((uint)(((uint)(h_sum < 32768u)) || ((uint)(h_sum == 65535u))))));
        }
        ok = ((uint)(ok && ((uint)(total == size))));
        uint high = (size - 1u);
        for (uint l = 0u, vyre_end0 = (ok ? n : 0u); l < vyre_end0; ++l) {
            uint h_low = ((vyre_load_global_uint(descriptions, descriptions_len, ((base + 2u) + vyre_div_uint(l, 2u))) >> (((l & 1u) * 16u) & 31u)) & 65535u);
            if (((uint)(h_low == 65535u))) {
                vyre_store_global_uint(tables, tables_len, ((at + 1u) + high), l);
                high = (high - 1u);
            }
            vyre_store_local_uint(next, 3392u, ((l * 64u) + lane), (((uint)(h_low == 65535u)) ? 1u : h_low));
        }
        uint step = (((size >> (1u & 31u)) + (size >> (3u & 31u))) + 3u);
        uint pos = 0u;
        for (uint p = 0u, vyre_end0 = (ok ? n : 0u); p < vyre_end0; ++p) {
            uint h_spread = ((vyre_load_global_uint(descriptions, descriptions_len, ((base + 2u) + vyre_div_uint(p, 2u))) >> (((p & 1u) * 16u) & 31u)) & 65535u);
            for (uint i = 0u, vyre_end1 = (((uint)(h_spread < 32768u)) ? h_spread : 0u); i < vyre_end1; ++i) {
                vyre_store_global_uint(tables, tables_len, ((at + 1u) + pos), p);
                pos = ((pos + step) & (size - 1u));
                while (((uint)(pos > high))) {
                    pos = ((pos + step) & (size - 1u));
                }
            }
        }
        ok = ((uint)(ok && ((uint)(pos == 0u))));
        for (uint u = 0u, vyre_end0 = (ok ? size : 0u); u < vyre_end0; ++u) {
            uint symbol = vyre_load_global_uint(tables, tables_len, ((at + 1u) + u));
            uint state = vyre_load_local_uint(next, 3392u, ((symbol * 64u) + lane));
            vyre_store_local_uint(next, 3392u, ((symbol * 64u) + lane), (state + 1u));
            uint bits = (log - (31u - clz(state)));
            vyre_store_global_uint(tables, tables_len, ((at + 1u) + u), ((bits | (symbol << (4u & 31u))) | (((state << (bits & 31u)) - size) << (10u & 31u))));
        }
        vyre_store_global_uint(tables, tables_len, at, (ok ? log : 4294967295u));
    }
}
