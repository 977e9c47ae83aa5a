#!/usr/bin/env python3
"""How soon a DEFLATE decoder started at a wrong bit inside a dynamic-Huffman block falls into step.

Decoding one long stream from several points at once needs each point's decoder to start at a
guessed bit: it knows the block's codes (from the block's header) but not where a symbol starts,
so it decodes garbage until one of its symbol boundaries is a true one, and from there on it
decodes exactly what a decoder from the stream's start decodes. This measures that distance on
streams made by zlib, so that a design can size the overlap a decoder runs past the next one's
start (doc/ops/compression.deflate.md, "Decoding inside a block").

    bench/deflate_sync.py [--mib N (1)] [--samples N (300)] [--levels 1,6,9] [--seed S] [--libdeflate] FILE...
    bench/deflate_sync.py --pieces KIB[,KIB...] [--margin BYTES (256)] [--mib N] [--levels ...] [--libdeflate] FILE...

--libdeflate compresses with libdeflate (the shared library, through ctypes; levels 1 to 12) instead
of Python's zlib.

The files are concatenated and cut to N MiB; each level's stream (raw DEFLATE, zlib's default
window and memory) is walked once from its start to record every symbol's first bit, then each
sample picks a dynamic block and a bit inside its data at random and decodes from there with that
block's codes until a symbol starts on a true boundary (synced), or --symbols pass (400), an invalid
code comes up or an end-of-block code ends the guess first (not synced). Prints, per level, the
blocks and the bits from the guessed start to the first true boundary: median, 90th and 99th
percentiles and the largest. With --pieces, the stream is cut every KIB KiB of input instead, each
piece guessed at its first bit with the codes of the block it lies in, and it counts the pieces
that fall into step within the margin (a piece in a stored block cannot be guessed; one that does
not fall into step would be decoded again from where the piece before it ended). Pure Python:
a few seconds of one core per MiB and level.
"""
import argparse
import random
import zlib

LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]


class Bits:
    def __init__(self, data):
        self.data = bytes(data) + bytes(8)  # reads past the end give zeros

    def get(self, pos, k):  # k <= 32
        at = pos >> 3
        return (int.from_bytes(self.data[at:at + 5], "little") >> (pos & 7)) & ((1 << k) - 1)


def canonical(lengths):
    """(length, code) -> symbol for a canonical Huffman code (RFC 1951 3.2.2)."""
    count = [0] * 16
    for n in lengths:
        if n:
            count[n] += 1
    code, next_code = 0, [0] * 16
    for b in range(1, 16):
        code = (code + count[b - 1]) << 1
        next_code[b] = code
    table = {}
    for symbol, n in enumerate(lengths):
        if n:
            table[(n, next_code[n])] = symbol
            next_code[n] += 1
    return table


def symbol_at(bits, pos, table):
    code = 0
    for n in range(1, 16):
        code = (code << 1) | bits.get(pos + n - 1, 1)
        s = table.get((n, code))
        if s is not None:
            return s, pos + n
    return None, pos


def dynamic_codes(bits, pos):
    hlit, hdist, hclen = bits.get(pos, 5) + 257, bits.get(pos + 5, 5) + 1, bits.get(pos + 10, 4) + 4
    pos += 14
    lengths = [0] * 19
    for i in range(hclen):
        lengths[ORDER[i]] = bits.get(pos + 3 * i, 3)
    pos += 3 * hclen
    code_lengths, out = canonical(lengths), []
    while len(out) < hlit + hdist:
        s, pos = symbol_at(bits, pos, code_lengths)
        if s < 16:
            out.append(s)
        elif s == 16:
            out += [out[-1]] * (3 + bits.get(pos, 2))
            pos += 2
        elif s == 17:
            out += [0] * (3 + bits.get(pos, 3))
            pos += 3
        else:
            out += [0] * (11 + bits.get(pos, 7))
            pos += 7
    return canonical(out[:hlit]), canonical(out[hlit:]), pos


def walk_symbols(bits, pos, lit, dist, limit=None):
    """Each symbol's first bit from `pos`, until end-of-block, an invalid code or `limit` symbols."""
    starts = []
    while limit is None or len(starts) < limit:
        starts.append(pos)
        s, pos = symbol_at(bits, pos, lit)
        if s is None or s > 285:
            return starts, "invalid"
        if s == 256:
            return starts, "end"
        if s > 256:
            pos += LEN_EXTRA[s - 257]
            d, pos = symbol_at(bits, pos, dist)
            if d is None or d > 29:
                return starts, "invalid"
            pos += DIST_EXTRA[d]
    return starts, "limit"


def blocks(stream):
    bits, pos, out = Bits(stream), 0, []
    fixed = (canonical([8] * 144 + [9] * 112 + [7] * 24 + [8] * 8), canonical([5] * 30))
    while True:
        final, kind, header = bits.get(pos, 1), bits.get(pos + 1, 2), pos
        pos += 3
        if kind == 0:
            pos = (pos + 7) & ~7
            pos += 32 + 8 * bits.get(pos, 16)
            out.append(("stored", None, None, header, pos))
        else:
            if kind == 1:
                lit, dist = fixed
            else:
                lit, dist, pos = dynamic_codes(bits, pos)
            starts, why = walk_symbols(bits, pos, lit, dist)
            assert why == "end", why
            _, pos = symbol_at(bits, starts[-1], lit)  # past the end-of-block code
            out.append(("dynamic" if kind == 2 else "fixed", (lit, dist), starts, header, pos))
        if final:
            return bits, out


