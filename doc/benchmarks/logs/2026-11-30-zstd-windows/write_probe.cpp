// Times ways of writing N bytes from memory to a file: write(), pwrite from T threads, mmap + memcpy from T threads.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
    const char* path = argv[1];
    const size_t n = std::strtoull(argv[2], nullptr, 10);
    const unsigned threads = std::atoi(argv[3]);
    std::vector<unsigned char> buf(n);
    for (size_t i = 0; i < n; i += 4096) buf[i] = (unsigned char)i;
    const size_t piece = 32u << 20;
    for (int mode = 0; mode < 4; ++mode) for (int round = 0; round < 2; ++round) {
        unlink(path);
        double t0 = now();
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0666);
        if (mode == 0) {
            for (size_t at = 0; at < n;) { ssize_t w = write(fd, buf.data() + at, n - at); if (w <= 0) return 1; at += w; }
        } else {
            if (mode == 3) { int e = posix_fallocate(fd, 0, n); if (e) { printf("fallocate: %s\n", strerror(e)); } }
            else ftruncate(fd, n);
            unsigned char* m = nullptr;
            if (mode >= 2) m = (unsigned char*)mmap(nullptr, n, PROT_WRITE, MAP_SHARED, fd, 0);
            std::atomic<size_t> next{0};
            std::vector<std::thread> ts;
            for (unsigned t = 0; t < threads; ++t) ts.emplace_back([&] {
                for (size_t i; (i = next++) * piece < n;) {
                    size_t at = i * piece, k = std::min(piece, n - at);
                    if (mode == 1) { while (k) { ssize_t w = pwrite(fd, buf.data() + at, k, at); if (w <= 0) return; at += w; k -= w; } }
                    else std::memcpy(m + at, buf.data() + at, k);
                }
            });
            for (auto& t : ts) t.join();
            if (m) munmap(m, n);
        }
        close(fd);
        printf("%s round %d: %.3f s\n", mode == 0 ? "write, one thread" : mode == 1 ? "pwrite, threads" : mode == 2 ? "mmap+memcpy, threads" : "fallocate, mmap+memcpy, threads", round, now() - t0);
        fflush(stdout);
    }
    unlink(path);
}
