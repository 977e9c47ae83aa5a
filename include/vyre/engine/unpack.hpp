// The archive pipeline behind `vyre unpack`: archives and compressed streams (LZ4, zstd, gzip, tar,
// ZIP; xz, lzma, bzip2, RPM, and ar, cpio, 7z and ISO 9660 through libarchive) nested in each
// other, opened layer by layer, every LZ4/zstd block and deflate stream of a layer decoded in one
// device pass per codec, with safe extraction below one folder (modes and times kept), limits
// against decompression bombs, and per-entry SHA-256.
#pragma once

// How a run goes. A layer is every container found at one nesting depth (the inputs are layer 1).
//
//   1. open     each container of the layer is parsed on the host, containers in parallel: a tar
//               lists its entries (views into its bytes), a ZIP its entries (stored ones are views,
//               the others become decode jobs), a compressed stream (gzip, LZ4, zstd, xz, lzma,
//               bzip2) one decode job for its content, an RPM its payload (a view), and ar, cpio,
//               7z and ISO 9660 containers their members, decoded by libarchive as they are
//               read. Entry names are checked here (absolute paths, ".." components and
//               escaping link targets are refused before anything is decoded).
//   2. decode   every LZ4 job of the layer is parsed (in parallel) and ALL their independent
//               blocks go to compression.lz4 as one set of descriptors (one dispatch per batch,
//               make_block_batches), or to liblz4 on the host cores where they are large
//               (unpack_options::lz4); every zstd job is concatenated into one multi-frame stream
//               for the zstd engine (its automatic route: frames of raw/RLE blocks on the device,
//               frames with compressed blocks decoded whole on all cores); every deflate stream
//               (the members of gzip files whose headers say where they are, ZIP method-8
//               entries) goes to the deflate engine in one pass (options.deflate_route: by default
//               the device on GPUs, libdeflate on all cores on CPU devices); gzip files whose
//               members only inflating finds are inflated whole by libdeflate on all cores. The
//               zstd pass runs on a thread of its own beside the LZ4 and deflate passes; xz,
//               lzma and bzip2 jobs go to liblzma and libbz2 on the host cores. A compressed
//               stream that fails keeps what decoded before the damage (format/salvage.hpp).
//   3. finish   sizes, CRCs and limits are checked; an entry whose content is itself a container
//               (by magic number, never by name) becomes part of the next layer; the content of a
//               compressed stream that is an archive opens in place (x.tar.zst lists x's entries
//               as x.tar.zst!/name, not x.tar.zst!/x.tar!/name).
//   4. sink     the layer's entries are hashed and written below the output folder, in parallel.
//
// Each step has its file in engine/detail/: unpack_open.hpp (1), unpack_decode.hpp (2),
// unpack_layer.hpp (3, 4 and the loop over layers), all on the values of unpack_state.hpp; names
// are checked in unpack_names.hpp and written through output_tree.hpp. A compressed tar too large
// to hold is read in windows instead (unpack_stream.hpp; unpack_options::stream_above_bytes).
//
// Nothing a corrupt or hostile entry does stops the run: it is recorded as a problem (refused or
// corrupt, with its path and the offending value) and the rest goes on. What is refused:
//   - names that are absolute, hold a ".." component or a NUL byte, or are empty;
//   - symbolic links whose target is absolute or climbs out of the output folder, and targets with
//     ".." after a named component (a link written earlier could make "x/.." mean anything);
//   - a decoded size above limits.max_ratio times the compressed size (unless it is below
//     limits.ratio_min_bytes; zstd is checked on its declared or laid-out size before anything is
//     allocated), output beyond limits.max_total_bytes in all (hard-link copies and ZIP stored
//     entries count too), containers nested deeper than limits.max_depth (the deeper container is
//     kept as a plain file), entries beyond limits.max_entries, names over 4,096 bytes or 1,024
//     components. A hard link is written as a copy of its target and never opened as an archive.
// Writing never follows a symbolic link: every folder on the way is opened with O_NOFOLLOW from
// the output folder down, so a link written earlier cannot redirect a later entry.

