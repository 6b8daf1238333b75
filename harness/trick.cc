#include "harness/trick.h"

#include <stdexcept>

namespace trickbench {
namespace {

std::vector<std::unique_ptr<TrickDef>>& Storage() {
  static auto* defs = new std::vector<std::unique_ptr<TrickDef>>();
  return *defs;
}

std::vector<TrickDef*>& Index() {
  static auto* index = new std::vector<TrickDef*>();
  return *index;
}

}  // namespace

TrickDef::TrickDef(std::string id, Factory factory)
    : id_(std::move(id)), factory_(std::move(factory)) {}

TrickDef& TrickDef::Category(std::string v) {
  category_ = std::move(v);
  return *this;
}
TrickDef& TrickDef::Source(std::string v) {
  source_ = std::move(v);
  return *this;
}
TrickDef& TrickDef::Claim(std::string v) {
  claim_ = std::move(v);
  return *this;
}
TrickDef& TrickDef::NeedsCuda(std::string why) {
  needs_cuda_ = true;
  needs_cuda_reason_ = std::move(why);
  return *this;
}
TrickDef& TrickDef::Cases(std::vector<std::string> cases) {
  if (cases.empty()) throw std::invalid_argument(id_ + ": Cases() needs at least one case");
  cases_ = std::move(cases);
  return *this;
}
TrickDef& TrickDef::Bitwise() {
  tolerance_ = trickbench::Tolerance{};
  return *this;
}
TrickDef& TrickDef::Tolerance(double rtol, double atol) {
  if (rtol < 0 || atol < 0) throw std::invalid_argument(id_ + ": negative tolerance");
  tolerance_ = trickbench::Tolerance{rtol, atol};
  return *this;
}
TrickDef& TrickDef::CheckSteps(int steps) {
  if (steps < 1) throw std::invalid_argument(id_ + ": CheckSteps must be >= 1");
  check_steps_ = steps;
  return *this;
}
TrickDef& TrickDef::Reproduce(std::string variant) {
  reproduce_ = std::move(variant);
  return *this;
}
TrickDef& TrickDef::AddVariant(std::string name, Body body) {
  if (VariantIndex(name) >= 0) throw std::invalid_argument(id_ + ": duplicate variant " + name);
  variants_.push_back({std::move(name), std::move(body)});
  return *this;
}

const std::string& TrickDef::reproduced_variant() const {
  return reproduce_.empty() ? variants_.back().name : reproduce_;
}

int TrickDef::VariantIndex(const std::string& name) const {
  for (size_t i = 0; i < variants_.size(); ++i) {
    if (variants_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const std::vector<TrickDef*>& RegisteredTricks() { return Index(); }

TrickDef* FindTrick(const std::string& id) {
  for (TrickDef* d : Index()) {
    if (d->id() == id) return d;
  }
  return nullptr;
}

namespace internal {
TrickDef& Register(std::unique_ptr<TrickDef> def) {
  Storage().push_back(std::move(def));
  Index().push_back(Storage().back().get());
  return *Index().back();
}
}  // namespace internal

}  // namespace trickbench
