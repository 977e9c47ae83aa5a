// Host loops on every core: the one place where vyre starts threads. Engines, references and
// benchmarks all go through these, so the scheduling and the error rules are written once.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace vyre::util {

// `requested` threads, or one per core when it is 0 (at least one).
inline unsigned thread_count(unsigned requested = 0) noexcept {
    return requested != 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
}

// body(w) for w = 0..n-1, w = 0 on the calling thread, the others on threads of their own. Bodies
// share work through counters of their own, so when a thread cannot be started its share is done
// by the others. The first exception is rethrown once every thread has finished.
template <class Body>
void run_on_threads(unsigned n, Body&& body) {
    std::exception_ptr failure;
    std::mutex failure_lock;
    const auto guarded = [&](unsigned w) {
        try {
            body(w);
        } catch (...) {
            const std::lock_guard<std::mutex> lock(failure_lock);
            if (!failure) failure = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < n; ++w) {
        try {
            pool.emplace_back(guarded, w);
        } catch (const std::system_error&) {
            break;
        }
    }
    guarded(0);
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
}

// f(begin, end, state) over [0, n) in runs of `grain` consecutive indices, on at most `threads`
// threads (0: every core), one State per thread (scratch memory, a cache of open folders). Runs are
// handed out one atomic increment at a time, so uneven work balances itself.
template <class State, class F>
void parallel_chunks(std::size_t n, unsigned threads, std::size_t grain, F&& f) {
    grain = std::max<std::size_t>(grain, 1);
    const std::size_t runs = (n + grain - 1) / grain;
    const unsigned workers = static_cast<unsigned>(std::min<std::size_t>(thread_count(threads), runs));
    if (workers <= 1) {
        State state;
        for (std::size_t i = 0; i < n; i += grain) f(i, std::min(n, i + grain), state);
        return;
    }
    std::atomic<std::size_t> next{0};
    run_on_threads(workers, [&](unsigned) {
        State state;
        for (std::size_t i; (i = next.fetch_add(grain, std::memory_order_relaxed)) < n;) f(i, std::min(n, i + grain), state);
    });
}

namespace detail {
struct no_state {};
} // namespace detail

// f(i) for every i < n on at most `threads` threads (0: every core), `grain` indices per atomic
// increment. Rethrows the first exception after every thread has stopped.
template <class F>
void parallel_for(std::size_t n, unsigned threads, F&& f, std::size_t grain = 1) {
    parallel_chunks<detail::no_state>(n, threads, grain, [&](std::size_t b, std::size_t e, detail::no_state&) {
        for (std::size_t i = b; i < e; ++i) f(i);
    });
}

// A copy of worker() on each of `threads` threads of their own (copies: state a worker carries,
// such as futures it waits on, is its own) while drive() runs on the calling thread (a device
// pipeline that a host pass works beside). Returns when all have finished. Workers share their
// work through counters of their own, so the ones that start do it all; when none can be started
// the error is thrown before drive() runs, since drive() may wait for the workers' results.
template <class Worker, class Driver>
void run_beside(unsigned threads, const Worker& worker, Driver&& drive) {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) {
        try {
            pool.emplace_back(worker);
        } catch (const std::system_error&) {
            if (pool.empty()) throw;
            break;
        }
    }
    drive();
}