#include <vyre/engine/deflate_decompress.hpp>
#include <vyre/engine/lz4_decompress.hpp>
#include <vyre/engine/zstd_options.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/util/sha256.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::engine {

// The default of unpack_limits::max_total_bytes: 64 GiB, or half of the machine's physical memory
// when that is less (a layer's decoded content is held in memory until it is written).
inline std::uint64_t default_max_total_bytes() noexcept {
    constexpr std::uint64_t ceiling = std::uint64_t{64} << 30;
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return ceiling;
    const std::uint64_t physical = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
    return std::min(ceiling, std::max<std::uint64_t>(physical / 2, std::uint64_t{1} << 20));
}

// The default of unpack_options::window_bytes: 1 GiB, or a sixteenth of max_total_bytes' default
// when that is less (at least 16 MiB).
inline std::uint64_t default_window_bytes() noexcept {
    return std::max<std::uint64_t>(std::min<std::uint64_t>(std::uint64_t{1} << 30, default_max_total_bytes() / 16),
                                   std::uint64_t{16} << 20);
}

// Entry names longer than this, or with more components, are refused.
inline constexpr std::size_t unpack_max_name_bytes = 4096;
inline constexpr std::size_t unpack_max_name_components = 1024;

struct unpack_limits {
    // Every byte the decoders produce, at every depth, counts (what a bomb makes us allocate), and
    // every byte held or written that is not a disjoint slice of a container already counted:
    // hard-link copies and ZIP stored entries (whose data a crafted directory may share).
    std::uint64_t max_total_bytes = default_max_total_bytes();
    // Entries of every container at every depth, at most; the rest are not processed.
    std::uint64_t max_entries = 1000000;
    // decoded / compressed size of one stream or entry; deflate's own ceiling is about 1032.
    std::uint64_t max_ratio = 1000;
    // Outputs up to this size pass whatever their ratio (a run of zeros is legitimately tiny).
    std::uint64_t ratio_min_bytes = std::uint64_t{1} << 20;
    // Containers (archives and compressed streams) opened one inside another; the inputs are depth 1.
    unsigned max_depth = 8;
};

struct unpack_progress {
    unsigned layer = 0;
    const char* phase = "";    // "open", "decode", "write"
    std::uint64_t done = 0;    // bytes (decode, write) or containers (open)
    std::uint64_t total = 0;
    std::uint64_t entries = 0; // entries found so far
};

// Content a decoder left in device memory (unpack_options::keep_on_device): `size` bytes of
// `buffer` from `offset` (whole words of the buffer are readable).
struct unpack_device_bytes {
    boost::compute::buffer buffer;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
};

// A file of one layer, as unpack_options::layer_files sees it: the views live until that call returns.
struct unpack_file_view {
    std::string_view path;                // as unpack_entry::path
    std::span<const std::uint8_t> bytes;  // the decoded content (empty when `device` is set)
    std::span<const std::uint32_t> order; // as unpack_entry::order
    const unpack_device_bytes* device = nullptr; // the content, where it stayed on the device
};

// unpack_options::host_below_bytes by default.
inline constexpr std::uint64_t default_host_below_bytes = std::uint64_t{64} << 20;

struct unpack_entry; // below: what a run lists
namespace detail {
struct shared_run; // detail/unpack_state.hpp
}

