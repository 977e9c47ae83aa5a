// The permanent type system of the IR: value types, buffer access modes, calling conventions,
// op signatures and buffer declarations.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::ir {

// Value types. Sizes and meanings are permanent: new types may be added, none changes.
enum class data_type : std::uint8_t {
    u32,     // 4 bytes, wrapping modulo 2^32
    i32,     // 4 bytes, two's complement, wrapping
    u64,     // 8 bytes, wrapping modulo 2^64 (OpenCL ulong)
    vec2u32, // 8 bytes, two u32 lanes
    vec4u32, // 16 bytes, four u32 lanes
    boolean, // 4 bytes in memory: 0 = false, 1 = true
    bytes,   // byte view over u32 words: byte i is lane i%4 (least significant first) of word i/4
};

// Bytes a value of the type needs (0 for the variable-length Bytes).
constexpr std::uint32_t min_bytes(data_type t) noexcept {
    switch (t) {
    case data_type::u32:
    case data_type::i32:
    case data_type::boolean: return 4;
    case data_type::u64:
    case data_type::vec2u32: return 8;
    case data_type::vec4u32: return 16;
    case data_type::bytes: return 0;
    }
    return 0;
}

// Size of one addressable element of a buffer of this type: Bytes buffers are indexed by byte.
constexpr std::uint32_t element_bytes(data_type t) noexcept { return t == data_type::bytes ? 1 : min_bytes(t); }

constexpr bool is_integer(data_type t) noexcept {
    return t == data_type::u32 || t == data_type::i32 || t == data_type::u64;
}
constexpr bool is_scalar(data_type t) noexcept { return is_integer(t) || t == data_type::boolean; }

constexpr std::string_view name(data_type t) noexcept {
    switch (t) {
    case data_type::u32: return "U32";
    case data_type::i32: return "I32";
    case data_type::u64: return "U64";
    case data_type::vec2u32: return "Vec2U32";
    case data_type::vec4u32: return "Vec4U32";
    case data_type::boolean: return "Bool";
    case data_type::bytes: return "Bytes";
    }
    return "?";
}

// How a program may use a buffer.
enum class buffer_access : std::uint8_t {
    read_only,  // input data: load only
    read_write, // outputs and scratch: load, store, atomics
    uniform,    // small constants (at most 64 KiB): load only
    workgroup,  // on-chip memory shared by one workgroup: load and store, no atomics, no binding
};

constexpr std::string_view name(buffer_access a) noexcept {
    switch (a) {
    case buffer_access::read_only: return "ReadOnly";
    case buffer_access::read_write: return "ReadWrite";
    case buffer_access::uniform: return "Uniform";
    case buffer_access::workgroup: return "Workgroup";
    }
    return "?";
}
constexpr bool writable(buffer_access a) noexcept {
    return a == buffer_access::read_write || a == buffer_access::workgroup;
}

// The calling contract between host and op. V1: input (read), output (read-write), params
// (uniform). V2 adds a read-only lookup table at `lookup_binding`.
struct convention {
    enum class version : std::uint8_t { v1, v2 };
    version kind = version::v1;
    std::uint32_t lookup_binding = 0;

    static convention v1() { return {}; }
    static convention v2(std::uint32_t lookup_binding) { return {version::v2, lookup_binding}; }
    friend bool operator==(const convention&, const convention&) = default;
};

// Input and output value types of an op.
struct op_signature {
    std::vector<data_type> inputs;
    data_type output = data_type::u32;

    // The fewest input bytes one invocation consumes: the sum of the inputs' sizes.
    std::uint32_t min_input_bytes() const noexcept {
        std::uint32_t sum = 0;
        for (auto t : inputs) sum += min_bytes(t);
        return sum;
    }
    friend bool operator==(const op_signature&, const op_signature&) = default;
};

// A buffer a program uses: a storage buffer bound at `binding`, or a workgroup array of `count`
// elements that lives in on-chip memory and has no binding.
struct buffer_decl {
    std::string name;
    std::uint32_t binding = 0;
    buffer_access access = buffer_access::read_only;
    data_type element = data_type::u32;
    std::uint32_t count = 0; // workgroup buffers only

    static buffer_decl storage(std::string name, std::uint32_t binding, buffer_access access, data_type element) {
        return {std::move(name), binding, access, element, 0};
    }
    static buffer_decl workgroup(std::string name, std::uint32_t count, data_type element) {
        return {std::move(name), 0, buffer_access::workgroup, element, count};
    }
    bool is_storage() const noexcept { return access != buffer_access::workgroup; }
    friend bool operator==(const buffer_decl&, const buffer_decl&) = default;
};

} // namespace vyre::ir
