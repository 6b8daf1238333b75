// prefetch (B): prepare batch n+1 in the background while batch n trains.
//
// One run is one epoch of SGD on an MLP over a JPEG image set: load a batch (read,
// decode, seeded augmentation, collate: torch::data's Dataset::get_batch and Stack),
// then one training step, whose loss is read on the host (as a loop that logs it does:
// on CUDA that waits for the step, so the serial variant's loading cannot hide behind an
// asynchronous step). The baseline does the two in turn; the optimized variant loads on
// a background thread through trickbench::data::Prefetcher, at most two batches ahead
// (bounded queue; stopped and joined cleanly even if the epoch ends early).
//
// On CUDA the MLP's hidden layer is 8192 wide (ModelOf; 64 on the CPU): 308 MB of
// weights that each step reads, grads it writes and SGD updates (about 0.36 ms a step at
// an H200's 4.3 TB/s), so there is device work for the loading to hide behind, not only
// kernel launches.
//
// On CUDA both variants move a batch to the GPU the same way (prefetch_cuda.cc): pinned
// (pin_memory(), as the DataLoader's pin_memory=True does), copied non_blocking on a side
// stream, the training stream waiting on an event. Only where and when it runs differs:
// in line on the training thread, or on the producer thread while the previous step
// trains. So the measured difference is the overlap, not pinned memory or a stream.
//
// The memory meter is process-wide, so it sees the producer thread's allocations. On
// this 2-core machine the producer competes with the training step's intra-op threads:
// the overlap is only as good as the spare cores. Same batches, same order, same steps:
// parameters and data bitwise equal (a dropped step is caught: Trains()).
//
// Evidence that a run prefetched: its LoadTrace names the threads that produced samples
// (one, not the consumer, in the background variant), and a shared event count orders
// each batch's loading against the previous training step: a batch "loaded ahead" began
// loading before the step on the batch before it ended, which serial loading never does.
#include <torch/data.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/sgd.h>

#include <array>
#include <atomic>

#include "data/dataset.h"
#include "data/image_set.h"
#include "data/prefetcher.h"
#include "data/sample_store.h"
#include "determinism/seed.h"
#include "harness/trick.h"
#include "workloads/workloads.h"

#ifdef TRICKBENCH_CUDA
namespace trickbench::prefetch_cuda {
// Defined in prefetch_cuda.cc: copies the batch to `device` on a side stream; `wait()`
// makes the caller's current stream wait for the copy and hands the tensors over to it.
struct StagedBatch {
  torch::data::Example<> batch;
  std::function<void()> wait;
};
StagedBatch CopyOnSideStream(const torch::data::Example<>& batch, const torch::Device& device);
}  // namespace trickbench::prefetch_cuda
#endif

