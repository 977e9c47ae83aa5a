// The host's side of the package formats on arbitrary bytes: format::detect, the xz, lzma and bzip2
// decoders (liblzma, libbz2), ZIP's LZMA header, decode_prefix (what a damaged stream keeps), the
// containers read through libarchive, an RPM's headers, and an image tar's manifests. Beyond "no crash":
//   - a decoder never returns more than its limit, and throws only format_error/resource_error;
//   - decode_prefix never returns more than its limit, and where the whole decode succeeds within
//     the limit, the prefix is the whole content;
//   - libarchive's entries never hold more content than `take` allowed, and nothing it allocates
//     passes libFuzzer's malloc limit (a cpio header once made it allocate 3.5 GiB);
//   - an RPM's payload starts inside the file;
//   - image_layers_of gives a format_error or layers that lie inside the input;
//   - a ZIP PPMd entry's data (first byte 190 to 199; the next four bytes its declared size, the
//     rest its data) decoded through libarchive gives at most the limit, and throws only
//     format_error/resource_error/unsupported_format;
//   - format::stream_decoder (first byte 200 and up; gzip, zstd, LZ4 frames, xz, lzma, bzip2) ends,
//     done or failed, and read in pieces of 64 KiB and of 1 to 7 bytes gives the same bytes where
//     both gave bytes, and all the same bytes where both ended done.
// The input's first byte picks what is run on the rest.
#include <vyre/format/bzip2.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/format/libarchive.hpp>
#include <vyre/format/oci_image.hpp>
#include <vyre/format/rpm.hpp>
#include <vyre/format/salvage.hpp>
#include <vyre/format/stream_decode.hpp>
#include <vyre/format/tar.hpp>
#include <vyre/format/xz.hpp>
#include <vyre/format/zip_methods.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

namespace {

namespace f = vyre::format;

constexpr std::uint64_t limit = std::uint64_t{1} << 20;

void codec(f::content_kind kind, std::span<const std::uint8_t> in) {
    std::vector<std::uint8_t> whole;
    bool complete = false;
    try {
        whole = kind == f::content_kind::xz ? f::xz_decompress(in, limit)
                : kind == f::content_kind::lzma ? f::lzma_alone_decompress(in, limit)
                                                : f::bzip2_decompress(in, limit);
        if (whole.size() > limit) std::abort();
        complete = true;
    } catch (const vyre::format_error&) {
    } catch (const vyre::resource_error&) {
    }
    const auto prefix = f::decode_prefix(kind, in, limit);
    if (prefix.bytes.size() > limit) std::abort();
    // The prefix of a stream that decodes whole is all of it, and ends with nothing after it (the
    // whole-stream decoders refuse trailing bytes, which the prefix reports and ignores).
    if (complete && (prefix.bytes != whole || !prefix.ended || prefix.trailing != 0)) std::abort();
    if (prefix.trailing != 0 && (!prefix.ended || prefix.trailing > in.size())) std::abort();
}

void library(f::library_format format, std::span<const std::uint8_t> in) {
    std::uint64_t taken = 0;
    try {
        const auto a = f::read_with_libarchive(in, format, [&](std::uint64_t n) -> std::string {
            if (taken + n > limit) return "over the limit";
            taken += n;
            return {};
        });
        std::uint64_t held = 0;
        for (const auto& e : a.entries) held += e.data.size();
        if (held > taken || taken > limit) std::abort();
    } catch (const vyre::format_error&) {
    }
}

void ppmd(std::span<const std::uint8_t> in) {
    if (in.size() < 4) return;
    f::zip_entry e;
    e.name = "fuzz";
    e.method = f::zip_method_ppmd;
    e.version_needed = 63;
    e.uncompressed_size = (std::uint64_t{in[0]} | std::uint64_t{in[1]} << 8 | std::uint64_t{in[2]} << 16 | std::uint64_t{in[3]} << 24) & 0x3FFFFF;
    const auto data = in.subspan(4);
    e.compressed_size = data.size();
    try {
        if (f::zip_decode_library_method(data, e, limit).size() > limit) std::abort();
    } catch (const vyre::format_error&) {
    } catch (const vyre::resource_error&) {
    } catch (const f::unsupported_format&) {
    }
}

void image(std::span<const std::uint8_t> in) {
    try {
        const auto tar = f::parse_tar(in);
        const auto layout = f::image_layers_of(in, tar);
        for (const auto& l : layout.layers)
            if (!l.bytes.empty() && (l.bytes.data() < in.data() || l.bytes.data() + l.bytes.size() > in.data() + in.size())) std::abort();
    } catch (const vyre::format_error&) {
    }
}

// The stream read in `piece`-byte reads, at most `most` bytes of it.
std::vector<std::uint8_t> pull(f::content_kind kind, std::span<const std::uint8_t> in, std::size_t piece, std::size_t most, bool& done) {
    f::stream_decoder d(kind, in);
    std::vector<std::uint8_t> out;
    std::vector<std::uint8_t> room(piece);
    while (out.size() < most && !d.done() && !d.failed()) {
        const std::size_t n = d.read(room);
        if (n > room.size()) std::abort();
        out.insert(out.end(), room.begin(), room.begin() + static_cast<std::ptrdiff_t>(n));
    }
    if (d.produced() != out.size() || d.consumed() > in.size()) std::abort();
    if (d.done() && d.failed()) std::abort();
    if (d.trailing() != 0 && (!d.done() || d.trailing_at() + d.trailing() != in.size())) std::abort();
    done = d.done();
    return out;
}

void streams(std::uint8_t pick, std::span<const std::uint8_t> in) {
    static constexpr f::content_kind kinds[] = {f::content_kind::gzip, f::content_kind::zstd, f::content_kind::lz4_frame,
                                                f::content_kind::xz,   f::content_kind::lzma, f::content_kind::bzip2};
    const f::content_kind kind = kinds[pick % 6];
    bool big_done = false, small_done = false;
    const auto big = pull(kind, in, std::size_t{64} << 10, limit, big_done);
    const auto small = pull(kind, in, 1 + pick % 7, std::size_t{64} << 10, small_done);
    const std::size_t both = std::min(big.size(), small.size());
    if (!std::equal(small.begin(), small.begin() + static_cast<std::ptrdiff_t>(both), big.begin())) std::abort();
    if (big_done && small_done && big != small) std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::span<const std::uint8_t> in(data + 1, size - 1);
    (void)f::detect(in);
    if (data[0] >= 200) {
        streams(data[0], in);
        return 0;
    }
    if (data[0] >= 190) {
        ppmd(in);
        return 0;
    }
    switch (data[0] % 10) {
    case 0: codec(f::content_kind::xz, in); break;
    case 1: codec(f::content_kind::lzma, in); break;
    case 2: codec(f::content_kind::bzip2, in); break;
    case 3: library(f::library_format::ar, in); break;
    case 4: library(f::library_format::cpio, in); break;
    case 5: library(f::library_format::sevenzip, in); break;
    case 6:
        try {
            if (f::rpm_payload(in) > in.size()) std::abort();
        } catch (const vyre::format_error&) {
        }
        break;
    case 7: library(f::library_format::iso9660, in); break;
    case 8:
        try {
            const auto out = f::zip_lzma_decompress(in, in.size() * 4, (in.size() & 1) != 0, limit);
            if (out.size() > limit) std::abort();
        } catch (const vyre::format_error&) {
        } catch (const vyre::resource_error&) {
        }
        break;
    default: image(in); break;
    }
    return 0;
}
