// zero_copy_from_blob (A6, B): wrap existing host memory instead of copying it.
//
// The C++ face of torch.from_numpy / torch.as_tensor: data already in a std::vector
// becomes a tensor either by copy (torch::tensor) or as a view of the same memory
// (torch::from_blob). Each run also reduces the tensor, so the data is really read.
// The two tensors must be bitwise equal; the blob must alias the vector's memory.
#include "harness/trick.h"

namespace {

class ZeroCopyFromBlob : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    const int64_t n = s.params.Int("n");
    const torch::Tensor values = torch::randn({n});
    data_.assign(values.data_ptr<float>(), values.data_ptr<float>() + n);
  }

  void Copy() {
    tensor_ = torch::tensor(data_);
    sum_ = tensor_.sum();
  }

  void FromBlob() {
    tensor_ = torch::from_blob(data_.data(), {static_cast<int64_t>(data_.size())}, torch::kFloat);
    sum_ = tensor_.sum();
  }

  trickbench::Tensors Result() override { return {tensor_.clone(), sum_}; }

  std::string Inactive(const std::string& variant) override {
    const bool aliases = tensor_.data_ptr() == static_cast<void*>(data_.data());
    if (variant == "from_blob" && !aliases) return "from_blob tensor does not alias the vector";
    if (variant == "copy" && aliases) return "copy aliases the vector";
    return "";
  }

  int64_t ItemsPerRun() const override { return static_cast<int64_t>(data_.size()); }

 private:
  std::vector<float> data_;
  torch::Tensor tensor_, sum_;
};

}  // namespace

TRICKBENCH_TRICK(zero_copy_from_blob, ZeroCopyFromBlob)
    .Category("Data loading")
    .Source("A6, B")
    .Claim("no copy")
    .Expect(trickbench::claim::Faster())
    .Expect(trickbench::claim::LessMemory().OnHost())
    .Axis(trickbench::Axis::Int("n", {4096, 1048576}))
    .HostSide("the tensor wraps or copies a host buffer; no device is involved")
    .Variant("copy", &ZeroCopyFromBlob::Copy)
    .Variant("from_blob", &ZeroCopyFromBlob::FromBlob)
    .Bitwise();
