// vyre program "compression_zstd_frames", lowered to OpenCL C 1.2
static inline uint vyre_load_constant_uint(const __constant uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_global_uint(const __global uint* b, uint n, uint i) {
    return i < n ? b[i] : 0u;
}
static inline uint vyre_load_u32_le_global(const __global uchar* b, uint i) {
    const __global uchar* p = b + i;
    return (uint)p[0] | ((uint)p[1] << 8) | ((uint)p[2] << 16) | ((uint)p[3] << 24);
}
static inline void vyre_store_global_uint(__global uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}
static inline void vyre_store_local_uint(__local uint* b, uint n, uint i, uint v) {
    if (i < n) b[i] = v;
}

__kernel __attribute__((reqd_work_group_size(4, 1, 1)))
void compression_zstd_frames(
    __global const uchar* input, const uint input_len,
    __global const uint* frames, const uint frames_len,
    __global const uint* blocks, const uint blocks_len,
    __global const uint* tables, const uint tables_len,
    __global uchar* literals, const uint literals_len,
    __global uchar* output, const uint output_len,
    __global uint* statuses, const uint statuses_len,
    __constant uint* params, const uint params_len)
{
    __local uint huffman[8192];
    {
        const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
        const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
        for (uint vyre_i = vyre_lid; vyre_i < 8192u; vyre_i += vyre_lsize) huffman[vyre_i] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint lane = 0u;
    uint slot = (uint)get_local_id(0);
    uint frame = (((uint)get_group_id(0) * 4u) + slot);
    if (((uint)(frame >= vyre_load_constant_uint(params, params_len, 0u)))) {
        return;
    }
    uint table_base = (slot * 2048u);
    uint input_bytes = vyre_load_constant_uint(params, params_len, 1u);
    uint output_bytes = vyre_load_constant_uint(params, params_len, 2u);
    uint literal_bytes = vyre_load_constant_uint(params, params_len, 3u);
    uint block_words = vyre_load_constant_uint(params, params_len, 4u);
    uint table_words = vyre_load_constant_uint(params, params_len, 5u);
    uint first_block = vyre_load_global_uint(frames, frames_len, (frame * 4u));
    uint block_count = vyre_load_global_uint(frames, frames_len, ((frame * 4u) + 1u));
    uint out_base = vyre_load_global_uint(frames, frames_len, ((frame * 4u) + 2u));
    uint capacity = vyre_load_global_uint(frames, frames_len, ((frame * 4u) + 3u));
    uint reason = 0u;
    uint op = 0u;
    uint block = 0u;
    uint rep1 = 1u;
    uint rep2 = 4u;
    uint rep3 = 8u;
    uint fenced = 0u;
    uint expanded = 4294967295u;
    if (((uint)(((uint)(((uint)((((uint)(((uint)((first_block * 16u) <= block_words)) && ((uint)((block_count * 16u) <= (block_words - (first_block * 16u)))))) ^ 1u) || ((uint)(first_block > 268435455u)))) || ((uint)(block_count > 268435455u)))) || (((uint)(((uint)(out_base <= output_bytes)) && ((uint)(capacity <= (output_bytes - out_base))))) ^ 1u)))) {
        reason = 1u;
    }
    ulong seq_acc = 0ul;
    uint seq_nacc = 0u;
    uint seq_pos = 0u;
    uint seq_start = 0u;
    uint seq_virt = 0u;
    uint seq_ahead = 0u;
    ulong huf_acc = 0ul;
    uint huf_nacc = 0u;
    uint huf_pos = 0u;
    uint huf_start = 0u;
    uint huf_virt = 0u;
    uint huf_ahead = 0u;
    while (((uint)(((uint)(reason == 0u)) && ((uint)(block < block_count))))) {
        uint rec = ((first_block + block) * 16u);
        uint kind = vyre_load_global_uint(blocks, blocks_len, (rec + 0u));
        uint type = (kind & 3u);
        uint size = vyre_load_global_uint(blocks, blocks_len, (rec + 1u));
        uint src = vyre_load_global_uint(blocks, blocks_len, (rec + 2u));
        if (((uint)(type < 2u))) {
            if ((((uint)(((uint)(src <= input_bytes)) && ((uint)((((uint)(type == 0u)) ? size : 1u) <= (input_bytes - src))))) ^ 1u)) {
                reason = 1u;
                break;
            }
            if (((uint)(size > (capacity - op)))) {
                reason = 7u;
                break;
            }
            uint plain_j = lane;
            while (((uint)(plain_j < size))) {
                output[((out_base + op) + plain_j)] = (uchar)(((uint)input[(src + (((uint)(type == 0u)) ? plain_j : 0u))]));
                plain_j = (min(plain_j, 4294967294u) + 1u);
            }
            op = (op + size);
            block = (block + 1u);
            continue;
        }
        uint literals_type = ((kind >> (2u & 31u)) & 3u);
        uint literals_at = vyre_load_global_uint(blocks, blocks_len, (rec + 8u));
        uint maximum = vyre_load_global_uint(blocks, blocks_len, (rec + 15u));
        if (((uint)(((uint)(((uint)(type != 2u)) || ((uint)(literals_type > 2u)))) || (((uint)(((uint)(literals_at <= literal_bytes)) && ((uint)(size <= (literal_bytes - literals_at))))) ^ 1u)))) {
            reason = 1u;
            break;
        }
        if (((uint)(size > maximum))) {
            reason = 6u;
            break;
        }
        if (((uint)(literals_type < 2u))) {
            if ((((uint)(((uint)(src <= input_bytes)) && ((uint)((((uint)(literals_type == 0u)) ? size : 1u) <= (input_bytes - src))))) ^ 1u)) {
                reason = 1u;
                break;
            }
            uint raw_j = lane;
            while (((uint)(raw_j < size))) {
                literals[(literals_at + raw_j)] = (uchar)(((uint)input[(src + (((uint)(literals_type == 0u)) ? raw_j : 0u))]));
                raw_j = (min(raw_j, 4294967294u) + 1u);
            }
        } else {
            uint huffman_table = vyre_load_global_uint(blocks, blocks_len, (rec + 7u));
            if (((uint)(huffman_table >= table_words))) {
                reason = 1u;
                break;
            }
            uint huffman_header = vyre_load_global_uint(tables, tables_len, huffman_table);
            uint huffman_bits = (huffman_header & 255u);
            uint huffman_symbols = (huffman_header >> (8u & 31u));
            if (((uint)(((uint)(((uint)(((uint)(huffman_bits == 0u)) || ((uint)(huffman_bits > 11u)))) || ((uint)(huffman_symbols > 256u)))) || (((uint)(((uint)((huffman_table + 1u) <= table_words)) && ((uint)(huffman_symbols <= (table_words - (huffman_table + 1u)))))) ^ 1u)))) {
                reason = 1u;
                break;
            }
            if (((uint)(huffman_table != expanded))) {
                uint clear_j = lane;
                while (((uint)(clear_j < (1u << (huffman_bits & 31u))))) {
                    vyre_store_local_uint(huffman, 8192u, (table_base + clear_j), 0u);
                    clear_j = (clear_j + 1u);
                }
                uint fill_s = lane;
                while (((uint)(fill_s < huffman_symbols))) {
                    uint fill_e = vyre_load_global_uint(tables, tables_len, ((huffman_table + 1u) + fill_s));
                    uint fill_n = ((fill_e >> (8u & 31u)) & 15u);
                    if (((uint)(((uint)(fill_n != 0u)) && ((uint)(fill_n <= huffman_bits))))) {
                        uint fill_f = (fill_e >> (12u & 31u));
                        uint fill_end = min((fill_f + (1u << ((huffman_bits - fill_n) & 31u))), (1u << (huffman_bits & 31u)));
                        while (((uint)(fill_f < fill_end))) {
                            vyre_store_local_uint(huffman, 8192u, (table_base + fill_f), (fill_e & 4095u));
                            fill_f = (fill_f + 1u);
                        }
                    }
                    fill_s = (fill_s + 1u);
                }
                expanded = huffman_table;
            }
            uint four_streams = ((uint)((kind & 16u) != 0u));
            uint streams = (four_streams ? 4u : 1u);
            uint segment = (four_streams ? ((size + 3u) >> (2u & 31u)) : size);
            if (((uint)((segment * (streams - 1u)) > size))) {
                reason = 2u;
                break;
            }
            uint stream_size0 = vyre_load_global_uint(blocks, blocks_len, (rec + 3u));
            uint stream_size1 = vyre_load_global_uint(blocks, blocks_len, ((rec + 3u) + 1u));
            uint stream_size2 = vyre_load_global_uint(blocks, blocks_len, ((rec + 3u) + 2u));
            uint stream_size3 = vyre_load_global_uint(blocks, blocks_len, ((rec + 3u) + 3u));
            uint bad_range = 0u;
            uint bad_stream = 0u;
            uint stream = lane;
            while (((uint)(stream < streams))) {
                ulong stream_at = ((((ulong)(src) + (ulong)((((uint)(stream > 0u)) ? stream_size0 : 0u))) + (ulong)((((uint)(stream > 1u)) ? stream_size1 : 0u))) + (ulong)((((uint)(stream > 2u)) ? stream_size2 : 0u)));
                uint stream_bytes = (((uint)(stream == 0u)) ? stream_size0 : (((uint)(stream == 1u)) ? stream_size1 : (((uint)(stream == 2u)) ? stream_size2 : stream_size3)));
                uint stream_symbols = (((uint)((stream + 1u) < streams)) ? segment : (size - (segment * (streams - 1u))));
                if (((uint)((stream_at + (ulong)(stream_bytes)) > (ulong)(input_bytes)))) {
                    bad_range = 1u;
                } else {
                    uint huf_marked = 0u;
                    huf_start = (uint)(stream_at);
                    huf_acc = 0ul;
                    huf_nacc = 0u;
                    huf_pos = 0u;
                    huf_virt = 0u;
                    if (((uint)(stream_bytes != 0u))) {
                        uint huf_last = ((uint)input[(((uint)(stream_at) + stream_bytes) - 1u)]);
                        if (((uint)(huf_last != 0u))) {
                            huf_marked = 1u;
                            huf_acc = (ulong)(huf_last);
                            huf_nacc = (31u - clz(huf_last));
                            huf_pos = (stream_bytes - 1u);
                            if (((uint)(huf_pos >= 4u))) {
                                huf_ahead = vyre_load_u32_le_global(input, (((uint)(stream_at) + huf_pos) - 4u));
                            }
                        }
                    }
                    uint stream_to = (literals_at + (stream * segment));
                    uint symbol_i = 0u;
                    uint huffman_mask = ((1u << (huffman_bits & 31u)) - 1u);
                    while (((uint)(symbol_i < stream_symbols))) {
                        if (((uint)(huf_nacc <= 32u))) {
                            if (((uint)(huf_pos >= 4u))) {
                                huf_acc = ((huf_acc << (32ul & 63ul)) | (ulong)(huf_ahead));
                                huf_pos = (huf_pos - 4u);
                                huf_nacc = (huf_nacc + 32u);
                                if (((uint)(huf_pos >= 4u))) {
                                    huf_ahead = vyre_load_u32_le_global(input, ((huf_start + huf_pos) - 4u));
                                }
                            } else {
                                while (((uint)(huf_pos > 0u))) {
                                    huf_acc = ((huf_acc << (8ul & 63ul)) | (ulong)(((uint)input[((huf_start + huf_pos) - 1u)])));
                                    huf_pos = (huf_pos - 1u);
                                    huf_nacc = (huf_nacc + 8u);
                                }
                                if (((uint)(huf_nacc <= 32u))) {
                                    huf_acc = (huf_acc << (32ul & 63ul));
                                    huf_nacc = (huf_nacc + 32u);
                                    huf_virt = (huf_virt + 32u);
                                }
                            }
                        }
                        uint huffman_entry = (huffman[(table_base + ((uint)(((huf_acc >> ((ulong)((huf_nacc - huffman_bits)) & 63ul)) & ((1ul << ((ulong)(huffman_bits) & 63ul)) - 1ul))) & huffman_mask))]);
                        huf_nacc = (huf_nacc - (huffman_entry >> (8u & 31u)));
                        literals[(stream_to + symbol_i)] = (uchar)((huffman_entry & 255u));
                        symbol_i = (symbol_i + 1u);
                    }
                    if (((uint)((huf_marked ^ 1u) || (((uint)(((uint)(huf_pos == 0u)) && ((uint)(huf_nacc == huf_virt)))) ^ 1u)))) {
                        bad_stream = 1u;
                    }
                }
                stream = (stream + 1u);
            }
            if (bad_range) {
                reason = 1u;
                break;
            }
            if (bad_stream) {
                reason = 2u;
                break;
            }
        }
        if (((uint)(reason != 0u))) {
            break;
        }
        uint sequences = vyre_load_global_uint(blocks, blocks_len, (rec + 9u));
        uint block_start = op;
        uint lit_pos = 0u;
        if (((uint)(sequences != 0u))) {
            uint ll_table = vyre_load_global_uint(blocks, blocks_len, (rec + 12u));
            uint of_table = vyre_load_global_uint(blocks, blocks_len, (rec + 13u));
            uint ml_table = vyre_load_global_uint(blocks, blocks_len, (rec + 14u));
            uint seq_at = vyre_load_global_uint(blocks, blocks_len, (rec + 10u));
            uint seq_size = vyre_load_global_uint(blocks, blocks_len, (rec + 11u));
            if (((uint)(((uint)(((uint)(((uint)(((uint)(table_words < 100u)) || (((uint)(((uint)(((uint)(ll_table < table_words)) && ((uint)(vyre_load_global_uint(tables, tables_len, ll_table) <= 9u)))) && ((uint)(((uint)((ll_table + 1u) <= table_words)) && ((uint)((1u << (vyre_load_global_uint(tables, tables_len, ll_table) & 31u)) <= (table_words - (ll_table + 1u)))))))) ^ 1u))) || (((uint)(((uint)(((uint)(of_table < table_words)) && ((uint)(vyre_load_global_uint(tables, tables_len, of_table) <= 9u)))) && ((uint)(((uint)((of_table + 1u) <= table_words)) && ((uint)((1u << (vyre_load_global_uint(tables, tables_len, of_table) & 31u)) <= (table_words - (of_table + 1u)))))))) ^ 1u))) || (((uint)(((uint)(((uint)(ml_table < table_words)) && ((uint)(vyre_load_global_uint(tables, tables_len, ml_table) <= 9u)))) && ((uint)(((uint)((ml_table + 1u) <= table_words)) && ((uint)((1u << (vyre_load_global_uint(tables, tables_len, ml_table) & 31u)) <= (table_words - (ml_table + 1u)))))))) ^ 1u))) || (((uint)(((uint)(seq_at <= input_bytes)) && ((uint)(seq_size <= (input_bytes - seq_at))))) ^ 1u)))) {
                reason = 1u;
                break;
            }
            uint seq_marked = 0u;
            seq_start = seq_at;
            seq_acc = 0ul;
            seq_nacc = 0u;
            seq_pos = 0u;
            seq_virt = 0u;
            if (((uint)(seq_size != 0u))) {
                uint seq_last = ((uint)input[((seq_at + seq_size) - 1u)]);
                if (((uint)(seq_last != 0u))) {
                    seq_marked = 1u;
                    seq_acc = (ulong)(seq_last);
                    seq_nacc = (31u - clz(seq_last));
                    seq_pos = (seq_size - 1u);
                    if (((uint)(seq_pos >= 4u))) {
                        seq_ahead = vyre_load_u32_le_global(input, ((seq_at + seq_pos) - 4u));
                    }
                }
            }
            if ((seq_marked ^ 1u)) {
                reason = 3u;
                break;
            }
            uint ll_log = vyre_load_global_uint(tables, tables_len, ll_table);
            uint of_log = vyre_load_global_uint(tables, tables_len, of_table);
            uint ml_log = vyre_load_global_uint(tables, tables_len, ml_table);
            if (((uint)(seq_nacc <= 32u))) {
                if (((uint)(seq_pos >= 4u))) {
                    seq_acc = ((seq_acc << (32ul & 63ul)) | (ulong)(seq_ahead));
                    seq_pos = (seq_pos - 4u);
                    seq_nacc = (seq_nacc + 32u);
                    if (((uint)(seq_pos >= 4u))) {
                        seq_ahead = vyre_load_u32_le_global(input, ((seq_start + seq_pos) - 4u));
                    }
                } else {
                    while (((uint)(seq_pos > 0u))) {
                        seq_acc = ((seq_acc << (8ul & 63ul)) | (ulong)(((uint)input[((seq_start + seq_pos) - 1u)])));
                        seq_pos = (seq_pos - 1u);
                        seq_nacc = (seq_nacc + 8u);
                    }
                    if (((uint)(seq_nacc <= 32u))) {
                        seq_acc = (seq_acc << (32ul & 63ul));
                        seq_nacc = (seq_nacc + 32u);
                        seq_virt = (seq_virt + 32u);
                    }
                }
            }
            uint ll_state = (uint)(((seq_acc >> ((ulong)((seq_nacc - ll_log)) & 63ul)) & ((1ul << ((ulong)(ll_log) & 63ul)) - 1ul)));
            seq_nacc = (seq_nacc - ll_log);
            uint of_state = (uint)(((seq_acc >> ((ulong)((seq_nacc - of_log)) & 63ul)) & ((1ul << ((ulong)(of_log) & 63ul)) - 1ul)));
            seq_nacc = (seq_nacc - of_log);
            uint ml_state = (uint)(((seq_acc >> ((ulong)((seq_nacc - ml_log)) & 63ul)) & ((1ul << ((ulong)(ml_log) & 63ul)) - 1ul)));
            seq_nacc = (seq_nacc - ml_log);
            uint seq_i = 0u;
            while (((uint)(seq_i < sequences))) {
                uint ll_entry = vyre_load_global_uint(tables, tables_len, ((ll_table + 1u) + ll_state));
                uint of_entry = vyre_load_global_uint(tables, tables_len, ((of_table + 1u) + of_state));
                uint ml_entry = vyre_load_global_uint(tables, tables_len, ((ml_table + 1u) + ml_state));
                uint ll_value = vyre_load_global_uint(tables, tables_len, (0u + ((ll_entry >> (4u & 31u)) & 63u)));
                uint ml_value = vyre_load_global_uint(tables, tables_len, ((0u + 36u) + ((ml_entry >> (4u & 31u)) & 63u)));
                uint of_code = ((of_entry >> (4u & 31u)) & 31u);
                if (((uint)(seq_nacc <= 32u))) {
                    if (((uint)(seq_pos >= 4u))) {
                        seq_acc = ((seq_acc << (32ul & 63ul)) | (ulong)(seq_ahead));
                        seq_pos = (seq_pos - 4u);
                        seq_nacc = (seq_nacc + 32u);
                        if (((uint)(seq_pos >= 4u))) {
                            seq_ahead = vyre_load_u32_le_global(input, ((seq_start + seq_pos) - 4u));
                        }
                    } else {
                        while (((uint)(seq_pos > 0u))) {
                            seq_acc = ((seq_acc << (8ul & 63ul)) | (ulong)(((uint)input[((seq_start + seq_pos) - 1u)])));
                            seq_pos = (seq_pos - 1u);
                            seq_nacc = (seq_nacc + 8u);
                        }
                        if (((uint)(seq_nacc <= 32u))) {
                            seq_acc = (seq_acc << (32ul & 63ul));
                            seq_nacc = (seq_nacc + 32u);
                            seq_virt = (seq_virt + 32u);
                        }
                    }
                }
                uint of_extra = (uint)(((seq_acc >> ((ulong)((seq_nacc - of_code)) & 63ul)) & ((1ul << ((ulong)(of_code) & 63ul)) - 1ul)));
                seq_nacc = (seq_nacc - of_code);
                uint of_value = ((1u << (of_code & 31u)) + of_extra);
                if (((uint)(seq_nacc <= 32u))) {
                    if (((uint)(seq_pos >= 4u))) {
                        seq_acc = ((seq_acc << (32ul & 63ul)) | (ulong)(seq_ahead));
                        seq_pos = (seq_pos - 4u);
                        seq_nacc = (seq_nacc + 32u);
                        if (((uint)(seq_pos >= 4u))) {
                            seq_ahead = vyre_load_u32_le_global(input, ((seq_start + seq_pos) - 4u));
                        }
                    } else {
                        while (((uint)(seq_pos > 0u))) {
                            seq_acc = ((seq_acc << (8ul & 63ul)) | (ulong)(((uint)input[((seq_start + seq_pos) - 1u)])));
                            seq_pos = (seq_pos - 1u);
                            seq_nacc = (seq_nacc + 8u);
                        }
                        if (((uint)(seq_nacc <= 32u))) {
                            seq_acc = (seq_acc << (32ul & 63ul));
                            seq_nacc = (seq_nacc + 32u);
                            seq_virt = (seq_virt + 32u);
                        }
                    }
                }
                uint ml_extra = (uint)(((seq_acc >> ((ulong)((seq_nacc - ((ml_value >> (24u & 31u)) & 31u))) & 63ul)) & ((1ul << ((ulong)(((ml_value >> (24u & 31u)) & 31u)) & 63ul)) - 1ul)));
                seq_nacc = (seq_nacc - ((ml_value >> (24u & 31u)) & 31u));
                uint match_length = ((ml_value & 16777215u) + ml_extra);
                if (((uint)(seq_nacc <= 32u))) {
                    if (((uint)(seq_pos >= 4u))) {
                        seq_acc = ((seq_acc << (32ul & 63ul)) | (ulong)(seq_ahead));
                        seq_pos = (seq_pos - 4u);
                        seq_nacc = (seq_nacc + 32u);
                        if (((uint)(seq_pos >= 4u))) {
                            seq_ahead = vyre_load_u32_le_global(input, ((seq_start + seq_pos) - 4u));
                        }
                    } else {
                        while (((uint)(seq_pos > 0u))) {
                            seq_acc = ((seq_acc << (8ul & 63ul)) | (ulong)(((uint)input[((seq_start + seq_pos) - 1u)])));
                            seq_pos = (seq_pos - 1u);
                            seq_nacc = (seq_nacc + 8u);
                        }
                        if (((uint)(seq_nacc <= 32u))) {
                            seq_acc = (seq_acc << (32ul & 63ul));
                            seq_nacc = (seq_nacc + 32u);
                            seq_virt = (seq_virt + 32u);
                        }
                    }
                }
                uint ll_extra = (uint)(((seq_acc >> ((ulong)((seq_nacc - ((ll_value >> (24u & 31u)) & 31u))) & 63ul)) & ((1ul << ((ulong)(((ll_value >> (24u & 31u)) & 31u)) & 63ul)) - 1ul)));
                seq_nacc = (seq_nacc - ((ll_value >> (24u & 31u)) & 31u));
                uint literal_length = ((ll_value & 16777215u) + ll_extra);
                if (((uint)((seq_i + 1u) < sequences))) {
                    if (((uint)(seq_nacc <= 32u))) {
                        if (((uint)(seq_pos >= 4u))) {
                            seq_acc = ((seq_acc << (32ul & 63ul)) | (ulong)(seq_ahead));
                            seq_pos = (seq_pos - 4u);
                            seq_nacc = (seq_nacc + 32u);
                            if (((uint)(seq_pos >= 4u))) {
                                seq_ahead = vyre_load_u32_le_global(input, ((seq_start + seq_pos) - 4u));
                            }
                        } else {
                            while (((uint)(seq_pos > 0u))) {
                                seq_acc = ((seq_acc << (8ul & 63ul)) | (ulong)(((uint)input[((seq_start + seq_pos) - 1u)])));
                                seq_pos = (seq_pos - 1u);
                                seq_nacc = (seq_nacc + 8u);
                            }
                            if (((uint)(seq_nacc <= 32u))) {
                                seq_acc = (seq_acc << (32ul & 63ul));
                                seq_nacc = (seq_nacc + 32u);
                                seq_virt = (seq_virt + 32u);
                            }
                        }
                    }
                    uint ml_nbits = (ml_entry & 15u);
                    uint of_nbits = (of_entry & 15u);
                    uint state_bits = (uint)(((seq_acc >> ((ulong)((seq_nacc - (((ll_entry & 15u) + ml_nbits) + of_nbits))) & 63ul)) & ((1ul << ((ulong)((((ll_entry & 15u) + ml_nbits) + of_nbits)) & 63ul)) - 1ul)));
                    seq_nacc = (seq_nacc - (((ll_entry & 15u) + ml_nbits) + of_nbits));
                    ll_state = (((ll_entry >> (10u & 31u)) + (state_bits >> ((ml_nbits + of_nbits) & 31u))) & ((1u << (ll_log & 31u)) - 1u));
                    ml_state = (((ml_entry >> (10u & 31u)) + ((state_bits >> (of_nbits & 31u)) & ((1u << (ml_nbits & 31u)) - 1u))) & ((1u << (ml_log & 31u)) - 1u));
                    of_state = (((of_entry >> (10u & 31u)) + (state_bits & ((1u << (of_nbits & 31u)) - 1u))) & ((1u << (of_log & 31u)) - 1u));
                }
                uint offset = 0u;
                if (((uint)(of_value > 3u))) {
                    offset = (of_value - 3u);
                    rep3 = rep2;
                    rep2 = rep1;
                    rep1 = offset;
                } else {
                    uint rep_index = ((of_value - 1u) + (((uint)(literal_length == 0u)) ? 1u : 0u));
                    if (((uint)(rep_index == 0u))) {
                        offset = rep1;
                    } else {
                        offset = (((uint)(rep_index == 1u)) ? rep2 : (((uint)(rep_index == 2u)) ? rep3 : (rep1 - 1u)));
                        if (((uint)(rep_index != 1u))) {
                            rep3 = rep2;
                        }
                        rep2 = rep1;
                        rep1 = offset;
                    }
                }
                ulong sequence_bytes = ((ulong)(literal_length) + (ulong)(match_length));
                uint sequence_fault = (((uint)(literal_length > (size - lit_pos))) ? 5u : (((uint)(sequence_bytes > (ulong)((maximum - (op - block_start))))) ? 6u : (((uint)(sequence_bytes > (ulong)((capacity - op)))) ? 7u : (((uint)(((uint)(offset == 0u)) || ((uint)(offset > (op + literal_length))))) ? 4u : 0u))));
                if (((uint)(sequence_fault != 0u))) {
                    reason = sequence_fault;
                    break;
                }
                uint lit_j = lane;
                while (((uint)(lit_j < literal_length))) {
                    output[((out_base + op) + lit_j)] = (uchar)(((uint)literals[((literals_at + lit_pos) + lit_j)]));
                    lit_j = (min(lit_j, 4294967294u) + 1u);
                }
                op = (op + literal_length);
                lit_pos = (lit_pos + literal_length);
                uint match_from = (op - offset);
                uint match_j = lane;
                while (((uint)(match_j < match_length))) {
                    output[((out_base + op) + match_j)] = (uchar)(((uint)output[((out_base + match_from) + match_j)]));
                    match_j = (min(match_j, 4294967294u) + 1u);
                }
                op = (op + match_length);
                seq_i = (seq_i + 1u);
            }
            if (((uint)(reason != 0u))) {
                break;
            }
            if ((((uint)(((uint)(seq_pos == 0u)) && ((uint)(seq_nacc == seq_virt)))) ^ 1u)) {
                reason = 3u;
                break;
            }
        }
        if (((uint)(reason != 0u))) {
            break;
        }
        uint rest = (size - lit_pos);
        if (((uint)(rest > (maximum - (op - block_start))))) {
            reason = 6u;
            break;
        }
        if (((uint)(rest > (capacity - op)))) {
            reason = 7u;
            break;
        }
        uint rest_j = lane;
        while (((uint)(rest_j < rest))) {
            output[((out_base + op) + rest_j)] = (uchar)(((uint)literals[((literals_at + lit_pos) + rest_j)]));
            rest_j = (min(rest_j, 4294967294u) + 1u);
        }
        op = (op + rest);
        block = (block + 1u);
    }
    if (((uint)(lane == 0u))) {
        uint status_at = (frame * 4u);
        vyre_store_global_uint(statuses, statuses_len, status_at, (((uint)(reason == 0u)) ? 0u : (((uint)(reason == 7u)) ? 2u : 1u)));
        vyre_store_global_uint(statuses, statuses_len, (status_at + 1u), (((uint)(reason == 0u)) ? op : 0u));
        vyre_store_global_uint(statuses, statuses_len, (status_at + 2u), (((uint)(reason == 0u)) ? 0u : block));
        vyre_store_global_uint(statuses, statuses_len, (status_at + 3u), reason);
    }
}