// A fixed set of threads that runs f(0..n) together with the caller, for work that repeats many
// times a second (packing each chunk of a device pipeline), where starting threads every time
// would cost about as much as the work. f must not throw (it also runs on the workers).
class worker_pool {
public:
    // Where a thread cannot be started, the pool keeps those that did (the caller's thread takes
    // part in every run, so a pool of none still does all the work).
    explicit worker_pool(unsigned threads) {
        for (unsigned t = 1; t < thread_count(threads); ++t) {
            try {
                workers_.emplace_back([this] { work_loop(); });
            } catch (const std::system_error&) {
                break;
            }
        }
    }
    ~worker_pool() {
        {
            const std::lock_guard<std::mutex> l(m_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& w : workers_) w.join();
    }
    worker_pool(const worker_pool&) = delete;
    worker_pool& operator=(const worker_pool&) = delete;

    unsigned threads() const noexcept { return static_cast<unsigned>(workers_.size()) + 1; }

    // f(i) for every i in [0, n), in runs of `grain` indices; returns when all have run.
    template <class F>
    void run(std::size_t n, std::size_t grain, F&& f) {
        grain = std::max<std::size_t>(grain, 1);
        if (workers_.empty() || n <= grain) {
            for (std::size_t i = 0; i < n; ++i) f(i);
            return;
        }
        using fn = std::remove_reference_t<F>;
        {
            const std::lock_guard<std::mutex> l(m_);
            n_ = n;
            grain_ = grain;
            next_.store(0, std::memory_order_relaxed);
            fn_ = const_cast<void*>(static_cast<const void*>(std::addressof(f)));
            call_ = [](void* p, std::size_t i) { (*static_cast<fn*>(p))(i); };
            pending_ = static_cast<unsigned>(workers_.size());
            ++generation_;
        }
        wake_.notify_all();
        take();
        // Every worker takes part in every generation before the next can start, so none misses one.
        std::unique_lock<std::mutex> l(m_);
        done_.wait(l, [&] { return pending_ == 0; });
    }

private:
    void take() {
        for (std::size_t i = next_.fetch_add(grain_); i < n_; i = next_.fetch_add(grain_))
            for (std::size_t j = i; j < std::min(n_, i + grain_); ++j) call_(fn_, j);
    }
    void work_loop() {
        std::uint64_t seen = 0;
        for (;;) {
            {
                std::unique_lock<std::mutex> l(m_);
                wake_.wait(l, [&] { return stop_ || generation_ != seen; });
                if (stop_) return;
                seen = generation_;
            }
            take();
            const std::lock_guard<std::mutex> l(m_);
            if (--pending_ == 0) done_.notify_one();
        }
    }

    std::mutex m_;
    std::condition_variable wake_, done_;
    std::vector<std::thread> workers_;
    bool stop_ = false;
    std::uint64_t generation_ = 0;
    unsigned pending_ = 0;
    // The current job (written under m_ before generation_ moves; read by the workers after).
    std::size_t n_ = 0, grain_ = 1;
    std::atomic<std::size_t> next_{0};
    void* fn_ = nullptr;
    void (*call_)(void*, std::size_t) = nullptr;
};

// Jobs that run on threads of their own while the caller goes on (libyara evaluating files while
// the device scans the next ones), the heaviest waiting job first, so that a large one does not
// start last and finish long after the rest. The threads start with the first job. wait() returns
// once every job pushed so far has run and rethrows the first exception one threw; abandon() drops
// the jobs not yet started and waits for the running ones, for a caller on its way out whose jobs
// read memory about to be freed. When no thread can be started, wait() runs the jobs itself.
class background_jobs {
public:
    explicit background_jobs(unsigned threads) : threads_(thread_count(threads)) {}
    ~background_jobs() {
        abandon();
        {
            const std::lock_guard<std::mutex> l(m_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& w : workers_) w.join();
    }
    background_jobs(const background_jobs&) = delete;
    background_jobs& operator=(const background_jobs&) = delete;

    void push(std::uint64_t weight, std::function<void()> job) {
        {
            const std::lock_guard<std::mutex> l(m_);
            queue_.push({weight, pushed_++, std::move(job)});
        }
        if (workers_.empty()) start();
        wake_.notify_one();
    }

    void wait() {
        std::unique_lock<std::mutex> l(m_);
        if (workers_.empty())
            while (!queue_.empty()) run_one(l);
        idle_.wait(l, [&] { return queue_.empty() && running_ == 0; });
        if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
    }

    void abandon() noexcept {
        std::unique_lock<std::mutex> l(m_);
        while (!queue_.empty()) queue_.pop();
        idle_.wait(l, [&] { return running_ == 0; });
        failure_ = nullptr;
    }

    // Seconds the jobs ran, summed over the threads.
    double busy_seconds() {
        const std::lock_guard<std::mutex> l(m_);
        return busy_seconds_;
    }

private:
    struct job {
        std::uint64_t weight, order;
        std::function<void()> run;
        bool operator<(const job& o) const { return weight != o.weight ? weight < o.weight : order > o.order; }
    };

    void start() {
        for (unsigned t = 0; t < threads_; ++t) {
            try {
                workers_.emplace_back([this] { work_loop(); });
            } catch (const std::system_error&) {
                break;
            }
        }
    }

    // Runs the heaviest job with the lock released; called and returns with it held.
    void run_one(std::unique_lock<std::mutex>& l) {
        auto f = std::move(const_cast<job&>(queue_.top()).run);
        queue_.pop();
        ++running_;
        l.unlock();
        std::exception_ptr failed;
        const auto t0 = std::chrono::steady_clock::now();
        try {
            f();
        } catch (...) {
            failed = std::current_exception();
        }
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        l.lock();
        busy_seconds_ += took;
        if (failed && !failure_) failure_ = failed;
        if (--running_ == 0 && queue_.empty()) idle_.notify_all();
    }

    void work_loop() {
        std::unique_lock<std::mutex> l(m_);
        for (;;) {
            wake_.wait(l, [&] { return stop_ || !queue_.empty(); });
            if (stop_) return;
            run_one(l);
        }
    }

    const unsigned threads_;
    std::mutex m_;
    std::condition_variable wake_, idle_;
    std::vector<std::thread> workers_;
    std::priority_queue<job> queue_;
    std::uint64_t pushed_ = 0;
    unsigned running_ = 0;
    bool stop_ = false;
    double busy_seconds_ = 0;
    std::exception_ptr failure_;
};

} // namespace vyre::util
