#include "harness/axes.h"

#include <set>
#include <stdexcept>

namespace trickbench {

Axis Axis::Int(std::string name, std::vector<int64_t> values) {
  if (values.empty()) throw std::invalid_argument("axis " + name + " has no values");
  Axis a(std::move(name), true);
  a.ints_ = std::move(values);
  return a;
}

Axis Axis::String(std::string name, std::vector<std::string> values) {
  if (values.empty()) throw std::invalid_argument("axis " + name + " has no values");
  Axis a(std::move(name), false);
  a.strings_ = std::move(values);
  return a;
}

Axis Axis::OnCuda(std::initializer_list<int64_t> values) const {
  return OnCuda(std::vector<int64_t>(values));
}

Axis Axis::OnCuda(std::initializer_list<std::string> values) const {
  return OnCuda(std::vector<std::string>(values));
}

Axis Axis::OnCuda(std::vector<int64_t> values) const {
  if (!is_int_) throw std::invalid_argument("axis " + name_ + " is a string axis: OnCuda(ints)");
  if (values.empty()) throw std::invalid_argument("axis " + name_ + " has no CUDA values");
  Axis a = *this;
  a.cuda_ints_ = std::move(values);
  return a;
}

Axis Axis::OnCuda(std::vector<std::string> values) const {
  if (is_int_) throw std::invalid_argument("axis " + name_ + " is an int axis: OnCuda(strings)");
  if (values.empty()) throw std::invalid_argument("axis " + name_ + " has no CUDA values");
  Axis a = *this;
  a.cuda_strings_ = std::move(values);
  return a;
}

size_t Axis::size(bool cuda) const {
  if (is_int_) return (cuda && !cuda_ints_.empty() ? cuda_ints_ : ints_).size();
  return (cuda && !cuda_strings_.empty() ? cuda_strings_ : strings_).size();
}

int64_t Axis::IntAt(size_t i, bool cuda) const {
  return (cuda && !cuda_ints_.empty() ? cuda_ints_ : ints_).at(i);
}

const std::string& Axis::StringAt(size_t i, bool cuda) const {
  return (cuda && !cuda_strings_.empty() ? cuda_strings_ : strings_).at(i);
}

std::vector<std::string> Axis::Labels(bool cuda) const {
  std::vector<std::string> labels;
  for (size_t i = 0; i < size(cuda); ++i) {
    labels.push_back(is_int_ ? name_ + std::to_string(IntAt(i, cuda)) : StringAt(i, cuda));
  }
  return labels;
}

int64_t CaseParams::Int(const std::string& axis) const {
  const auto it = ints_.find(axis);
  if (it == ints_.end()) {
    throw std::invalid_argument("case \"" + name_ + "\" has no int axis \"" + axis + "\"");
  }
  return it->second;
}

const std::string& CaseParams::String(const std::string& axis) const {
  const auto it = strings_.find(axis);
  if (it == strings_.end()) {
    throw std::invalid_argument("case \"" + name_ + "\" has no string axis \"" + axis + "\"");
  }
  return it->second;
}

std::vector<CaseParams> ExpandCases(const std::vector<Axis>& axes, bool cuda) {
  std::set<std::string> axis_names;
  for (const Axis& a : axes) {
    if (!axis_names.insert(a.name()).second) {
      throw std::invalid_argument("two axes are named \"" + a.name() + "\"");
    }
  }
  std::vector<CaseParams> cases(1);
  for (const Axis& a : axes) {
    const std::vector<std::string> labels = a.Labels(cuda);
    std::vector<CaseParams> next;
    for (const CaseParams& base : cases) {
      for (size_t i = 0; i < labels.size(); ++i) {
        CaseParams c = base;
        if (!labels[i].empty()) c.name_ += (c.name_.empty() ? "" : "_") + labels[i];
        if (a.is_int()) {
          c.ints_[a.name()] = a.IntAt(i, cuda);
        } else {
          c.strings_[a.name()] = a.StringAt(i, cuda);
        }
        next.push_back(std::move(c));
      }
    }
    cases = std::move(next);
  }
  std::set<std::string> names;
  for (const CaseParams& c : cases) {
    if (!names.insert(c.name()).second) {
      throw std::invalid_argument("two cases are named \"" + c.name() + "\"");
    }
  }
  return cases;
}

}  // namespace trickbench