struct unpack_options {
    unpack_limits limits;
    // false: archives found inside entries stay plain files (the inputs' own layers still open,
    // so x.tar.zst still lists x's entries).
    bool recurse = true;
    bool hash = false; // SHA-256 of every file's content
    // Extracted files and folders keep their recorded permission bits (less the umask) and
    // modification times, as tar and unzip keep them; set-uid, set-gid and sticky bits only with this.
    bool keep_setid = false;
    // Extract below this folder (created if missing); empty: list only.
    std::filesystem::path output_dir;
    unsigned threads = 0; // 0: every hardware thread
    // Where the deflate streams of gzip files and ZIP entries are inflated (engine/deflate_decompress.hpp).
    deflate_route deflate = deflate_route::automatic;
    // The automatic route's cap: streams decoding to more go to the host cores.
    std::uint64_t deflate_device_max_bytes = engine::deflate_device_max_bytes;
    // Streams of at least this many bytes may be decoded on the device in pieces (unset: the
    // route's default, deflate_options::pieces_min_bytes).
    std::optional<std::uint64_t> deflate_pieces_min_bytes;
    // Where zstd frames (engine/zstd_decompress.hpp) and LZ4 blocks (engine/lz4_decompress.hpp) go.
    zstd_route zstd = zstd_route::automatic;
    lz4_route lz4 = lz4_route::automatic;
    // Small runs on the host. Where the context has not been used yet (one made in the background
    // or on first use, as the commands make theirs) and the inputs total fewer bytes than this,
    // every automatic route above goes to the host cores, and the run never asks for the device:
    // starting a GPU driver costs a large part of a second, more than the device saves on that
    // much input (doc/unpack.md has the figures). Not with keep_on_device. 0: never. (Several
    // devices, engine/unpack_devices.hpp, make their contexts first: the rule does not apply.)
    std::uint64_t host_below_bytes = default_host_below_bytes;
    std::function<void(const unpack_progress&)> progress; // called from one thread at a time
    // Called once per layer, after its entries are checked and before they are hashed or written,
    // with every file of the layer whose status is ok (hard links included, nested containers
    // included as the files they are): how a later stage (engine/scan.hpp) sees the content.
    std::function<void(std::span<const unpack_file_view>)> layer_files;
    // Where set, an entry is written only when this returns true; it is listed either way. Of
    // several selected entries with one output path, the last is written.
    // (engine/image_flatten.hpp selects what survives an image's layers with it.)
    std::function<bool(const unpack_entry&)> write_filter;
    // With layer_files, no output folder and no hashing: content the device decodes (deflate
    // streams) stays in device memory and reaches layer_files as unpack_file_view::device. Only
    // what the host needs comes back: statuses, CRC-32s computed on the device, each file's first
    // 512 bytes (to detect archives), and the whole content of nested containers and ZIP symlinks.
    bool keep_on_device = false;
    // Set where one job is split into runs (engine/unpack_devices.hpp): the state the runs share
    // (limits counted over the job, folder metadata set once at the end by the job), and the index
    // of this run's first input among the job's (listing orders count the job's inputs).
    std::shared_ptr<detail::shared_run> shared;
    std::uint32_t first_order = 0;
    // Archives larger than memory (engine/detail/unpack_stream.hpp). Three kinds of input above
    // stream_above_bytes are not unpacked whole but in windows of about window_bytes of whole
    // entries, each window a run of its own (its nested archives decoded as usual, on the device
    // where they go there): a tar in one compressed stream (gzip, zstd, LZ4 frames, xz, lzma or
    // bzip2) whose content is declared, or estimated at 4 times its compressed size, above it
    // (decoded by the codec library's streaming decoder on the host, the next window while one
    // is written; one zstd frame on the device, a window of blocks at a time, where the zstd route
    // takes it there); a plain tar of more bytes; a ZIP whose entries declare more, in windows of
    // consecutive entries. One entry larger than the window makes its window as large as the
    // entry. The listing, files and problems are those of an ordinary run, with one exception: a
    // hard link to a file of an earlier window is copied from the file written for it, and
    // refused where nothing is written (a listing), since that window's bytes are gone. A window
    // counts against limits.max_total_bytes while it is held. 0: every such archive is unpacked
    // in windows; UINT64_MAX: none.
    std::uint64_t stream_above_bytes = default_max_total_bytes() / 4;
    std::uint64_t window_bytes = default_window_bytes();
};

