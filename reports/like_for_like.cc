#include "reports/like_for_like.h"

#include <algorithm>

namespace trickbench {
namespace reports {
namespace {

const Variant* Find(const TrickReport& t, const std::string& case_name, const std::string& name) {
  for (const Variant& v : t.variants) {
    if (v.case_name == case_name && v.name == name) return &v;
  }
  return nullptr;
}

int64_t CountOf(const TrickReport& t, const VariantEffect& e, const std::string& name) {
  const Variant* v = Find(t, e.case_name, name);
  return v ? OneCount(v->process_iterations) : 0;
}

}  // namespace

int64_t OneCount(const std::vector<int64_t>& process_iterations) {
  if (process_iterations.empty()) return 0;
  const int64_t first = process_iterations.front();
  const bool one = std::all_of(process_iterations.begin(), process_iterations.end(),
                               [&](int64_t n) { return n == first; });
  return one ? first : 0;
}

std::string UnlikeIterations(const TrickReport& old_trick, const VariantEffect& old_effect,
                             const TrickReport& new_trick, const VariantEffect& new_effect) {
  const int64_t ob = CountOf(old_trick, old_effect, old_effect.baseline);
  const int64_t ov = CountOf(old_trick, old_effect, old_effect.variant);
  const int64_t nb = CountOf(new_trick, new_effect, new_effect.baseline);
  const int64_t nv = CountOf(new_trick, new_effect, new_effect.variant);
  if (!ob || !ov || !nb || !nv || (ob == nb && ov == nv)) return "";
  return new_effect.baseline + " " + std::to_string(ob) + " -> " + std::to_string(nb) + ", " +
         new_effect.variant + " " + std::to_string(ov) + " -> " + std::to_string(nv) +
         " iterations per sample";
}

}  // namespace reports
}  // namespace trickbench
