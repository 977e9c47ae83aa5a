// The CPU interpreter of ir::program: the oracle that DEFINES what every IR program means.
// The OpenCL lowering, and any other backend, must leave the buffers exactly as run() does.
// run() compiles the program (reference/detail/interpreter_compiler.hpp) and runs it on a
// lockstep machine (reference/detail/interpreter_machine.hpp); this comment is what both obey.
//
// Semantics (the project's definition; a backend that differs is wrong):
//
// Values. U32, I32 and Bool are 32 bits wide, U64 is 64 bits. A value is its bit pattern; every
//   integer operation wraps (two's complement for I32, never undefined). Bool is 0 or 1.
// Literals: their bits (the low 32 bits for 32-bit types); a Bool literal is (value != 0).
// Binary ops (both operands have one type):
//   Add Sub Mul        wrap modulo 2^width.
//   Div                x / 0 == x (the dividend). I32 truncates toward zero; INT_MIN / -1 == INT_MIN.
//   Mod                x % 0 == 0. I32 takes the dividend's sign (C); INT_MIN % -1 == 0.
//   Shl Shr            the amount is masked to the width (b & 31, or b & 63 for U64);
//                      Shr is arithmetic for I32, logical for U32 and U64.
//   Lt Le Gt Ge Min Max  signed for I32, unsigned otherwise.
//   Eq Ne Lt Le Gt Ge And Or  yield Bool (0/1). Eq Ne BitAnd BitOr BitXor also take Bool operands.
//   AbsDiff            |a - b| in the type's order, computed without overflow, returned as a bit
//                      pattern of the operand type: AbsDiff(I32 INT_MIN, I32 INT_MAX) == -1 (0xFFFFFFFF).
// Unary ops (on the bit pattern; the result has the operand's type): Negate = 0 - x (wrapping),
//   BitNot = ~x, LogicalNot (Bool) = 1 - x, Popcount, Clz (Clz(0) = width), Ctz (Ctz(0) = width),
//   ReverseBits (bit i moves to bit width-1-i).
// Cast: U32 <-> I32 keeps the bits; U32 -> U64 zero-extends; I32 -> U64 sign-extends; U64 -> U32/I32
//   keeps the low 32 bits; Bool -> integer gives 0/1; integer -> Bool is (x != 0).
// Select(c, a, b) = c ? a : b. Expressions have no side effects except Atomic, so the order in which
//   operands are evaluated is unobservable.
// Buffers. Storage buffer bytes are little-endian. Load(buffer, index) takes an element index; on a
//   Bytes buffer it is a BYTE index (byte i is lane i%4 of word i/4) and yields the byte 0..255 as U32.
//   An index >= the element count loads 0. A Bool buffer loads (word != 0). BufLen is the element
//   count, but the number of backing u32 words for Bytes. Store out of bounds does nothing; a Bytes
//   store writes the low 8 bits of the value into that one byte; a Bool store writes 0 or 1 as a u32.
//   Workgroup buffers hold `count` elements, are zero at the start of each workgroup and are
//   private to it. A Bytes workgroup buffer's count is in bytes, a multiple of 4; its BufLen is
//   count / 4 words, as for storage.
// Atomic(op, buffer, index, value) on a U32/I32 ReadWrite buffer returns the old element and stores
//   old op value (Add wraps; Min/Max are signed for I32; Exchange stores value). CompareExchange(index,
//   expected, value) stores value iff old == expected and returns old. Out of bounds: returns 0 and
//   changes nothing.
// Call(f, args) is f's body expression evaluated with its parameters bound to the arguments.
// Statements. Let evaluates its value and declares the variable; Assign updates it; blocks scope as
//   in C. Loop(counter, from, to) evaluates from and to ONCE on entry; the counter takes from,
//   from+1, ..., to-1 (nothing when from >= to, compared in the counter type's signedness).
//   While(cond) evaluates cond before every iteration. Break and Continue act on the innermost loop;
//   Return ends the invocation.
// Ids. InvocationId(axis) = WorkgroupId(axis) * workgroup_size[axis] + LocalId(axis).
// Subgroups. A program with subgroup_size S (a power of two up to 32, dividing its one-dimensional
//   workgroup) splits each workgroup into subgroups of S consecutive local ids: SubgroupId =
//   LocalId / S, SubgroupLocalId = LocalId % S, SubgroupSize = S. A subgroup op is evaluated by
//   every invocation of the subgroup together (validation ensures all of them reach it); each
//   first evaluates its operands (U32 values and lanes, Bool conditions), then, for invocation i:
//     Broadcast(v, k), Shuffle(v, k)   v of invocation k % S
//     ShuffleUp(v, d)                  v of invocation i - d, or its own v where d > i
//     ShuffleDown(v, d)                v of invocation i + d, or its own v where i + d >= S
//     ShuffleXor(v, m)                 v of invocation i ^ m, or its own v where i ^ m >= S
//     Ballot(c)                        U32, bit j set where invocation j's c holds
//     Any(c), All(c)                   Bool: c holds for some / every invocation of the subgroup
//     InclusiveAdd(v), ExclusiveAdd(v) the wrapping sum of v over invocations 0..i / 0..i-1
//   SubgroupBarrier, like Barrier, orders memory between the invocations it joins.
// Execution. Workgroups run one after another, x fastest, then y, then z. Inside a workgroup the
//   invocations run in LOCKSTEP: each statement runs to completion for every active invocation, in
//   local linear id order (x fastest), before the next statement starts. An If runs its then-branch
//   for the invocations whose condition holds, then its else-branch for the others. A loop iterates
//   while any invocation is still in it. Break, Continue and Return deactivate an invocation for the
//   rest of the iteration / the loop / the program. Hence Barrier and SubgroupBarrier are no-ops
//   here, and stores and atomics of one workgroup take effect in a defined order.
// Races. That order is the interpreter's, not a device's: a device orders two invocations'
//   accesses to one element only through a barrier that joins both. run_options::check_races
//   reports, as validation_error, a read or write of an element that another invocation of the
//   workgroup wrote (or, for a write, read) with no such barrier in between
//   (reference/detail/interpreter_races.hpp says exactly what it sees).
#pragma once

