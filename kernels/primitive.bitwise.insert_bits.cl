// vyre program "primitive_bitwise_insert_bits", lowered to OpenCL C 1.2
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

static inline uint vyre_fn_insert_bit_field(uint a, uint b, uint offset, uint count) {
    return ((a & (~((((uint)(min(count, (32u - min(offset, 32u))) >= 32u)) ? 4294967295u : ((1u << (min(count, (32u - min(offset, 32u))) & 31u)) - 1u)) << (min(offset, 32u) & 31u)))) | ((b << (min(offset, 32u) & 31u)) & ((((uint)(min(count, (32u - min(offset, 32u))) >= 32u)) ? 4294967295u : ((1u << (min(count, (32u - min(offset, 32u))) & 31u)) - 1u)) << (min(offset, 32u) & 31u))));
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void primitive_bitwise_insert_bits(
    __global const uint* input, const uint input_len,
    __global uint* output, const uint output_len,
    __constant uint* params, const uint params_len)
{
    uint i = (uint)get_global_id(0);
    if (((uint)(i < vyre_load_constant_uint(params, params_len, 0u)))) {
        vyre_store_global_uint(output, output_len, i, vyre_fn_insert_bit_field(vyre_load_global_uint(input, input_len, ((i * 4u) + 0u)), vyre_load_global_uint(input, input_len, ((i * 4u) + 1u)), vyre_load_global_uint(input, input_len, ((i * 4u) + 2u)), vyre_load_global_uint(input, input_len, ((i * 4u) + 3u))));
    }
}