namespace {

using namespace trickbench::data;
namespace wl = trickbench::workloads;

constexpr int64_t kImages = 512;
constexpr int64_t kBatch = 64;
constexpr int64_t kCrop = 56;

struct Staged {
  torch::data::Example<> batch;
  std::function<void()> wait;  // empty on CPU
  int64_t index = 0;           // the batch's place in the epoch
};

constexpr int64_t kBatches = kImages / kBatch;

// The step's model: on CUDA wide enough that the GPU times the step, not its launches.
wl::MlpSize ModelOf(const trickbench::Instance& s) {
  return {
      .in = 3 * kCrop * kCrop, .hidden = s.device.is_cuda() ? 8192 : 64, .out = 10, .layers = 1};
}

class Prefetch : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    // The run's one copy of the images (common/shared_data.h).
    auto store = std::make_shared<FileStore>(
        SharedImageFiles({.count = kImages, .height = 64, .width = 64, .seed = kSharedImageSeed},
                         ImageFormat::kJpeg));
    dataset_ =
        std::make_unique<ImageDataset>(store, DatasetOptions{.seed = trickbench::HarnessRng()(),
                                                             .augment = {.crop = kCrop},
                                                             .trace = trace_});
    model_ = wl::Mlp(ModelOf(s), device_);
    optimizer_ =
        std::make_unique<torch::optim::SGD>(model_->parameters(), torch::optim::SGDOptions(0.01));
  }

  void Serial() {
    StartRun();
    const ImageDataset epoch = dataset_->ForEpoch(epoch_++);
    for (int64_t b = 0; b < kBatches; ++b) Train(Load(epoch, b));
  }

  void Background() {
    StartRun();
    const ImageDataset epoch = dataset_->ForEpoch(epoch_++);
    int64_t next = 0;
    Prefetcher<Staged> prefetcher(
        [&]() -> std::optional<Staged> {
          if (next == kBatches) return std::nullopt;
          return Load(epoch, next++);
        },
        /*capacity=*/2);
    while (std::optional<Staged> staged = prefetcher.Next()) Train(std::move(*staged));
    max_queued_ = static_cast<int64_t>(prefetcher.max_queued());
  }

  trickbench::Tensors Result() override {
    trickbench::Tensors out = wl::Parameters(*model_);
    for (const auto& t : digest_.Tensors()) out.push_back(t);
    return out;
  }

  std::string Inactive(const std::string& variant) override {
    const std::set<std::thread::id> producers = trace_->Get().threads;
    const bool on_consumer = producers.count(consumer_) > 0;
    if (variant == "serial" && (producers.size() != 1 || !on_consumer)) {
      return "batches were loaded on " + std::to_string(producers.size()) +
             " threads, not on the training thread alone";
    }
    if (variant == "background" && (producers.size() != 1 || on_consumer)) {
      return "batches were loaded on " + std::to_string(producers.size()) + " threads" +
             (on_consumer ? ", the training thread among them" : "") +
             ", not on one background thread";
    }
    if (variant == "background" && LoadedAhead() == 0) {
      return "no batch began loading before the step on the previous one ended";
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    // Not for serial (always 0): Google Benchmark 1.7.1 writes the spread of an all-zero
    // counter as nan, which its JSON cannot carry.
    if (variant == "serial") return {};
    return {{"max_batches_queued", static_cast<double>(max_queued_)},
            {"batches_loaded_ahead", static_cast<double>(LoadedAhead())}};
  }

  int64_t ItemsPerRun() const override { return kImages; }

 private:
  // Runs on the producer thread in the background variant, in line in the serial one.
  Staged Load(const ImageDataset& epoch, int64_t b) {
    load_began_[b] = ++events_;
    std::vector<size_t> indices(kBatch);
    for (int64_t i = 0; i < kBatch; ++i) indices[i] = static_cast<size_t>(b * kBatch + i);
    ImageDataset copy = epoch;  // get_batch is non-const; the copy shares the store
    Staged s{torch::data::transforms::Stack<>().apply_batch(copy.get_batch(indices)), {}, b};
    if (device_.is_cuda()) {
#ifdef TRICKBENCH_CUDA
      auto staged = trickbench::prefetch_cuda::CopyOnSideStream(s.batch, device_);
      s.batch = std::move(staged.batch);
      s.wait = std::move(staged.wait);
#else
      throw std::runtime_error("prefetch on CUDA needs a --config=cuda build (TRICKBENCH_CUDA)");
#endif
    }
    return s;
  }

  void Train(Staged staged) {
    if (staged.wait) staged.wait();
    digest_.Add(staged.batch);
    wl::Batch batch{staged.batch.data.reshape({staged.batch.data.size(0), -1}),
                    staged.batch.target};
    model_->zero_grad(/*set_to_none=*/true);
    last_loss_ = wl::TrainStep(model_, *optimizer_, batch).item<float>();
    step_ended_[staged.index] = ++events_;
  }

  // Resets the evidence of the last run: every body starts with it.
  void StartRun() {
    trace_->Reset();
    consumer_ = std::this_thread::get_id();
    events_ = 0;
    load_began_.fill(0);
    step_ended_.fill(0);
    max_queued_ = 0;
    digest_ = EpochDigest();
  }

  // Batches whose loading began before the training step on the batch before them ended.
  int64_t LoadedAhead() const {
    int64_t ahead = 0;
    for (int64_t b = 1; b < kBatches; ++b) ahead += load_began_[b] < step_ended_[b - 1];
    return ahead;
  }

  torch::Device device_ = torch::kCPU;
  std::unique_ptr<ImageDataset> dataset_;
  torch::nn::Sequential model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
  int64_t epoch_ = 0;
  int64_t max_queued_ = 0;
  float last_loss_ = 0;  // read on the host every step: the sync a loop that logs it has
  // The last run's evidence. events_ orders the producer's loads against the consumer's
  // steps; the arrays are read after the producer is joined.
  std::shared_ptr<LoadTrace> trace_ = std::make_shared<LoadTrace>();
  std::thread::id consumer_;
  std::atomic<int64_t> events_{0};
  std::array<int64_t, kBatches> load_began_{}, step_ended_{};
  EpochDigest digest_;
};

// One epoch, either variant (the loading is host work): per step the batch copied to the
// device (float), written and read; the forward's and the weight grads' FLOP (the input
// needs no grad); the parameters read by the forward, their grads written by the
// backward, both read and the parameters written by SGD.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const wl::MlpSize model = ModelOf(s);
  const double params = 4.0 * wl::MlpParameters(model);
  const double batch = 4.0 * kBatch * model.in;
  return {.flop = kBatches * 2 * wl::MlpForwardFlop(model, kBatch),
          .bytes = kBatches * (5 * params + 2 * batch),
          .host_bytes = kBatches * batch,
          .working_set = 2 * params + batch};
}

}  // namespace

TRICKBENCH_TRICK(prefetch, Prefetch)
    .Category("Data loading")
    .Source("B")
    .Claim("hides loading time")
    .Expect(trickbench::claim::Faster())
    .Trains()
    .Work(Work)
    .Variant("serial", &Prefetch::Serial)
    .Variant("background", &Prefetch::Background)
    .Bitwise();
