// Timing, medians, and the one machine-readable result line every benchmark prints: what
// bench/run collects into results.json and doc/benchmarks.md. No OpenCL here, so the nvCOMP
// benchmark (bench/nvcomp.cpp) prints the same lines.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace vyre::bench {

inline double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// One measured figure. bench/run reads every line "@result {json}" a benchmark prints, groups them
// by bench, input and metric into tables, and plots value against x, one line per series.
//   bench:  the program's short name ("lz4", "zstd", "graph", ...)
//   device: where ours ran (device label) -- the peer's figure in the same run shares it
//   input:  what was measured ("mixed corpus", "rmat-20", ...)
//   x_name, x: the swept parameter ("block_bytes", 65536), or "" and 0 when nothing is swept
//   series: who produced the figure ("vyre fast", "vyre reference", "liblz4 16 threads", "nvCOMP")
//   metric: what ("kernel GB/s", "e2e GB/s", "ratio vs liblz4", "seconds", "compression ratio")
struct result {
    std::string bench;
    std::string device;
    std::string input;
    std::string x_name;
    double x = 0;
    std::string series;
    std::string metric;
    double value = 0;
};

inline std::string json_quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            out += b;
            continue;
        }
        out += c;
    }
    return out + "\"";
}

// The name a result gives its input: a path's file or folder name ("corpus.tar", "share"), else
// `source` itself ("synthetic-compressible").
inline std::string input_label(const std::string& source) {
    std::string s = source;
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    const auto slash = s.rfind('/');
    return slash == std::string::npos ? s : s.substr(slash + 1);
}

// Prints `r` as one "@result {...}" line on stdout (flushed, so interleaving with tables is safe).
inline void emit(const result& r) {
    std::ostringstream os;
    os.precision(15); // block sizes and counts print exactly
    os << "@result {\"bench\":" << json_quote(r.bench) << ",\"device\":" << json_quote(r.device)
       << ",\"input\":" << json_quote(r.input) << ",\"x_name\":" << json_quote(r.x_name) << ",\"x\":" << r.x
       << ",\"series\":" << json_quote(r.series) << ",\"metric\":" << json_quote(r.metric) << ",\"value\":" << r.value
       << "}\n";
    std::cout << os.str() << std::flush;
}

} // namespace vyre::bench
