// Typed case axes: a trick's cases as the product of named parameters, each with its
// values on the CPU and, where the article's scale is a GPU's, on a CUDA device. SetUp
// reads the parameters it was given instead of parsing a case name (nvbench's axes).
//
//   TRICKBENCH_TRICK(amp_matrix_size, AmpMatrixSize)
//       .Axis(trickbench::Axis::Int("n", {256, 1024}).OnCuda({1024, 4096, 16384}))
//       .Axis(trickbench::Axis::String("precision", {"fp32", "amp"}))
//   ...
//   void SetUp(const trickbench::Instance& s) override {
//     n_ = s.params.Int("n");                          // 256, 1024 (CPU)
//     amp_ = s.params.String("precision") == "amp";
//   }
//
// A case's name is its values joined by "_" in axis order, an int value prefixed by its
// axis's name: "n1024_amp". Reports, compare and ForCase() know a case by that name. A
// string value "" adds nothing to the name: an axis that exists only on CUDA
// (Axis::String("stage", {""}).OnCuda({"resnet50_stage2", ...})) leaves the CPU names
// as they were. TrickDef::Cases({...}) is the one-axis shorthand: a string axis "case".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace trickbench {

class Axis {
 public:
  static Axis Int(std::string name, std::vector<int64_t> values);
  static Axis String(std::string name, std::vector<std::string> values);
  // The values on a CUDA device, in place of the CPU's. Throws std::invalid_argument when
  // the type is not the axis's or the list is empty.
  // (The initializer-list overloads keep OnCuda({32768}) and OnCuda({"a", "b"}) from
  // being ambiguous: two string literals also make a vector<int64_t>'s iterator pair.)
  Axis OnCuda(std::initializer_list<int64_t> values) const;
  Axis OnCuda(std::initializer_list<std::string> values) const;
  Axis OnCuda(std::vector<int64_t> values) const;
  Axis OnCuda(std::vector<std::string> values) const;

  const std::string& name() const { return name_; }
  bool is_int() const { return is_int_; }
  // The values' labels in case names ("n1024", "amp", "") on the CPU or on CUDA.
  std::vector<std::string> Labels(bool cuda) const;
  size_t size(bool cuda) const;
  int64_t IntAt(size_t i, bool cuda) const;
  const std::string& StringAt(size_t i, bool cuda) const;

 private:
  Axis(std::string name, bool is_int) : name_(std::move(name)), is_int_(is_int) {}
  std::string name_;
  bool is_int_;
  std::vector<int64_t> ints_, cuda_ints_;
  std::vector<std::string> strings_, cuda_strings_;
};

// One case: its name and a value per axis.
class CaseParams {
 public:
  const std::string& name() const { return name_; }
  // Throws std::invalid_argument naming the axis and the case when the case has no axis
  // of that name and type: a trick reading an axis it never declared fails its first run.
  int64_t Int(const std::string& axis) const;
  const std::string& String(const std::string& axis) const;
  bool Has(const std::string& axis) const { return ints_.count(axis) || strings_.count(axis); }

 private:
  friend std::vector<CaseParams> ExpandCases(const std::vector<Axis>&, bool);
  std::string name_;
  std::map<std::string, int64_t> ints_;
  std::map<std::string, std::string> strings_;
};

// Every case of `axes` on the CPU or on CUDA, the first axis varying slowest. Throws
// std::invalid_argument when two axes share a name or two cases share a name. No axes:
// the one unnamed case "".
std::vector<CaseParams> ExpandCases(const std::vector<Axis>& axes, bool cuda);

}  // namespace trickbench
