// vyre program "compression_deflate_join", lowered to OpenCL C 1.2
static inline uint vyre_div_uint(uint a, uint b) {
    return b == 0u ? a : a / b;
}
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_mod_uint(uint a, uint b) {
    return b == 0u ? 0u : a % b;
}
static inline void vyre_store_global_uchar(__global uchar* b, uint words, uint i, uint v) {
    if ((i >> 2) < words) b[i] = (uchar)v;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void compression_deflate_join(
    __global const uint* elements, const uint elements_len,
    __global const uint* pieces, const uint pieces_len,
    __global const uint* statuses, const uint statuses_len,
    __global const uint* destinations, const uint destinations_len,
    __global uchar* output, const uint output_len,
    __global uint* failures, const uint failures_len,
    __constant uint* params, const uint params_len)
{
    uint piece = vyre_div_uint((uint)get_group_id(0), vyre_load_constant_uint(params, params_len, 1u));
    uint slice = vyre_mod_uint((uint)get_group_id(0), vyre_load_constant_uint(params, params_len, 1u));
    if (((uint)(piece < vyre_load_constant_uint(params, params_len, 0u)))) {
        uint base = vyre_load_global_uint(pieces, pieces_len, ((piece * 7u) + 4u));
        uint window = vyre_load_global_uint(pieces, pieces_len, ((piece * 7u) + 6u));
        uint count = (vyre_load_global_uint(statuses, statuses_len, ((piece * 4u) + 1u)) - window);
        uint share = (vyre_div_uint(count, vyre_load_constant_uint(params, params_len, 1u)) + 1u);
        uint from = min(count, (slice * share));
        uint to = min(count, (from + share));
        uint j = (from + (uint)get_local_id(0));
        while (((uint)(j < to))) {
            uint v = vyre_load_global_uint(elements, elements_len, ((base + window) + j));
            uint at = piece;
            while (((uint)(v >= 256u))) {
                uint w = (v - 256u);
                if (((uint)(((uint)(at == 0u)) || ((uint)(w >= 32768u))))) {
                    v = 4294967295u;
                    break;
                }
                at = (at - 1u);
                uint previous_written = vyre_load_global_uint(statuses, statuses_len, ((at * 4u) + 1u));
                if (((uint)((previous_written + w) < 32768u))) {
                    v = 4294967295u;
                    break;
                }
                v = vyre_load_global_uint(elements, elements_len, (((vyre_load_global_uint(pieces, pieces_len, ((at * 7u) + 4u)) + previous_written) - 32768u) + w));
            }
            if (((uint)(v >= 256u))) {
                vyre_store_global_uint(failures, failures_len, piece, 1u);
            }
            vyre_store_global_uchar(output, output_len, (vyre_load_global_uint(destinations, destinations_len, piece) + j), v);
            j = (j + 256u);
        }
    }
}
