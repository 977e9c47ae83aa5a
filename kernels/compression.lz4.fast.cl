// vyre program "compression_lz4_fast", lowered to OpenCL C 1.2
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
static inline uint vyre_mod_uint(uint a, uint b) {
    return b == 0u ? 0u : a % b;
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
void compression_lz4_fast(
    __global const uchar* input, const uint input_len,
    __global const uint* descriptors, const uint descriptors_len,
    __global uchar* output, const uint output_len,
    __global uint* statuses, const uint statuses_len,
    __constant uint* params, const uint params_len)
{
    __local uint has_work[8];
    {
        const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
        const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
        for (uint vyre_i = vyre_lid; vyre_i < 8u; vyre_i += vyre_lsize) has_work[vyre_i] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint lid = (uint)get_local_id(0);
    uint lane = (lid & 7u);
    uint group = (lid >> (3u & 31u));
    uint block_index = (((uint)get_group_id(0) * 4u) + group);
    uint block_count = vyre_load_constant_uint(params, params_len, 0u);
    uint in_base = 0u;
    uint in_size = 0u;
    uint out_base = 0u;
    uint capacity = 0u;
    uint code = 0u;
    uint ip = 0u;
    uint op = 0u;
    uint state = 2u;
    uint token = 0u;
    if (((uint)(block_index < block_count))) {
        in_base = vyre_load_global_uint(descriptors, descriptors_len, (block_index * 5u));
        in_size = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 1u));
        out_base = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 2u));
        capacity = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 3u));
        uint block_flags = vyre_load_global_uint(descriptors, descriptors_len, ((block_index * 5u) + 4u));
        uint input_bytes = vyre_load_constant_uint(params, params_len, 1u);
        uint output_bytes = vyre_load_constant_uint(params, params_len, 2u);
        if (((uint)(((uint)(in_base > input_bytes)) || ((uint)(in_size > (input_bytes - in_base)))))) {
            code = 4u;
        } else {
            if (((uint)(((uint)(out_base > output_bytes)) || ((uint)(capacity > (output_bytes - out_base)))))) {
                code = 3u;
            } else {
                if (((uint)((block_flags & 1u) != 0u))) {
                    if (((uint)(in_size > capacity))) {
                        code = 3u;
                    } else {
                        state = 1u;
                    }
                } else {
                    if (((uint)(in_size > 0u))) {
                        state = 0u;
                        token = vyre_load_global_uchar(input, input_len, in_base);
                    }
                }
            }
        }
    }
    uint batch_base = 0u;
    uint batch_total = 0u;
    uint batch_done = 0u;
    uint rec_start0 = 0u;
    uint rec_mstart0 = 0u;
    uint rec_end0 = 4294967295u;
    uint rec_src0 = 0u;
    uint rec_off0 = 1u;
    uint rec_start1 = 0u;
    uint rec_mstart1 = 0u;
    uint rec_end1 = 4294967295u;
    uint rec_src1 = 0u;
    uint rec_off1 = 1u;
    uint parity = 0u;
    uint any_work = 0u;
    uint j = 0u;
    while (1u) {
        if (((uint)(batch_done >= batch_total))) {
            batch_done = 0u;
            batch_total = 0u;
            batch_base = (out_base + op);
            rec_end0 = 4294967295u;
            rec_end1 = 4294967295u;
            if (((uint)(state == 1u))) {
                rec_start0 = 0u;
                rec_src0 = in_base;
                rec_mstart0 = in_size;
                rec_end0 = in_size;
                batch_total = in_size;
                op = in_size;
                state = 2u;
            }
            if (((uint)(state == 0u))) {
                ip = (ip + 1u);
                uint literal_length0 = (token >> (4u & 31u));
                uint error0 = 0u;
                if (((uint)(literal_length0 == 15u))) {
                    uint literal_extra0 = 255u;
                    while (((uint)(literal_extra0 == 255u))) {
                        if (((uint)(ip == in_size))) {
                            error0 = 1u;
                            break;
                        }
                        literal_extra0 = vyre_load_global_uchar(input, input_len, (in_base + ip));
                        ip = (ip + 1u);
                        literal_length0 = (((uint)(literal_length0 > (4294967295u - literal_extra0))) ? 4294967295u : (literal_length0 + literal_extra0));
                    }
                }
                if (((uint)(((uint)(error0 == 0u)) && ((uint)(literal_length0 > (in_size - ip)))))) {
                    error0 = 4u;
                }
                if (((uint)(((uint)(error0 == 0u)) && ((uint)(literal_length0 > (capacity - op)))))) {
                    error0 = 3u;
                }
                if (((uint)(error0 != 0u))) {
                    code = error0;
                    state = 2u;
                } else {
                    rec_start0 = batch_total;
                    rec_src0 = (in_base + ip);
                    batch_total = (batch_total + literal_length0);
                    rec_mstart0 = batch_total;
                    rec_end0 = batch_total;
                    ip = (ip + literal_length0);
                    op = (op + literal_length0);
                    if (((uint)(ip == in_size))) {
                        state = 2u;
                    } else {
                        if (((uint)((in_size - ip) < 2u))) {
                            code = 1u;
                            state = 2u;
                        } else {
                            uint offset0 = (vyre_load_global_uchar(input, input_len, (in_base + ip)) | (vyre_load_global_uchar(input, input_len, ((in_base + ip) + 1u)) << (8u & 31u)));
                            ip = (ip + 2u);
                            uint match_length0 = ((token & 15u) + 4u);
                            if (((uint)(match_length0 == 19u))) {
                                uint match_extra0 = 255u;
                                while (((uint)(match_extra0 == 255u))) {
                                    if (((uint)(ip == in_size))) {
                                        error0 = 1u;
                                        break;
                                    }
                                    match_extra0 = vyre_load_global_uchar(input, input_len, (in_base + ip));
                                    ip = (ip + 1u);
                                    match_length0 = (((uint)(match_length0 > (4294967295u - match_extra0))) ? 4294967295u : (match_length0 + match_extra0));
                                }
                            }
                            if (((uint)(error0 != 0u))) {
                                code = error0;
                                state = 2u;
                            } else {
                                if (((uint)(((uint)(offset0 == 0u)) || ((uint)(offset0 > op))))) {
                                    code = 2u;
                                    state = 2u;
                                } else {
                                    if (((uint)(match_length0 > (capacity - op)))) {
                                        code = 5u;
                                        state = 2u;
                                    } else {
                                        rec_off0 = offset0;
                                        batch_total = (batch_total + match_length0);
                                        rec_end0 = batch_total;
                                        op = (op + match_length0);
                                        if (((uint)(ip == in_size))) {
                                            state = 2u;
                                        } else {
                                            token = vyre_load_global_uchar(input, input_len, (in_base + ip));
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if (((uint)(state == 0u))) {
                ip = (ip + 1u);
                uint literal_length1 = (token >> (4u & 31u));
                uint error1 = 0u;
                if (((uint)(literal_length1 == 15u))) {
                    uint literal_extra1 = 255u;
                    while (((uint)(literal_extra1 == 255u))) {
                        if (((uint)(ip == in_size))) {
                            error1 = 1u;
                            break;
                        }
                        literal_extra1 = vyre_load_global_uchar(input, input_len, (in_base + ip));
                        ip = (ip + 1u);
                        literal_length1 = (((uint)(literal_length1 > (4294967295u - literal_extra1))) ? 4294967295u : (literal_length1 + literal_extra1));
                    }
                }
                if (((uint)(((uint)(error1 == 0u)) && ((uint)(literal_length1 > (in_size - ip)))))) {
                    error1 = 4u;
                }
                if (((uint)(((uint)(error1 == 0u)) && ((uint)(literal_length1 > (capacity - op)))))) {
                    error1 = 3u;
                }
                if (((uint)(error1 != 0u))) {
                    code = error1;
                    state = 2u;
                } else {
                    rec_start1 = batch_total;
                    rec_src1 = (in_base + ip);
                    batch_total = (batch_total + literal_length1);
                    rec_mstart1 = batch_total;
                    rec_end1 = batch_total;
                    ip = (ip + literal_length1);
                    op = (op + literal_length1);
                    if (((uint)(ip == in_size))) {
                        state = 2u;
                    } else {
                        if (((uint)((in_size - ip) < 2u))) {
                            code = 1u;
                            state = 2u;
                        } else {
                            uint offset1 = (vyre_load_global_uchar(input, input_len, (in_base + ip)) | (vyre_load_global_uchar(input, input_len, ((in_base + ip) + 1u)) << (8u & 31u)));
                            ip = (ip + 2u);
                            uint match_length1 = ((token & 15u) + 4u);
                            if (((uint)(match_length1 == 19u))) {
                                uint match_extra1 = 255u;
                                while (((uint)(match_extra1 == 255u))) {
                                    if (((uint)(ip == in_size))) {
                                        error1 = 1u;
                                        break;
                                    }
                                    match_extra1 = vyre_load_global_uchar(input, input_len, (in_base + ip));
                                    ip = (ip + 1u);
                                    match_length1 = (((uint)(match_length1 > (4294967295u - match_extra1))) ? 4294967295u : (match_length1 + match_extra1));
                                }
                            }
                            if (((uint)(error1 != 0u))) {
                                code = error1;
                                state = 2u;
                            } else {
                                if (((uint)(((uint)(offset1 == 0u)) || ((uint)(offset1 > op))))) {
                                    code = 2u;
                                    state = 2u;
                                } else {
                                    if (((uint)(match_length1 > (capacity - op)))) {
                                        code = 5u;
                                        state = 2u;
                                    } else {
                                        rec_off1 = offset1;
                                        batch_total = (batch_total + match_length1);
                                        rec_end1 = batch_total;
                                        op = (op + match_length1);
                                        if (((uint)(ip == in_size))) {
                                            state = 2u;
                                        } else {
                                            token = vyre_load_global_uchar(input, input_len, (in_base + ip));
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        uint has_bytes = (((uint)(batch_done < batch_total)) ? 1u : 0u);
        if (((uint)(lane == 0u))) {
            vyre_store_local_uint(has_work, 8u, ((parity * 4u) + group), has_bytes);
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        any_work = 0u;
        for (uint other = 0u, vyre_end1 = 4u; other < vyre_end1; ++other) {
            any_work = (any_work | vyre_load_local_uint(has_work, 8u, ((parity * 4u) + other)));
        }
        if (((uint)(any_work == 0u))) {
            break;
        }
        parity = (parity ^ 1u);
        uint limit = batch_total;
        limit = (((uint)((batch_total - batch_done) > 128u)) ? (batch_done + 128u) : batch_total);
        j = (batch_done + lane);
        while (((uint)(j < limit))) {
            uint value0 = 0u;
            uint p0 = (j + 0u);
            if (((uint)(p0 < limit))) {
                uint rec0 = 0u;
                rec0 = 0u;
                rec0 = (rec0 + (((uint)(p0 >= rec_end0)) ? 1u : 0u));
                while (1u) {
                    uint mstart0 = rec_mstart1;
                    mstart0 = (((uint)(rec0 == 0u)) ? rec_mstart0 : mstart0);
                    if (((uint)(p0 < mstart0))) {
                        uint start0 = rec_start1;
                        start0 = (((uint)(rec0 == 0u)) ? rec_start0 : start0);
                        uint src0 = rec_src1;
                        src0 = (((uint)(rec0 == 0u)) ? rec_src0 : src0);
                        value0 = vyre_load_global_uchar(input, input_len, (src0 + (p0 - start0)));
                        break;
                    }
                    uint off0 = rec_off1;
                    off0 = (((uint)(rec0 == 0u)) ? rec_off0 : off0);
                    uint m0 = (p0 - mstart0);
                    uint back0 = m0;
                    if (((uint)(m0 >= off0))) {
                        back0 = vyre_mod_uint(m0, off0);
                    }
                    if (((uint)((mstart0 + back0) < off0))) {
                        value0 = vyre_load_global_uchar(output, output_len, (((batch_base + mstart0) + back0) - off0));
                        break;
                    }
                    p0 = ((mstart0 + back0) - off0);
                    rec0 = 0u;
                    rec0 = (rec0 + (((uint)(p0 >= rec_end0)) ? 1u : 0u));
                }
            }
            uint value1 = 0u;
            uint p1 = (j + 8u);
            if (((uint)(p1 < limit))) {
                uint rec1 = 0u;
                rec1 = 0u;
                rec1 = (rec1 + (((uint)(p1 >= rec_end0)) ? 1u : 0u));
                while (1u) {
                    uint mstart1 = rec_mstart1;
                    mstart1 = (((uint)(rec1 == 0u)) ? rec_mstart0 : mstart1);
                    if (((uint)(p1 < mstart1))) {
                        uint start1 = rec_start1;
                        start1 = (((uint)(rec1 == 0u)) ? rec_start0 : start1);
                        uint src1 = rec_src1;
                        src1 = (((uint)(rec1 == 0u)) ? rec_src0 : src1);
                        value1 = vyre_load_global_uchar(input, input_len, (src1 + (p1 - start1)));
                        break;
                    }
                    uint off1 = rec_off1;
                    off1 = (((uint)(rec1 == 0u)) ? rec_off0 : off1);
                    uint m1 = (p1 - mstart1);
                    uint back1 = m1;
                    if (((uint)(m1 >= off1))) {
                        back1 = vyre_mod_uint(m1, off1);
                    }
                    if (((uint)((mstart1 + back1) < off1))) {
                        value1 = vyre_load_global_uchar(output, output_len, (((batch_base + mstart1) + back1) - off1));
                        break;
                    }
                    p1 = ((mstart1 + back1) - off1);
                    rec1 = 0u;
                    rec1 = (rec1 + (((uint)(p1 >= rec_end0)) ? 1u : 0u));
                }
            }
            uint value2 = 0u;
            uint p2 = (j + 16u);
            if (((uint)(p2 < limit))) {
                uint rec2 = 0u;
                rec2 = 0u;
                rec2 = (rec2 + (((uint)(p2 >= rec_end0)) ? 1u : 0u));
                while (1u) {
                    uint mstart2 = rec_mstart1;
                    mstart2 = (((uint)(rec2 == 0u)) ? rec_mstart0 : mstart2);
                    if (((uint)(p2 < mstart2))) {
                        uint start2 = rec_start1;
                        start2 = (((uint)(rec2 == 0u)) ? rec_start0 : start2);
                        uint src2 = rec_src1;
                        src2 = (((uint)(rec2 == 0u)) ? rec_src0 : src2);
                        value2 = vyre_load_global_uchar(input, input_len, (src2 + (p2 - start2)));
                        break;
                    }
                    uint off2 = rec_off1;
                    off2 = (((uint)(rec2 == 0u)) ? rec_off0 : off2);
                    uint m2 = (p2 - mstart2);
                    uint back2 = m2;
                    if (((uint)(m2 >= off2))) {
                        back2 = vyre_mod_uint(m2, off2);
                    }
                    if (((uint)((mstart2 + back2) < off2))) {
                        value2 = vyre_load_global_uchar(output, output_len, (((batch_base + mstart2) + back2) - off2));
                        break;
                    }
                    p2 = ((mstart2 + back2) - off2);
                    rec2 = 0u;
                    rec2 = (rec2 + (((uint)(p2 >= rec_end0)) ? 1u : 0u));
                }
            }
            uint value3 = 0u;
            uint p3 = (j + 24u);
            if (((uint)(p3 < limit))) {
                uint rec3 = 0u;
                rec3 = 0u;
                rec3 = (rec3 + (((uint)(p3 >= rec_end0)) ? 1u : 0u));
                while (1u) {
                    uint mstart3 = rec_mstart1;
                    mstart3 = (((uint)(rec3 == 0u)) ? rec_mstart0 : mstart3);
                    if (((uint)(p3 < mstart3))) {
                        uint start3 = rec_start1;
                        start3 = (((uint)(rec3 == 0u)) ? rec_start0 : start3);
                        uint src3 = rec_src1;
                        src3 = (((uint)(rec3 == 0u)) ? rec_src0 : src3);
                        value3 = vyre_load_global_uchar(input, input_len, (src3 + (p3 - start3)));
                        break;
                    }
                    uint off3 = rec_off1;
                    off3 = (((uint)(rec3 == 0u)) ? rec_off0 : off3);
                    uint m3 = (p3 - mstart3);
                    uint back3 = m3;
                    if (((uint)(m3 >= off3))) {
                        back3 = vyre_mod_uint(m3, off3);
                    }
                    if (((uint)((mstart3 + back3) < off3))) {
                        value3 = vyre_load_global_uchar(output, output_len, (((batch_base + mstart3) + back3) - off3));
                        break;
                    }
                    p3 = ((mstart3 + back3) - off3);
                    rec3 = 0u;
                    rec3 = (rec3 + (((uint)(p3 >= rec_end0)) ? 1u : 0u));
                }
            }
            if (((uint)((j + 0u) < limit))) {
                vyre_store_global_uchar(output, output_len, ((batch_base + j) + 0u), value0);
            }
            if (((uint)((j + 8u) < limit))) {
                vyre_store_global_uchar(output, output_len, ((batch_base + j) + 8u), value1);
            }
            if (((uint)((j + 16u) < limit))) {
                vyre_store_global_uchar(output, output_len, ((batch_base + j) + 16u), value2);
            }
            if (((uint)((j + 24u) < limit))) {
                vyre_store_global_uchar(output, output_len, ((batch_base + j) + 24u), value3);
            }
            j = (j + 32u);
        }
        batch_done = limit;
    }
    if (((uint)(((uint)(block_index < block_count)) && ((uint)(lane == 0u))))) {
        vyre_store_global_uint(statuses, statuses_len, (block_index * 2u), code);
        vyre_store_global_uint(statuses, statuses_len, ((block_index * 2u) + 1u), op);
    }
}
