// The reference interpreter's machine (reference/interpreter.hpp): runs a compiled program one
// workgroup at a time, every invocation of a workgroup in lockstep, over little-endian buffers.
#pragma once

#include <vyre/error.hpp>
#include <vyre/ir/program.hpp>
#include <vyre/reference/detail/interpreter_compiler.hpp>
#include <vyre/reference/detail/interpreter_races.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::reference::detail {

inline std::uint32_t read32(const std::uint8_t* p) noexcept {
    return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}
inline std::uint64_t read64(const std::uint8_t* p) noexcept { return read32(p) | std::uint64_t(read32(p + 4)) << 32; }
inline void write32(std::uint8_t* p, std::uint32_t v) noexcept {
    p[0] = std::uint8_t(v);
    p[1] = std::uint8_t(v >> 8);
    p[2] = std::uint8_t(v >> 16);
    p[3] = std::uint8_t(v >> 24);
}
inline void write64(std::uint8_t* p, std::uint64_t v) noexcept {
    write32(p, std::uint32_t(v));
    write32(p + 4, std::uint32_t(v >> 32));
}

constexpr std::uint32_t reverse_bits32(std::uint32_t x) noexcept {
    x = (x >> 1 & 0x55555555u) | (x & 0x55555555u) << 1;
    x = (x >> 2 & 0x33333333u) | (x & 0x33333333u) << 2;
    x = (x >> 4 & 0x0f0f0f0fu) | (x & 0x0f0f0f0fu) << 4;
    x = (x >> 8 & 0x00ff00ffu) | (x & 0x00ff00ffu) << 8;
    return x >> 16 | x << 16;
}
constexpr std::uint64_t reverse_bits64(std::uint64_t x) noexcept {
    return std::uint64_t(reverse_bits32(std::uint32_t(x))) << 32 | reverse_bits32(std::uint32_t(x >> 32));
}
constexpr std::int32_t as_i32(std::uint64_t v) noexcept { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); }
constexpr std::uint64_t from_i32(std::int32_t v) noexcept { return static_cast<std::uint32_t>(v); }

struct buffer_view {
    std::uint8_t* data = nullptr;
    std::uint64_t count = 0; // addressable elements: bytes for Bytes buffers
    std::uint32_t len = 0;   // what BufLen reports
    const std::string* name = nullptr;
};

// An unchecked access (ir::bounds) out of bounds: the program broke its promise.
[[noreturn]] inline void unchecked_out_of_bounds(const char* what, const buffer_view& b, std::uint64_t index) {
    throw validation_error(std::string("unchecked ") + what + " " + *b.name + "[" + std::to_string(index) + "] is out of bounds (" +
                           std::to_string(b.count) + " elements): the program's proof that the index is in bounds does not hold");
}

// Runs a compiled program one workgroup at a time, all invocations of a workgroup in lockstep.
class machine {
public:
    // With check_races, every access of a storage or workgroup buffer not named in `untracked`
    // goes through a race_tracker.
    machine(const ir::program& p, const compiled& c, std::vector<std::vector<std::uint8_t>>& buffers, bool check_races = false,
            const std::vector<std::string>& untracked = {})
        : c_(c), size_(p.workgroup_size), lanes_(p.invocations_per_workgroup()), subgroup_size_(p.subgroup_size) {
        if (check_races) races_.emplace(lanes_, subgroup_size_);
        std::uint64_t local_bytes = 0;
        for (const auto& b : p.buffers)
            if (!b.is_storage()) local_bytes += std::uint64_t(b.count) * ir::element_bytes(b.element);
        local_.resize(local_bytes);
        std::uint64_t offset = 0;
        for (const auto& b : p.buffers) {
            buffer_view v;
            v.name = &b.name;
            if (b.is_storage()) {
                auto& data = buffers[b.binding];
                v.data = data.data();
                v.count = data.size() / ir::element_bytes(b.element);
                v.len = static_cast<std::uint32_t>(b.element == ir::data_type::bytes ? data.size() / 4 : v.count);
            } else {
                v.data = local_.data() + offset;
                v.count = b.count;
                v.len = b.element == ir::data_type::bytes ? b.count / 4 : b.count;
                offset += std::uint64_t(b.count) * ir::element_bytes(b.element);
            }
            views_.push_back(v);
            if (races_) races_->add_buffer(b.name, std::find(untracked.begin(), untracked.end(), b.name) == untracked.end() ? v.count : 0);
        }
        slots_.assign(std::size_t(lanes_) * c_.slots, 0);
        staging_.assign(c_.staging, 0);
        state_.assign(lanes_, running);
        for (std::uint32_t z = 0; z < size_[2]; ++z)
            for (std::uint32_t y = 0; y < size_[1]; ++y)
                for (std::uint32_t x = 0; x < size_[0]; ++x) local_ids_.push_back({x, y, z});
        all_.resize(lanes_);
        for (std::uint32_t i = 0; i < lanes_; ++i) all_[i] = i;
        operands_.assign(2 * std::size_t(lanes_), 0);
        results_.assign(lanes_, 0);
        taking_part_.assign(lanes_, 0);
        scratch_.resize(2 * (std::size_t(c_.depth) + 1));
        for (auto& s : scratch_) s.reserve(lanes_);
    }

