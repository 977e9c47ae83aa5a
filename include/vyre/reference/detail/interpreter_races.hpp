// The reference interpreter's race check (reference::run_options::check_races): finds accesses of
// one workgroup that the lockstep machine orders but a device does not.
//
// The machine runs a workgroup's invocations in lockstep, so every program has one defined result
// there, racy or not. A device orders two invocations' accesses to one element only through a
// barrier that joins both: Barrier joins the whole workgroup, SubgroupBarrier one subgroup. The
// check keeps, for every element of every buffer, its last writer and its last two distinct
// readers, each with the time of the access, where time counts the barriers the workgroup has run.
// An access conflicts with an earlier one by another invocation (a read with a write; a write with a
// write or a read) when no barrier joining the two has run since the earlier one; the first
// conflict ends the run with validation_error naming the buffer, the element, both invocations and
// the kinds of access. One exception: invocations of one subgroup storing the same value to one
// element in the same statement (a subgroup-wide store of a uniform value, which some programs use
// so that every lane can read the byte back without a barrier) do not conflict with each other,
// and the element then reads as written by each invocation of that subgroup.
//
// What it does not see: conflicts between workgroups (they run one after another here and share
// no barrier on a device; programs give each workgroup its own output instead), and a read by a
// third invocation or more between barriers when two others read the element later (only the
// last two readers are kept), and a lane of a subgroup that shared a uniform store but did not
// itself store (a store under a branch some lanes skipped). Atomics are not tracked: they do not race with each other. A
// finding is always a real race of the program; a run without one is evidence, not proof.
#pragma once

#include <vyre/error.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace vyre::reference::detail {

class race_tracker {
public:
    // `subgroup_size` 0 or 1: the program has no subgroups; only Barrier orders invocations.
    race_tracker(std::uint32_t invocations, std::uint32_t subgroup_size)
        : subgroup_size_(subgroup_size > 1 ? subgroup_size : invocations),
          last_subgroup_barrier_((invocations + subgroup_size_ - 1) / subgroup_size_, 0) {}

    // Buffers in the program's order, each with its element count; 0 leaves the buffer out.
    void add_buffer(const std::string& name, std::uint64_t elements) {
        names_.push_back(&name);
        shadow_.emplace_back(elements);
    }

    void start_workgroup(std::array<std::uint32_t, 3> id) {
        ++serial_;
        group_ = id;
        now_ = 1;
        last_barrier_ = 0;
        std::fill(last_subgroup_barrier_.begin(), last_subgroup_barrier_.end(), 0);
    }

    // A workgroup barrier; a subgroup barrier, one call per statement, then joined() for each
    // invocation that runs it (validation keeps barriers to control flow that every invocation
    // they join takes, so one invocation stands for its subgroup). Each moves time on once, so
    // that accesses before it are ordered before those after.
    void barrier() { last_barrier_ = ++now_; }
    void subgroup_barrier() { ++now_; }
    void joined(std::uint32_t lane) { last_subgroup_barrier_[lane / subgroup_size_] = now_; }

    void read(std::uint32_t buffer, std::uint64_t element, std::uint32_t lane) {
        if (shadow_[buffer].empty()) return;
        record& r = at(buffer, element);
        const bool own = r.writer == lane || (r.shared && r.writer / subgroup_size_ == lane / subgroup_size_);
        if (r.writer != none && !own && !ordered(r.writer, lane, r.write_time))
            conflict(buffer, element, "read", lane, "written", r.writer);
        if (r.reader == lane) {
            r.read_time = now_;
        } else {
            r.reader2 = r.reader;
            r.read2_time = r.read_time;
            r.reader = static_cast<std::uint16_t>(lane);
            r.read_time = now_;
        }
    }

    void write(std::uint32_t buffer, std::uint64_t element, std::uint32_t lane, std::uint64_t value) {
        if (shadow_[buffer].empty()) return;
        record& r = at(buffer, element);
        const bool shared = r.writer != none && r.writer != lane && r.write_time == now_ && r.value == value &&
                            r.writer / subgroup_size_ == lane / subgroup_size_;
        if (r.writer != none && r.writer != lane && !shared && !ordered(r.writer, lane, r.write_time))
            conflict(buffer, element, "written", lane, "written", r.writer);
        if (r.reader != none && r.reader != lane && !ordered(r.reader, lane, r.read_time))
            conflict(buffer, element, "written", lane, "read", r.reader);
        if (r.reader2 != none && r.reader2 != lane && !ordered(r.reader2, lane, r.read2_time))
            conflict(buffer, element, "written", lane, "read", r.reader2);
        r.shared = shared;
        r.writer = static_cast<std::uint16_t>(lane);
        r.write_time = now_;
        r.value = value;
    }

private:
    static constexpr std::uint16_t none = 0xFFFF; // workgroups hold at most 1024 invocations
    struct record {
        std::uint64_t value = 0;  // the last write's
        std::uint32_t serial = 0; // the workgroup the entry belongs to; older entries are void
        std::uint32_t write_time = 0, read_time = 0, read2_time = 0;
        std::uint16_t writer = none, reader = none, reader2 = none;
        bool shared = false; // the last write was one store of one value by several invocations of its subgroup
    };

    std::uint32_t subgroup_size_;
    std::vector<std::uint32_t> last_subgroup_barrier_; // by subgroup id
    std::vector<const std::string*> names_;
    std::vector<std::vector<record>> shadow_;
    std::uint32_t serial_ = 0;
    std::array<std::uint32_t, 3> group_{};
    std::uint32_t now_ = 1;
    std::uint32_t last_barrier_ = 0;

    record& at(std::uint32_t buffer, std::uint64_t element) {
        record& r = shadow_[buffer][element];
        if (r.serial != serial_) {
            r = record{};
            r.serial = serial_;
        }
        return r;
    }

    // Whether a barrier joining invocations a and b has run since time t.
    bool ordered(std::uint32_t a, std::uint32_t b, std::uint32_t t) const noexcept {
        if (last_barrier_ > t) return true;
        return a / subgroup_size_ == b / subgroup_size_ && last_subgroup_barrier_[a / subgroup_size_] > t;
    }

    [[noreturn]] void conflict(std::uint32_t buffer, std::uint64_t element, const char* now_did, std::uint32_t lane, const char* before,
                               std::uint32_t other) const {
        const auto who = [&](std::uint32_t l) {
            return "invocation " + std::to_string(l) + " (subgroup " + std::to_string(l / subgroup_size_) + ")";
        };
        throw validation_error("data race in workgroup (" + std::to_string(group_[0]) + ", " + std::to_string(group_[1]) + ", " +
                               std::to_string(group_[2]) + "): " + *names_[buffer] + "[" + std::to_string(element) + "] " + now_did +
                               " by " + who(lane) + " after " + who(other) + " had " + before +
                               " it, with no barrier joining the two in between");
    }
};

} // namespace vyre::reference::detail
