// Test data and tooling shared by the test programs: seeded byte generators, corpora read from the
// system's headers, files in temporary folders, and running command-line tools (lz4, zstd, pzstd).
#pragma once

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <new>
#include <optional>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <stdlib.h> // mkdtemp
#include <sys/resource.h> // setrlimit
#include <sys/wait.h>     // waitpid
#include <unistd.h>       // fork

namespace vyre::test {

using bytes = std::vector<std::uint8_t>;

inline bytes to_bytes(std::string_view s) { return bytes(s.begin(), s.end()); }

inline bytes concat(std::initializer_list<bytes> parts) {
    bytes out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

// ---- seeded generators (the tests depend on the exact bytes for a seed) ----------------------------

inline bytes random_bytes(std::mt19937_64& rng, std::size_t n) {
    bytes b(n);
    for (auto& v : b) v = static_cast<std::uint8_t>(rng());
    return b;
}

inline bytes text_bytes(std::mt19937_64& rng, std::size_t n) {
    static const char* words[] = {"the ",   "device ", "kernel ", "block ", "offset ", "match ", "literal ",
                                  "frame ", "vyre ",   "\n",      "int ",   "return ", "{ ",     "} ",
                                  "const ", "std::",   "uint32_t ", "0x184D2204 ", "(", ");\n"};
    bytes b;
    while (b.size() < n) {
        const std::string_view w = words[rng() % std::size(words)];
        b.insert(b.end(), w.begin(), w.end());
    }
    b.resize(n);
    return b;
}

inline bytes repetitive_bytes(std::mt19937_64& rng, std::size_t n) {
    bytes b;
    while (b.size() < n) {
        const std::size_t run = 1 + rng() % 700;
        if (rng() % 2) {
            b.insert(b.end(), run, static_cast<std::uint8_t>(rng() % 4));
        } else {
            const std::size_t period = 1 + rng() % 9;
            for (std::size_t i = 0; i < run; ++i) b.push_back(static_cast<std::uint8_t>('a' + i % period));
        }
    }
    b.resize(n);
    return b;
}

// ---- files -----------------------------------------------------------------------------------------

// A file's bytes; the test stops, naming the file, when it cannot be read.
inline bytes read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    BOOST_REQUIRE_MESSAGE(in, "cannot read " << p);
    return bytes(std::istreambuf_iterator<char>(in), {});
}

inline void write_file(const std::filesystem::path& p, std::span<const std::uint8_t> data) {
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    BOOST_REQUIRE_MESSAGE(out, "cannot write " << p);
}

inline void write_text(const std::filesystem::path& p, const std::string& s) {
    write_file(p, std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
}

// A new folder temp_directory_path()/PREFIXxxxxxx (mkdtemp: unique even between concurrent test
// programs), removed with everything in it on destruction.
struct scratch_dir {
    std::filesystem::path path;
    explicit scratch_dir(const std::string& prefix) {
        std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
        BOOST_REQUIRE_MESSAGE(::mkdtemp(tmpl.data()) != nullptr, "cannot create a folder like " << tmpl);
        path = tmpl;
    }
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;
    ~scratch_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

// A folder temp_directory_path()/PREFIX<pid>, created on construction (emptied first where
// clear_first) and removed with everything in it on destruction.
struct temp_dir {
    std::filesystem::path path;
    temp_dir(const std::string& prefix, bool clear_first)
        : path(std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()))) {
        if (clear_first) std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// ---- corpora: real files no one here wrote ---------------------------------------------------------

// The system's headers (/usr/include/linux, else /usr/include), concatenated in sorted path order
// (a poor man's tar), up to `limit` bytes. Falls back to text_bytes (seed 1) where they give less
// than half of that.
inline bytes system_corpus(std::size_t limit) {
    std::vector<std::filesystem::path> paths;
    std::error_code ec;
    for (const char* root : {"/usr/include/linux", "/usr/include"}) {
        if (!std::filesystem::is_directory(root, ec)) continue;
        for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
             !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
            if (it->is_regular_file(ec)) paths.push_back(it->path());
        if (!paths.empty()) break;
    }
    std::sort(paths.begin(), paths.end());
    bytes out;
    for (const auto& p : paths) {
        if (out.size() >= limit) break;
        const bytes b = read_file(p);
        out.insert(out.end(), b.begin(), b.begin() + static_cast<std::ptrdiff_t>(std::min(b.size(), limit - out.size())));
    }
    if (out.size() < limit / 2) {
        std::mt19937_64 rng(1);
        out = text_bytes(rng, limit);
    }
    return out;
}

// For zstd: real text (the system's Linux headers, at most `text_bytes`; /usr/include/linux must
// exist), incompressible bytes (raw blocks), long runs (RLE blocks), then half the text and the
// noise again (matches reaching into raw blocks).
inline bytes make_corpus(std::size_t text_bytes, std::uint64_t seed) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator("/usr/include/linux"))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    bytes text;
    for (const auto& f : files) {
        if (text.size() >= text_bytes) break;
        const bytes b = read_file(f);
        text.insert(text.end(), b.begin(), b.end());
    }
    text.resize(std::min(text.size(), text_bytes));
    std::mt19937_64 rng(seed);
    const bytes noise = random_bytes(rng, text_bytes / 4);
    bytes out = text;
    out.insert(out.end(), noise.begin(), noise.end());
    out.insert(out.end(), 300000, 0);
    out.insert(out.end(), 140000, 'A');
    out.insert(out.end(), text.begin(), text.begin() + static_cast<std::ptrdiff_t>(text.size() / 2));
    out.insert(out.end(), noise.begin(), noise.end());
    return out;
}

// ---- command-line tools ----------------------------------------------------------------------------

// Whether `command` exits 0 (its output discarded), e.g. "lz4 -V".
inline bool command_succeeds(const std::string& command) {
    return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

// `p` quoted for the shell: 'p', with every ' written as '\''.
inline std::string shell_quote(const std::filesystem::path& p) {
    std::string out = "'";
    for (const char c : p.string()) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// Runs a shell command; the test stops, naming it and its status, unless it exits 0.
inline void run_command(const std::string& cmd) {
    const int rc = std::system(cmd.c_str());
    BOOST_REQUIRE_MESSAGE(rc == 0, "command failed (status " << rc << "): " << cmd);
}

// What a shell command prints on stdout (the test stops if it cannot be started).
inline std::string command_output(const std::string& cmd) {
    FILE* pipe = ::popen(cmd.c_str(), "r");
    BOOST_REQUIRE_MESSAGE(pipe, "cannot run: " << cmd);
    std::string out;
    char buf[65536];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    ::pclose(pipe);
    return out;
}

// Whether the shell finds `tool` on PATH.
inline bool have_tool(const std::string& tool) { return command_succeeds("command -v " + tool); }

// Runs `tool -q options -c in > out` and returns the output file's bytes.
inline bytes run_tool(const std::string& tool, const std::string& options, const std::filesystem::path& in,
                      const std::filesystem::path& out) {
    const std::string cmd = tool + " -q " + options + " -c '" + in.string() + "' > '" + out.string() + "'";
    BOOST_TEST_INFO("command: " << cmd);
    BOOST_REQUIRE_EQUAL(std::system(cmd.c_str()), 0);
    return read_file(out);
}

// Compresses `content` with `lz4 -q -f options` through dir/NAME.raw and dir/NAME.lz4.
inline bytes lz4_tool(const temp_dir& dir, const bytes& content, const std::string& options, const std::string& name) {
    const std::string in = dir / (name + ".raw"), out = dir / (name + ".lz4");
    write_file(in, content);
    const std::string cmd = "lz4 -q -f " + options + " '" + in + "' '" + out + "' >/dev/null 2>&1";
    BOOST_REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "command failed: " << cmd);
    return read_file(out);
}

// Whether this program runs under AddressSanitizer, whose shadow memory takes terabytes of
// address space (so address-space caps cannot be tested there).
inline constexpr bool under_address_sanitizer =
#if defined(__SANITIZE_ADDRESS__)
    true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

// Runs body() in a child process whose address space is capped `headroom` bytes above what this
// process holds now, and returns the child's exit status: body's return value, 70 for an
// uncaught std::bad_alloc (the allocation the cap exists to catch), 71 for any other exception.
// A test of memory bounds: what would allocate by a declared size fails there with bad_alloc.
// nullopt under AddressSanitizer (see above).
template <class Body>
std::optional<int> exit_status_with_address_space_headroom(std::uint64_t headroom, Body body) {
    if constexpr (under_address_sanitizer) {
        return std::nullopt;
    } else {
        std::uint64_t vm_kib = 0;
        {
            std::ifstream status("/proc/self/status");
            for (std::string line; std::getline(status, line);)
                if (line.rfind("VmSize:", 0) == 0) vm_kib = std::strtoull(line.c_str() + 7, nullptr, 10);
        }
        BOOST_REQUIRE(vm_kib > 0u);
        std::fflush(nullptr);
        const pid_t child = ::fork();
        BOOST_REQUIRE(child >= 0);
        if (child == 0) {
            const rlimit cap{(vm_kib << 10) + headroom, (vm_kib << 10) + headroom};
            if (::setrlimit(RLIMIT_AS, &cap) != 0) ::_exit(72);
            try {
                ::_exit(body());
            } catch (const std::bad_alloc&) {
                ::_exit(70);
            } catch (...) {
                ::_exit(71);
            }
        }
        int st = 0;
        BOOST_REQUIRE(::waitpid(child, &st, 0) == child);
        BOOST_REQUIRE(WIFEXITED(st));
        return WEXITSTATUS(st);
    }
}

// ---------------------------------------------------------------- tar archives written by hand

// Writes v in octal into the `width`-byte field at `at`, NUL-terminated.
inline void put_octal(std::vector<std::uint8_t>& b, std::size_t at, std::size_t width, std::uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%0*llo", static_cast<int>(width - 1), static_cast<unsigned long long>(v));
    std::memcpy(&b[at], buf, width - 1);
    b[at + width - 1] = 0;
}

// Recomputes the checksum of the header block at `at` (unsigned sum, or the old signed one).
inline void tar_set_checksum(std::vector<std::uint8_t>& archive, std::size_t at, bool signed_sum = false) {
    std::fill_n(archive.begin() + static_cast<std::ptrdiff_t>(at + 148), 8, std::uint8_t{' '});
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < 512; ++i)
        sum += signed_sum ? static_cast<std::int8_t>(archive[at + i]) : static_cast<std::int64_t>(archive[at + i]);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%06llo", static_cast<unsigned long long>(sum));
    std::memcpy(&archive[at + 148], buf, 6);
    archive[at + 154] = 0;
}

// Appends one header (ustar or v7) and its data, padded to 512 bytes; returns the header's offset.
inline std::size_t tar_append(std::vector<std::uint8_t>& archive, const std::string& name, char type, std::span<const std::uint8_t> data,
                       const std::string& link = {}, bool ustar = true) {
    const std::size_t at = archive.size();
    archive.resize(at + 512, 0);
    std::memcpy(&archive[at], name.data(), std::min<std::size_t>(name.size(), 100));
    put_octal(archive, at + 100, 8, 0644);
    put_octal(archive, at + 108, 8, 1000);
    put_octal(archive, at + 116, 8, 1000);
    put_octal(archive, at + 124, 12, data.size());
    put_octal(archive, at + 136, 12, 1700000000);
    archive[at + 156] = static_cast<std::uint8_t>(type);
    std::memcpy(&archive[at + 157], link.data(), std::min<std::size_t>(link.size(), 100));
    if (ustar) {
        std::memcpy(&archive[at + 257], "ustar\0" "00", 8);
        std::memcpy(&archive[at + 265], "user", 4);
        std::memcpy(&archive[at + 297], "group", 5);
    }
    tar_set_checksum(archive, at);
    archive.insert(archive.end(), data.begin(), data.end());
    archive.resize((archive.size() + 511) / 512 * 512, 0);
    return at;
}

inline void tar_finish(std::vector<std::uint8_t>& archive) { archive.resize(archive.size() + 1024, 0); }

} // namespace vyre::test
