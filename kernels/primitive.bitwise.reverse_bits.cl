// vyre program "primitive_bitwise_reverse_bits", lowered to OpenCL C 1.2
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_reverse_bits_uint(uint x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

static inline uint vyre_fn_reverse_bit_order(uint a) {
    return vyre_reverse_bits_uint(a);
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void primitive_bitwise_reverse_bits(
    __global const uint* input, const uint input_len,
    __global uint* output, const uint output_len,
    __constant uint* params, const uint params_len)
{
    uint i = (uint)get_global_id(0);
    if (((uint)(i < vyre_load_constant_uint(params, params_len, 0u)))) {
        vyre_store_global_uint(output, output_len, i, vyre_fn_reverse_bit_order(vyre_load_global_uint(input, input_len, ((i * 1u) + 0u))));
    }
}