def study(label, stream, samples, rng, symbols):
    bits, found = blocks(stream)
    dynamic = [b for b in found if b[0] == "dynamic"]
    kinds = {}
    for b in found:
        kinds[b[0]] = kinds.get(b[0], 0) + 1
    distances, not_synced, ended = [], 0, 0
    for _ in range(samples):
        _, (lit, dist), starts, _, _ = rng.choice(dynamic)
        start = rng.randrange(starts[0], starts[-1] + 1)
        true = set(starts)
        guessed, why = walk_symbols(bits, start, lit, dist, limit=symbols)
        synced = next((p for p in guessed if p in true), None)
        if synced is None:
            not_synced += 1
            ended += why == "end"
        else:
            distances.append(synced - start)
    distances.sort()
    at = lambda f: distances[min(len(distances) - 1, int(f * len(distances)))] if distances else -1
    print(f"{label}: {len(stream)} bytes, blocks {kinds}; {samples} guesses: {len(distances)} synced, {not_synced} not within {symbols} symbols "
          f"({ended} ended by an end-of-block code first); bits to the first true boundary: median {at(0.5)}, "
          f"90% {at(0.9)}, 99% {at(0.99)}, largest {distances[-1] if distances else -1}")


def pieces(label, walked, stream, piece_kib, margin, symbols):
    """Pieces of `piece_kib` KiB of input, each guessed at its first bit with the codes of the block
    it lies in: how many fall into step within `margin` bytes (and before their block ends).
    `walked`: blocks(stream), with each block's set of symbol starts."""
    bits, found, true_starts = walked
    settled = stored = late = 0
    count = 0
    for s in range(piece_kib * 8192, len(stream) * 8, piece_kib * 8192):
        count += 1
        index = next(i for i, b in enumerate(found) if b[3] <= s < b[4])
        kind, codes, starts, header, end = found[index]
        if kind == "stored":
            stored += 1
            continue
        if s <= starts[0]:
            settled += 1  # inside the header: the piece starts at the block's start
            continue
        guessed, _ = walk_symbols(bits, s, codes[0], codes[1], limit=symbols)
        synced = next((p for p in guessed if p in true_starts[index]), None)
        if synced is not None and synced - s <= margin * 8:
            settled += 1
        else:
            late += 1
    print(f"{label}, pieces of {piece_kib} KiB, margin {margin} bytes: {count} pieces after the first; {settled} in step within "
          f"the margin ({100.0 * settled / max(count, 1):.1f}%), {late} not, {stored} in stored blocks")


def libdeflate_compress(data, level):
    """Raw DEFLATE by libdeflate (libdeflate_deflate_compress) at `level`."""
    import ctypes
    lib = ctypes.CDLL("libdeflate.so.0")
    lib.libdeflate_alloc_compressor.restype = ctypes.c_void_p
    lib.libdeflate_alloc_compressor.argtypes = [ctypes.c_int]
    lib.libdeflate_deflate_compress.restype = ctypes.c_size_t
    lib.libdeflate_deflate_compress.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
    lib.libdeflate_free_compressor.argtypes = [ctypes.c_void_p]
    c = lib.libdeflate_alloc_compressor(level)
    if not c:
        raise SystemExit(f"libdeflate: no compressor for level {level}")
    out = ctypes.create_string_buffer(len(data) + len(data) // 8 + 4096)
    n = lib.libdeflate_deflate_compress(c, data, len(data), out, len(out))
    lib.libdeflate_free_compressor(c)
    if n == 0:
        raise SystemExit("libdeflate: the output did not fit")
    return out.raw[:n]


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--mib", type=float, default=1)
    a.add_argument("--samples", type=int, default=300)
    a.add_argument("--levels", default="1,6,9")
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--pieces", default="", help="KiB of input per piece, comma-separated: the pieces' figures instead")
    a.add_argument("--margin", type=int, default=256, help="bytes a piece runs past the next one's start")
    a.add_argument("--libdeflate", action="store_true", help="compress with libdeflate instead of zlib")
    a.add_argument("--symbols", type=int, default=400, help="symbols a guess decodes at most before it counts as not in step")
    a.add_argument("files", nargs="+")
    o = a.parse_args()
    data = b""
    for f in o.files:
        with open(f, "rb") as h:
            data += h.read()
    data = data[: int(o.mib * (1 << 20))]
    rng = random.Random(o.seed)
    for level in (int(x) for x in o.levels.split(",")):
        if o.libdeflate:
            name, stream = "libdeflate", libdeflate_compress(data, level)
        else:
            c = zlib.compressobj(level, zlib.DEFLATED, -15)
            name, stream = "zlib", c.compress(data) + c.flush()
        assert zlib.decompress(stream, -15) == data
        if o.pieces:
            bits, found = blocks(stream)
            walked = (bits, found, [set(b[2]) if b[2] else set() for b in found])
            for kib in (int(x) for x in o.pieces.split(",")):
                pieces(f"{name} level {level}", walked, stream, kib, o.margin, o.symbols)
        else:
            study(f"{name} level {level}", stream, o.samples, rng, o.symbols)


if __name__ == "__main__":
    main()