#include <vyre/ir/program.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/reference/detail/interpreter_compiler.hpp>
#include <vyre/reference/detail/interpreter_machine.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vyre::reference {

// The raw little-endian bytes of one storage buffer.
using buffer_data = std::vector<std::uint8_t>;

struct run_options {
    // Track every buffer access and refuse one that races with another invocation's (see Races
    // above). Costs 32 bytes of memory per buffer element and slows the run.
    bool check_races = false;
    // Buffers the check leaves out, by name: those whose races a program tolerates by design
    // (compression.zstd.blocks' resolve rounds read links that other invocations rewrite; either
    // value leads along the same chain). Say why wherever a name is given.
    std::vector<std::string> races_allowed_on;

    // The race check on, over every buffer but `allowed`.
    static run_options checking_races(std::vector<std::string> allowed = {}) {
        run_options o;
        o.check_races = true;
        o.races_allowed_on = std::move(allowed);
        return o;
    }
};

// Runs `p` over workgroups[0] * workgroups[1] * workgroups[2] workgroups of p.workgroup_size
// invocations. buffers[b] is the storage buffer with binding b and is updated in place.
// Throws validation_error for an invalid program (and, with check_races, a racy one),
// resource_error for a missing binding or a buffer that does not hold whole elements (whole u32
// words for Bytes).
inline void run(const ir::program& p, std::array<std::uint32_t, 3> workgroups, std::vector<buffer_data>& buffers,
                run_options options = {}) {
    ir::validate(p);
    detail::check_buffers(p, buffers);
    const detail::compiled c = detail::compiler(p).build();
    detail::machine(p, c, buffers, options.check_races, options.races_allowed_on).run(workgroups);
}

} // namespace vyre::reference
