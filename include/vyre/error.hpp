// The one exception hierarchy of vyre, and the names of OpenCL error codes.
// Every failure a caller can act on is one of these types; the message names the offending value.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace vyre {

// Base of every error vyre throws.
class error : public std::runtime_error {
public:
    explicit error(const std::string& what) : std::runtime_error(what) {}
};

// No OpenCL platform or device, or a VYRE_DEVICE filter that matches nothing.
class no_device : public error {
public:
    using error::error;
};

// An ir::Program broke a rule; the message names the node, the buffer and the rule.
class validation_error : public error {
public:
    using error::error;
};

// The OpenCL compiler rejected generated source. Carries the full build log and the source.
class build_error : public error {
public:
    build_error(const std::string& what, std::string log, std::string source)
        : error(what + "\n--- build log ---\n" + log), log_(std::move(log)), source_(std::move(source)) {}
    const std::string& log() const noexcept { return log_; }
    const std::string& source() const noexcept { return source_; }

private:
    std::string log_;
    std::string source_;
};

// A request exceeds what the device or the op allows (memory, sizes, counts).
class resource_error : public error {
public:
    using error::error;
};

// Malformed input data (archives, frames, graphs). `offset` is the byte position where the
// problem was found, or npos when the error is not tied to one position.
class format_error : public error {
public:
    static constexpr std::uint64_t npos = ~std::uint64_t{0};
    explicit format_error(const std::string& what, std::uint64_t offset = npos)
        : error(offset == npos ? what : what + " (at byte offset " + std::to_string(offset) + ")"),
          offset_(offset), message_(what) {}
    std::uint64_t offset() const noexcept { return offset_; }
    // what() without the offset: for a caller that names the same error within a larger input.
    const std::string& message() const noexcept { return message_; }

private:
    std::uint64_t offset_;
    std::string message_;
};

// An OpenCL call failed at run time. Carries the raw code and its symbolic name.
class opencl_error : public error {
public:
    opencl_error(const std::string& call, int code);
    int code() const noexcept { return code_; }

private:
    int code_;
};

// CL_SUCCESS -> "CL_SUCCESS", -5 -> "CL_OUT_OF_RESOURCES", unknown codes -> "CL error <n>".
inline std::string opencl_error_name(int code) {
    switch (code) {
    case 0: return "CL_SUCCESS";
    case -1: return "CL_DEVICE_NOT_FOUND";
    case -2: return "CL_DEVICE_NOT_AVAILABLE";
    case -3: return "CL_COMPILER_NOT_AVAILABLE";
    case -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case -5: return "CL_OUT_OF_RESOURCES";
    case -6: return "CL_OUT_OF_HOST_MEMORY";
    case -7: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case -8: return "CL_MEM_COPY_OVERLAP";
    case -9: return "CL_IMAGE_FORMAT_MISMATCH";
    case -10: return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
    case -11: return "CL_BUILD_PROGRAM_FAILURE";
    case -12: return "CL_MAP_FAILURE";
    case -13: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
    case -14: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case -15: return "CL_COMPILE_PROGRAM_FAILURE";
    case -16: return "CL_LINKER_NOT_AVAILABLE";
    case -17: return "CL_LINK_PROGRAM_FAILURE";
    case -18: return "CL_DEVICE_PARTITION_FAILED";
    case -19: return "CL_KERNEL_ARG_INFO_NOT_AVAILABLE";
    case -30: return "CL_INVALID_VALUE";
    case -31: return "CL_INVALID_DEVICE_TYPE";
    case -32: return "CL_INVALID_PLATFORM";
    case -33: return "CL_INVALID_DEVICE";
    case -34: return "CL_INVALID_CONTEXT";
    case -35: return "CL_INVALID_QUEUE_PROPERTIES";
    case -36: return "CL_INVALID_COMMAND_QUEUE";
    case -37: return "CL_INVALID_HOST_PTR";
    case -38: return "CL_INVALID_MEM_OBJECT";
    case -39: return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
    case -40: return "CL_INVALID_IMAGE_SIZE";
    case -41: return "CL_INVALID_SAMPLER";
    case -42: return "CL_INVALID_BINARY";
    case -43: return "CL_INVALID_BUILD_OPTIONS";
    case -44: return "CL_INVALID_PROGRAM";
    case -45: return "CL_INVALID_PROGRAM_EXECUTABLE";
    case -46: return "CL_INVALID_KERNEL_NAME";
    case -47: return "CL_INVALID_KERNEL_DEFINITION";
    case -48: return "CL_INVALID_KERNEL";
    case -49: return "CL_INVALID_ARG_INDEX";
    case -50: return "CL_INVALID_ARG_VALUE";
    case -51: return "CL_INVALID_ARG_SIZE";
    case -52: return "CL_INVALID_KERNEL_ARGS";
    case -53: return "CL_INVALID_WORK_DIMENSION";
    case -54: return "CL_INVALID_WORK_GROUP_SIZE";
    case -55: return "CL_INVALID_WORK_ITEM_SIZE";
    case -56: return "CL_INVALID_GLOBAL_OFFSET";
    case -57: return "CL_INVALID_EVENT_WAIT_LIST";
    case -58: return "CL_INVALID_EVENT";
    case -59: return "CL_INVALID_OPERATION";
    case -60: return "CL_INVALID_GL_OBJECT";
    case -61: return "CL_INVALID_BUFFER_SIZE";
    case -62: return "CL_INVALID_MIP_LEVEL";
    case -63: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case -64: return "CL_INVALID_PROPERTY";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "CL error " + std::to_string(code);
    }
}

inline opencl_error::opencl_error(const std::string& call, int code)
    : error(call + " failed: " + opencl_error_name(code) + " (" + std::to_string(code) + ")"), code_(code) {}

} // namespace vyre