enum class unpack_entry_type { file, directory, symlink, hard_link, other };
// An entry is ok, refused or corrupt. A problem may also be a warning: input read in full whose
// container held something a strict reader rejects and the established tools pass over with a
// warning (bytes after the last gzip member or zstd, LZ4, xz, lzma or bzip2 stream), so that a
// caller sees it without counting it as a failure (`vyre unpack` exits 0 on warnings alone).
enum class unpack_status { ok, refused, corrupt, warning };

inline const char* unpack_entry_type_name(unpack_entry_type t) noexcept {
    switch (t) {
    case unpack_entry_type::file: return "file";
    case unpack_entry_type::directory: return "dir";
    case unpack_entry_type::symlink: return "symlink";
    case unpack_entry_type::hard_link: return "hardlink";
    case unpack_entry_type::other: return "other";
    }
    return "other";
}

inline const char* unpack_status_name(unpack_status s) noexcept {
    switch (s) {
    case unpack_status::ok: return "ok";
    case unpack_status::refused: return "refused";
    case unpack_status::corrupt: return "corrupt";
    case unpack_status::warning: return "warning";
    }
    return "corrupt";
}

struct unpack_entry {
    std::string path;        // "outer.zip!/lib/a.jar!/x.class": the input, then each container's name, "!/" between
    std::string output_path; // below the output folder ("lib/a.jar!/x.class"); empty when refused
    unpack_entry_type type = unpack_entry_type::file;
    std::uint64_t size = 0;            // content bytes
    std::uint64_t compressed_size = 0; // bytes as stored in its container
    std::string method;                // stored, deflate, zstd, lz4, gzip, xz, lzma, bzip2, or the container's format (ar, cpio, 7z, iso9660; rpm for an RPM's payload)
    std::string link_target;           // symlinks and hard links
    std::uint32_t mode = 0;            // permission bits as recorded (0: none recorded)
    std::optional<std::int64_t> mtime; // modification time, seconds since the epoch, where recorded
    std::optional<util::sha256_digest> sha256;
    unsigned depth = 1;                // of the container holding it
    unpack_status status = unpack_status::ok;
    std::string message;               // why status is not ok
    std::vector<std::uint32_t> order;  // listing order: a container's entries follow the container
};

// Wall seconds of each step of a run, added up over its layers: where the time goes.
struct unpack_seconds {
    double open = 0;                        // parsing the containers
    double decode = 0;                      // the codecs' passes, from the first's start to the last's end
    double lz4 = 0, zstd = 0, deflate = 0;  // each codec's pass (zstd's runs beside the others)
    // Of the deflate pass: from its passes' start until the device's last batch was back, and until
    // the host's threads were done (libdeflate's streams, every stream's checks).
    double deflate_device = 0, deflate_host = 0;
    // Of the deflate pass, as deflate_report has them: the plan and the output's pages before the
    // passes; the device's kernel and buffers ready, its batches enqueued, its last batch back.
    double deflate_plan = 0, deflate_output = 0, deflate_ready = 0, deflate_enqueued = 0, deflate_batches = 0;
    double library = 0;                     // xz, lzma and bzip2 on the host cores
    double finish = 0;                      // checks, nested containers found
    double layer_files = 0;                 // unpack_options::layer_files (a later stage's work)
    double write = 0;                       // hashing and writing
    double release = 0;                     // each layer's decoded bytes and device buffers freed
};

// Something that went wrong: a refused or corrupt entry, or damage to a container itself; or a
// warning about input that was read in full.
struct unpack_problem {
    std::string path;
    unpack_status kind = unpack_status::corrupt;
    std::string message;
    std::vector<std::uint32_t> order;
};