    void run(std::array<std::uint32_t, 3> groups) {
        for (std::uint32_t z = 0; z < groups[2]; ++z)
            for (std::uint32_t y = 0; y < groups[1]; ++y)
                for (std::uint32_t x = 0; x < groups[0]; ++x) {
                    group_ = {x, y, z};
                    std::fill(local_.begin(), local_.end(), std::uint8_t{0});
                    std::fill(slots_.begin(), slots_.end(), 0);
                    std::fill(state_.begin(), state_.end(), running);
                    if (races_) races_->start_workgroup(group_);
                    exec(c_.body, all_);
                }
    }

private:
    // Where an invocation is: running, or inactive until its innermost loop ends the iteration
    // (continued), ends the loop (broken), or for good (returned).
    enum lane_state : std::uint8_t { running, continued, broken, returned };
    using lane_list = std::span<const std::uint32_t>;

    const compiled& c_;
    std::array<std::uint32_t, 3> size_;
    std::uint32_t lanes_;
    std::uint32_t subgroup_size_;
    std::vector<std::uint64_t> operands_;     // a subgroup op's two operands of every lane
    std::vector<std::uint64_t> results_;      // and its results
    std::vector<std::uint8_t> taking_part_;   // the lanes evaluating it
    std::vector<std::uint8_t> local_; // all workgroup buffers of the current workgroup
    std::vector<buffer_view> views_;  // by buffer index of the program
    std::vector<std::uint64_t> slots_;   // lanes_ x c_.slots variables
    std::vector<std::uint64_t> staging_; // call arguments
    std::vector<lane_state> state_;
    std::vector<std::array<std::uint32_t, 3>> local_ids_;
    std::vector<std::uint32_t> all_;
    std::vector<std::vector<std::uint32_t>> scratch_; // two lane lists per nesting depth
    std::array<std::uint32_t, 3> group_{};
    std::optional<race_tracker> races_;

    // The invocation being evaluated.
    std::uint32_t lane_ = 0;
    std::uint64_t* vars_ = nullptr;
    const std::uint64_t* frame_ = nullptr; // parameters of the function being evaluated

    void enter(std::uint32_t lane) noexcept {
        lane_ = lane;
        vars_ = slots_.data() + std::size_t(lane) * c_.slots;
    }

    // Leaves are most operands: reading them here saves a call and a dispatch per leaf.
    [[gnu::always_inline]] std::uint64_t arg(std::uint32_t i) {
        const cexpr& x = c_.exprs[i];
        if (x.code == opcode::var) return vars_[x.a];
        if (x.code == opcode::literal) return x.imm;
        return eval(i);
    }

