// Large host buffers that are written in full before they are read: no zero fill, huge pages, and
// first touches spread over every core.
#pragma once

#include <vyre/util/parallel.hpp>

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace vyre::util {

// std::allocator, except that resize() and the size constructor leave new elements uninitialised
// (default-initialised) instead of zeroing them: a serial zero fill of hundreds of MB, every page
// also first touched (faulted in) by one thread, cost as much as the work that then writes them.
// Allocations from huge_page_bytes up are aligned to it and, on Linux, advised for transparent
// huge pages: their first touches then fault 2 MiB at a time instead of 4 KiB (where the system's
// THP setting is `never`, the advice does nothing).
template <class T>
struct default_init_allocator : std::allocator<T> {
    static constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

    using std::allocator<T>::allocator;
    template <class U>
    struct rebind {
        using other = default_init_allocator<U>;
    };
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... A>
    void construct(U* p, A&&... a) {
        std::allocator_traits<std::allocator<T>>::construct(*this, p, std::forward<A>(a)...);
    }

    T* allocate(std::size_t n) {
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T) - huge_page_bytes) throw std::bad_array_new_length();
        const std::size_t bytes = n * sizeof(T);
        if (bytes < huge_page_bytes) return std::allocator<T>::allocate(n);
        const std::size_t whole = (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
        void* p = ::operator new(whole, std::align_val_t{huge_page_bytes});
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        ::madvise(p, whole, MADV_HUGEPAGE); // advice: where it is refused, 4 KiB pages serve as before
#endif
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (n * sizeof(T) < huge_page_bytes) std::allocator<T>::deallocate(p, n);
        else ::operator delete(p, std::align_val_t{huge_page_bytes});
    }
};

// Bytes whose resize() does not zero; otherwise a std::vector.
using host_bytes = std::vector<std::uint8_t, default_init_allocator<std::uint8_t>>;

// Touches every 4 KiB page of `bytes` (writing a zero into it) on `threads` threads (0: every
// core), so that whatever writes the buffer next, a DMA read-back from an OpenCL device included,
// finds its pages mapped. The NVIDIA driver's copy into unmapped pageable memory faulted them in
// on one thread: several times slower than the copy itself.
inline void fault_in(std::span<std::uint8_t> bytes, unsigned threads = 0) {
    constexpr std::size_t os_page = 4096, grain = 512; // 2 MiB of pages per atomic increment
    std::uint8_t* p = bytes.data();
    const std::size_t pages = (bytes.size() + os_page - 1) / os_page;
    parallel_for(pages, threads, [p](std::size_t i) { p[i * os_page] = 0; }, grain);
}

} // namespace vyre::util