struct unpack_report {
    std::vector<unpack_entry> entries;   // in listing order
    std::vector<unpack_problem> problems; // in listing order
    std::size_t containers = 0;          // opened (inputs included)
    std::size_t layers = 0;
    std::uint64_t decoded_bytes = 0;     // counted against limits.max_total_bytes: decoded, hard-link copies, ZIP stored entries
    std::uint64_t written_bytes = 0;
    // Device work: LZ4 blocks sent to the device, zstd blocks decoded by the zstd engine (only
    // frames without compressed blocks reach the device), deflate streams (gzip members, ZIP
    // entries; a gzip file inflated whole on the host counts one) and how many of them went to
    // the device, and the dispatches they took. deflate_host_files: gzip files inflated whole on
    // the host (members not found without inflating, or a member's stream failed its checks).
    // deflate_piece_streams: of the device streams, those decoded alone in pieces (a long gzip
    // member), and deflate_pieces their pieces.
    std::size_t lz4_device_blocks = 0, lz4_dispatches = 0, lz4_host_blocks = 0;
    std::size_t zstd_blocks = 0, zstd_dispatches = 0;
    std::size_t deflate_streams = 0, deflate_device_streams = 0, deflate_dispatches = 0, deflate_host_files = 0;
    std::size_t deflate_piece_streams = 0;
    std::uint64_t deflate_pieces = 0;
    // xz, lzma and bzip2 streams and ZIP entries of methods 12, 14 and 95, decoded on the host.
    std::size_t library_streams = 0;
    // Inputs unpacked in windows (unpack_options::stream_above_bytes), and the windows they took.
    std::size_t streamed_archives = 0, stream_windows = 0;
    // keep_on_device: content left on the device, and the part of it read back for the host
    // (nested containers, ZIP symlinks).
    std::uint64_t kept_bytes = 0, fetched_bytes = 0;
    unpack_seconds seconds;
    std::size_t refused() const noexcept { return count(unpack_status::refused); }
    std::size_t corrupt() const noexcept { return count(unpack_status::corrupt); }
    std::size_t warnings() const noexcept { return count(unpack_status::warning); }
    // Problems that are not warnings: what a command's exit status reports.
    std::size_t failures() const noexcept { return problems.size() - warnings(); }

private:
    std::size_t count(unpack_status s) const noexcept {
        return static_cast<std::size_t>(std::count_if(problems.begin(), problems.end(), [&](const auto& p) { return p.kind == s; }));
    }
};

// Text safe for a terminal or a line-oriented reader: control characters become \xNN. Paths are
// raw bytes, so their backslashes are escaped too (a name holding "\x0A" stays distinct from one
// holding a newline); messages already quote the names they hold (archive_quote escapes them), so
// they are printed with escape_backslash false, never escaped twice.
inline std::string unpack_printable(std::string_view s, bool escape_backslash = true) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7F || (c == '\\' && escape_backslash)) {
            static constexpr char hex[] = "0123456789ABCDEF";
            out += "\\x";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out += c;
        }
    }
    return out;
}

struct unpack_input {
    std::string name; // how paths start ("outer.zip" in "outer.zip!/a")
    std::span<const std::uint8_t> bytes;
    // The bytes are a read-only mapping of a file (mmap with PROT_READ, never written through): an
    // input unpacked in windows drops the pages of each window from the process once it is done
    // (madvise MADV_DONTNEED), so that resident memory does not grow with the input. Leave false
    // for any other memory, whose content that call would discard.
    bool file_mapping = false;
};

} // namespace vyre::engine

// The internals, one file per step of a layer (engine/detail/); they use the types above.
#include <vyre/engine/detail/output_tree.hpp>
#include <vyre/engine/detail/unpack_names.hpp>
#include <vyre/engine/detail/unpack_state.hpp>
#include <vyre/engine/detail/unpack_open.hpp>
#include <vyre/engine/detail/unpack_decode.hpp>
#include <vyre/engine/detail/unpack_layer.hpp>
#include <vyre/engine/detail/unpack_stream.hpp>

namespace vyre::engine {

// Opens every input (and everything nested in them, see the note at the top), lists every entry,
// and extracts below options.output_dir when it is set. Throws only for what stops the whole run
// (an output folder that cannot be opened, a device failure); everything about the archives
// themselves is in the report.
inline unpack_report unpack(runtime::context& ctx, std::span<const unpack_input> inputs, const unpack_options& options = {}) {
    return detail::unpack_inputs(ctx, inputs, options);
}

} // namespace vyre::engine
