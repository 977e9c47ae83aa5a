// vyre program "primitive_bitwise_shr", lowered to OpenCL C 1.2
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

static inline uint vyre_fn_shift_right(uint a, uint b) {
    return (a >> (b & 31u));
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void primitive_bitwise_shr(
    __global const uint* input, const uint input_len,
    __global uint* output, const uint output_len,
    __constant uint* params, const uint params_len)
{
    uint i = (uint)get_global_id(0);
    if (((uint)(i < vyre_load_constant_uint(params, params_len, 0u)))) {
        vyre_store_global_uint(output, output_len, i, vyre_fn_shift_right(vyre_load_global_uint(input, input_len, ((i * 2u) + 0u)), vyre_load_global_uint(input, input_len, ((i * 2u) + 1u))));
    }
}