    std::uint64_t eval(std::uint32_t i) {
        const cexpr& x = c_.exprs[i];
        switch (x.code) {
        case opcode::literal: return x.imm;
        case opcode::var: return vars_[x.a];
        case opcode::param: return frame_[x.a];
        case opcode::load32: {
            const buffer_view& b = views_[x.a];
            const std::uint64_t k = arg(x.b);
            if (k >= b.count) {
                if (x.flag) unchecked_out_of_bounds("load of", b, k);
                return 0;
            }
            if (races_) races_->read(x.a, k, lane_);
            return read32(b.data + 4 * k);
        }
        case opcode::load64: {
            const buffer_view& b = views_[x.a];
            const std::uint64_t k = arg(x.b);
            if (k >= b.count) {
                if (x.flag) unchecked_out_of_bounds("load of", b, k);
                return 0;
            }
            if (races_) races_->read(x.a, k, lane_);
            return read64(b.data + 8 * k);
        }
        case opcode::load_bool: {
            const buffer_view& b = views_[x.a];
            const std::uint64_t k = arg(x.b);
            if (k >= b.count) {
                if (x.flag) unchecked_out_of_bounds("load of", b, k);
                return 0;
            }
            if (races_) races_->read(x.a, k, lane_);
            return read32(b.data + 4 * k) != 0;
        }
        case opcode::load_byte: {
            const buffer_view& b = views_[x.a];
            const std::uint64_t k = arg(x.b);
            if (k >= b.count) {
                if (x.flag) unchecked_out_of_bounds("load of", b, k);
                return 0;
            }
            if (races_) races_->read(x.a, k, lane_);
            return b.data[k];
        }
        case opcode::load_u32_le: {
            // Four byte loads, each bounded as a byte load is (an index past 2^32 - 1 is past the
            // buffer too: no buffer holds more than 2^32 bytes).
            const buffer_view& b = views_[x.a];
            const std::uint64_t k = arg(x.b);
            std::uint64_t v = 0;
            for (std::uint64_t j = 0; j < 4; ++j) {
                if (k + j >= b.count) {
                    if (x.flag) unchecked_out_of_bounds("load of", b, k + j);
                    continue;
                }
                if (races_) races_->read(x.a, k + j, lane_);
                v |= std::uint64_t{b.data[k + j]} << (8 * j);
            }
            return v;
        }
        case opcode::buf_len: return views_[x.a].len;
        case opcode::local_id: return local_ids_[lane_][x.sub];
        case opcode::workgroup_id: return group_[x.sub];
        case opcode::invocation_id:
            return std::uint32_t(group_[x.sub] * size_[x.sub] + local_ids_[lane_][x.sub]);
        case opcode::subgroup_local_id: return lane_ % subgroup_size_;
        case opcode::subgroup_id: return lane_ / subgroup_size_;
        case opcode::add32: return (arg(x.a) + arg(x.b)) & low32;
        case opcode::add64: return arg(x.a) + arg(x.b);
        case opcode::sub32: return (arg(x.a) - arg(x.b)) & low32;
        case opcode::sub64: return arg(x.a) - arg(x.b);
        case opcode::mul32: return (arg(x.a) * arg(x.b)) & low32;
        case opcode::mul64: return arg(x.a) * arg(x.b);
        case opcode::div_u32:
        case opcode::div_u64: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return b == 0 ? a : a / b;
        }
        case opcode::div_i32: {
            const std::int32_t a = as_i32(arg(x.a)), b = as_i32(arg(x.b));
            if (b == 0 || (a == INT32_MIN && b == -1)) return from_i32(a);
            return from_i32(a / b);
        }
        case opcode::mod_u32:
        case opcode::mod_u64: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return b == 0 ? 0 : a % b;
        }
        case opcode::mod_i32: {
            const std::int32_t a = as_i32(arg(x.a)), b = as_i32(arg(x.b));
            if (b == 0 || b == -1) return 0; // x % -1 is always 0; C leaves INT_MIN % -1 undefined
            return from_i32(a % b);
        }
        case opcode::bit_and: return arg(x.a) & arg(x.b);
        case opcode::bit_or: return arg(x.a) | arg(x.b);
        case opcode::bit_xor: return arg(x.a) ^ arg(x.b);
        case opcode::shl32: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return (a << (b & 31)) & low32;
        }
        case opcode::shl64: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return a << (b & 63);
        }
        case opcode::shr_u32: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return a >> (b & 31);
        }
        case opcode::shr_i32: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return from_i32(as_i32(a) >> (b & 31)); // arithmetic: C++20 defines >> on negatives
        }
        case opcode::shr_u64: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return a >> (b & 63);
        }
        case opcode::eq: return arg(x.a) == arg(x.b);
        case opcode::ne: return arg(x.a) != arg(x.b);
        case opcode::lt_u: return arg(x.a) < arg(x.b);
        case opcode::le_u: return arg(x.a) <= arg(x.b);
        case opcode::gt_u: return arg(x.a) > arg(x.b);
        case opcode::ge_u: return arg(x.a) >= arg(x.b);
        case opcode::lt_i: return as_i32(arg(x.a)) < as_i32(arg(x.b));
        case opcode::le_i: return as_i32(arg(x.a)) <= as_i32(arg(x.b));
        case opcode::gt_i: return as_i32(arg(x.a)) > as_i32(arg(x.b));
        case opcode::ge_i: return as_i32(arg(x.a)) >= as_i32(arg(x.b));
        case opcode::min_u: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return b < a ? b : a;
        }
        case opcode::max_u: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return a < b ? b : a;
        }
        case opcode::min_i: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return as_i32(b) < as_i32(a) ? b : a;
        }
        case opcode::max_i: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return as_i32(a) < as_i32(b) ? b : a;
        }
        case opcode::abs_diff_u: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return a > b ? a - b : b - a;
        }
        case opcode::abs_diff_i32: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return (as_i32(a) > as_i32(b) ? a - b : b - a) & low32; // exact modulo 2^32
        }
        case opcode::negate32: return (0 - arg(x.a)) & low32;
        case opcode::negate64: return 0 - arg(x.a);
        case opcode::bit_not32: return ~arg(x.a) & low32;
        case opcode::bit_not64: return ~arg(x.a);
        case opcode::logical_not: return 1 - arg(x.a);
        case opcode::popcount: return static_cast<std::uint64_t>(std::popcount(arg(x.a)));
        case opcode::clz32: return static_cast<std::uint64_t>(std::countl_zero(static_cast<std::uint32_t>(arg(x.a))));
        case opcode::clz64: return static_cast<std::uint64_t>(std::countl_zero(arg(x.a)));
        case opcode::ctz32: return static_cast<std::uint64_t>(std::countr_zero(static_cast<std::uint32_t>(arg(x.a))));
        case opcode::ctz64: return static_cast<std::uint64_t>(std::countr_zero(arg(x.a)));
        case opcode::reverse32: return reverse_bits32(static_cast<std::uint32_t>(arg(x.a)));
        case opcode::reverse64: return reverse_bits64(arg(x.a));
        case opcode::truncate32: return arg(x.a) & low32;
        case opcode::sign_extend: return static_cast<std::uint64_t>(static_cast<std::int64_t>(as_i32(arg(x.a))));
        case opcode::to_bool: return arg(x.a) != 0;
        case opcode::select: {
            const std::uint64_t cond = arg(x.a), t = arg(x.b), f = arg(x.c);
            return cond ? t : f;
        }
        case opcode::atomic: return atomic(x);
        case opcode::call: {
            std::uint64_t* args = staging_.data() + x.imm;
            for (std::uint32_t k = 0; k < x.b; ++k) args[k] = arg(c_.call_args[x.a + k]);
            const std::uint64_t* caller = frame_;
            frame_ = args;
            const std::uint64_t r = arg(c_.function_roots[x.c]);
            frame_ = caller;
            return r;
        }
        }
        return 0;
    }

    std::uint64_t atomic(const cexpr& x) {
        const buffer_view& b = views_[x.imm];
        const std::uint64_t k = arg(x.a);
        const std::uint32_t expected = x.c == none ? 0 : static_cast<std::uint32_t>(arg(x.c));
        const std::uint32_t v = static_cast<std::uint32_t>(arg(x.b));
        if (k >= b.count) return 0;
        std::uint8_t* p = b.data + 4 * k;
        const std::uint32_t old = read32(p);
        const bool s = x.flag != 0;
        std::uint32_t next = old;
        switch (static_cast<ir::atomic_op>(x.sub)) {
        case ir::atomic_op::add: next = old + v; break;
        case ir::atomic_op::bit_or: next = old | v; break;
        case ir::atomic_op::bit_and: next = old & v; break;
        case ir::atomic_op::bit_xor: next = old ^ v; break;
        case ir::atomic_op::min: next = (s ? as_i32(v) < as_i32(old) : v < old) ? v : old; break;
        case ir::atomic_op::max: next = (s ? as_i32(v) > as_i32(old) : v > old) ? v : old; break;
        case ir::atomic_op::exchange: next = v; break;
        case ir::atomic_op::compare_exchange: next = old == expected ? v : old; break;
        }
        write32(p, next);
        return old;
    }

    void exec(const std::vector<cnode>& body, lane_list lanes) {
        for (const cnode& n : body) exec(n, lanes);
    }

    void exec(const cnode& n, lane_list lanes) {
        switch (n.kind) {
        case step::set:
            for (std::uint32_t l : lanes)
                if (state_[l] == running) {
                    enter(l);
                    vars_[n.slot] = eval(n.e0);
                }
            return;
        case step::subgroup_set: subgroup_set(n, lanes); return;
        case step::store32:
        case step::store64:
        case step::store_bool:
        case step::store_byte:
            for (std::uint32_t l : lanes)
                if (state_[l] == running) {
                    enter(l);
                    store(n, eval(n.e0), eval(n.e1));
                }
            return;
        case step::if_: {
            auto& then_lanes = scratch_[2 * n.depth];
            auto& else_lanes = scratch_[2 * n.depth + 1];
            then_lanes.clear();
            else_lanes.clear();
            for (std::uint32_t l : lanes)
                if (state_[l] == running) {
                    enter(l);
                    (eval(n.e0) ? then_lanes : else_lanes).push_back(l);
                }
            if (!then_lanes.empty()) exec(n.body, then_lanes);
            if (!else_lanes.empty()) exec(n.else_body, else_lanes);
            return;
        }
        case step::loop: counted_loop(n, lanes); return;
        case step::while_: while_loop(n, lanes); return;
        case step::break_: leave(lanes, broken); return;
        case step::continue_: leave(lanes, continued); return;
        case step::return_: leave(lanes, returned); return;
        case step::block: exec(n.body, lanes); return;
        case step::nothing: return;
        case step::barrier:
            if (races_) races_->barrier();
            return;
        case step::subgroup_barrier:
            if (races_) {
                races_->subgroup_barrier();
                for (std::uint32_t l : lanes)
                    if (state_[l] == running) races_->joined(l);
            }
            return;
        }
    }

    // Every lane taking part evaluates its operands, then each gets the op's value over its
    // subgroup's operands. Validation keeps subgroup ops to control flow the whole subgroup takes,
    // so every lane of a subgroup takes part; were one not to, it would count as 0 / false.
    void subgroup_set(const cnode& n, lane_list lanes) {
        using ir::subgroup_op;
        const std::uint32_t S = subgroup_size_;
        for (std::uint32_t l : lanes)
            if (state_[l] == running) {
                enter(l);
                operands_[2 * l] = eval(n.e0);
                operands_[2 * l + 1] = n.e1 == none ? 0 : eval(n.e1);
                taking_part_[l] = 1;
            }
        for (std::uint32_t l : lanes) {
            if (state_[l] != running) continue;
            const std::uint32_t base = l - l % S, i = l % S;
            const auto value = [&](std::uint32_t lane) -> std::uint64_t {
                return taking_part_[base + lane] ? operands_[2 * (base + lane)] : 0;
            };
            const std::uint64_t a = operands_[2 * l], b = operands_[2 * l + 1];
            std::uint64_t ballot = 0, sum = 0;
            for (std::uint32_t j = 0; j < S; ++j) ballot |= std::uint64_t(value(j) != 0) << j;
            std::uint64_t r = 0;
            switch (static_cast<subgroup_op>(n.sub)) {
            case subgroup_op::broadcast:
            case subgroup_op::shuffle: r = value(static_cast<std::uint32_t>(b % S)); break;
            case subgroup_op::shuffle_up: r = b <= i ? value(static_cast<std::uint32_t>(i - b)) : a; break;
            case subgroup_op::shuffle_down: r = b < S - i ? value(static_cast<std::uint32_t>(i + b)) : a; break;
            case subgroup_op::shuffle_xor: r = (i ^ b) < S ? value(static_cast<std::uint32_t>(i ^ b)) : a; break;
            case subgroup_op::ballot: r = ballot; break;
            case subgroup_op::any: r = ballot != 0; break;
            case subgroup_op::all: r = ballot == (S == 64 ? ~0ull : (1ull << S) - 1); break;
            case subgroup_op::inclusive_add:
            case subgroup_op::exclusive_add: {
                const bool inclusive = static_cast<subgroup_op>(n.sub) == subgroup_op::inclusive_add;
                for (std::uint32_t j = 0; j < i + (inclusive ? 1 : 0); ++j) sum += value(j);
                r = sum & low32;
                break;
            }
            }
            results_[l] = r;
        }
        for (std::uint32_t l : lanes)
            if (state_[l] == running) {
                slots_[std::size_t(l) * c_.slots + n.slot] = results_[l];
                taking_part_[l] = 0;
            }
    }

    void store(const cnode& n, std::uint64_t index, std::uint64_t value) {
        const buffer_view& b = views_[n.buffer];
        if (index >= b.count) {
            if (n.unchecked) unchecked_out_of_bounds("store to", b, index);
            return;
        }
        if (races_) races_->write(n.buffer, index, lane_, value);
        switch (n.kind) {
        case step::store64: write64(b.data + 8 * index, value); return;
        case step::store_byte: b.data[index] = static_cast<std::uint8_t>(value); return;
        default: write32(b.data + 4 * index, static_cast<std::uint32_t>(value)); return; // Bool is 0/1
        }
    }

    void leave(lane_list lanes, lane_state why) {
        for (std::uint32_t l : lanes)
            if (state_[l] == running) state_[l] = why;
    }

    // After an iteration: Continue ends only the iteration; Break ends the loop (the invocation
    // runs on after it); Return ends everything. Returns whether the lane stays in the loop.
    bool finish_iteration(std::uint32_t l) {
        switch (state_[l]) {
        case returned: return false;
        case broken: state_[l] = running; return false;
        default: state_[l] = running; return true;
        }
    }

    void counted_loop(const cnode& n, lane_list lanes) {
        auto& in = scratch_[2 * n.depth];
        in.clear();
        const std::uint64_t mask = n.wide ? ~std::uint64_t{0} : low32;
        auto below = [&](std::uint64_t a, std::uint64_t b) { return n.is_signed ? as_i32(a) < as_i32(b) : a < b; };
        for (std::uint32_t l : lanes)
            if (state_[l] == running) {
                enter(l);
                const std::uint64_t from = eval(n.e0), to = eval(n.e1);
                vars_[n.slot] = from;
                vars_[n.end_slot] = to;
                if (below(from, to)) in.push_back(l);
            }
        while (!in.empty()) {
            exec(n.body, in);
            std::size_t kept = 0;
            for (std::uint32_t l : in) {
                if (!finish_iteration(l)) continue;
                std::uint64_t* v = slots_.data() + std::size_t(l) * c_.slots;
                v[n.slot] = (v[n.slot] + 1) & mask; // cannot wrap: the counter was below `to`
                if (below(v[n.slot], v[n.end_slot])) in[kept++] = l;
            }
            in.resize(kept);
        }
    }

    void while_loop(const cnode& n, lane_list lanes) {
        auto& in = scratch_[2 * n.depth];
        in.clear();
        for (std::uint32_t l : lanes)
            if (state_[l] == running) in.push_back(l);
        while (!in.empty()) {
            std::size_t kept = 0;
            for (std::uint32_t l : in) {
                enter(l);
                if (eval(n.e0)) in[kept++] = l;
            }
            in.resize(kept);
            if (in.empty()) return;
            exec(n.body, in);
            kept = 0;
            for (std::uint32_t l : in)
                if (finish_iteration(l)) in[kept++] = l;
            in.resize(kept);
        }
    }
};

// Buffers must exist and hold whole elements before anything runs, so that no access can fall
// between the bounds check and the end of the data.
inline void check_buffers(const ir::program& p, const std::vector<std::vector<std::uint8_t>>& buffers) {
    for (const auto& b : p.buffers) {
        if (!b.is_storage()) continue;
        const std::string what = "buffer \"" + b.name + "\" (binding " + std::to_string(b.binding) + ")";
        if (b.binding >= buffers.size())
            throw resource_error("reference::run: " + what + " has no data: only " + std::to_string(buffers.size()) +
                                 " buffers were given");
        const std::uint32_t unit = b.element == ir::data_type::bytes ? 4 : ir::min_bytes(b.element);
        if (buffers[b.binding].size() % unit != 0)
            throw resource_error("reference::run: " + what + " has " + std::to_string(buffers[b.binding].size()) +
                                 " bytes, not a multiple of its " + std::to_string(unit) + "-byte " +
                                 (b.element == ir::data_type::bytes ? "backing word" : "element"));
    }
}

} // namespace vyre::reference::detail
