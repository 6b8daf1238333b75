// A background producer with a bounded queue: batch n+1 is prepared while batch n is used.
//
//   size_t next = 0;
//   Prefetcher<Batch> prefetch([&]() -> std::optional<Batch> {
//     if (next == batches) return std::nullopt;   // the end
//     return LoadBatch(next++);                   // runs on the background thread
//   }, /*capacity=*/2);
//   while (auto batch = prefetch.Next()) Train(*batch);
//
// At most `capacity` items wait in the queue, so the producer runs at most that far
// ahead (bounded memory). An exception thrown by the producer reaches the consumer from
// Next(), after the items produced before it. Destroying the Prefetcher (or Stop()) at
// any point, e.g. when the consumer leaves the loop early, wakes a producer blocked on a
// full queue, lets its current item finish, and joins the thread: no hang, no leak.
//
// The producer thread runs under the consumer's LibTorch thread-local state
// (at::ThreadLocalState: grad mode, and the debug info through which trickbench's CPU
// memory meter sees allocations), so what it allocates is measured like the rest.
#pragma once

#include <ATen/ThreadLocalState.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

namespace trickbench::data {

template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(capacity) {
    if (capacity == 0) throw std::invalid_argument("BoundedQueue capacity must be at least 1");
  }

  // Blocks while full. False when the queue was closed (the item is dropped).
  bool Push(T item) {
    std::unique_lock<std::mutex> lock(mu_);
    not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    items_.push_back(std::move(item));
    max_size_ = std::max(max_size_, items_.size());
    not_empty_.notify_one();
    return true;
  }

  // Blocks while empty and open. nullopt once closed and drained.
  std::optional<T> Pop() {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }

  // Pending items stay poppable; later pushes fail.
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    not_full_.notify_all();
    not_empty_.notify_all();
  }

  // Drops pending items too (for shutdown).
  void CloseAndClear() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    items_.clear();
    not_full_.notify_all();
    not_empty_.notify_all();
  }

  size_t max_size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return max_size_;
  }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<T> items_;
  size_t max_size_ = 0;
  bool closed_ = false;
};

template <typename T>
class Prefetcher {
 public:
  using Producer = std::function<std::optional<T>()>;

  Prefetcher(Producer produce, size_t capacity)
      : queue_(capacity),
        thread_([this, produce = std::move(produce), state = at::ThreadLocalState()]() {
          at::ThreadLocalStateGuard guard(state);
          Run(produce);
        }) {}

  ~Prefetcher() { Stop(); }
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // The next item in production order; nullopt at the end (or after Stop()). Rethrows
  // the producer's exception once the items made before it are consumed.
  std::optional<T> Next() {
    std::optional<T> item = queue_.Pop();
    if (!item) {
      std::lock_guard<std::mutex> lock(error_mu_);
      if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    }
    return item;
  }

  // Stops and joins the producer; pending items are dropped. Idempotent.
  void Stop() {
    queue_.CloseAndClear();
    if (thread_.joinable()) thread_.join();
  }

  // The most items that ever waited at once (<= capacity): for tests and counters.
  size_t max_queued() const { return queue_.max_size(); }

 private:
  void Run(const Producer& produce) {
    try {
      while (std::optional<T> item = produce()) {
        if (!queue_.Push(std::move(*item))) return;  // stopped early
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu_);
      error_ = std::current_exception();
    }
    queue_.Close();
  }

  BoundedQueue<T> queue_;
  std::mutex error_mu_;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace trickbench::data
