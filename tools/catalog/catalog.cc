#include "tools/catalog/catalog.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <cstdio>
#include <sstream>

#include "harness/sizing.h"

namespace trickbench::catalog {
namespace {

// The two articles the tricks come from. A trick's Source() names tips by marker:
// "A14, B" is tip 14 of article A and an entry of collection B.
constexpr int kArticleATips = 18;
constexpr char kSourcesText[] =
    "**Sources.** The tips come from two widely shared articles; the *source* column "
    "names them:\n"
    "- **A1**..**A18**: the 18 numbered tips of [Optimize PyTorch Performance for Speed "
    "and Memory Efficiency (2022)](https://medium.com/towards-data-science/"
    "optimize-pytorch-performance-for-speed-and-memory-efficiency-2022-84f453916ea6) "
    "(Towards Data Science);\n"
    "- **B**: [PyTorchTricks](https://www.yuque.com/lart/ugkv9f/ugysgn), a collection of "
    "PyTorch tips (in Chinese).\n";

constexpr char kColumnsText[] =
    "**Columns.** *variants*: in run order, the baseline first; every other variant is "
    "timed against it. *reproduced*: the variant whose two seeded runs under "
    "deterministic mode must give bitwise-equal results. *equivalence*: how closely "
    "every variant's result must match the baseline's (bitwise, or within rtol and "
    "atol). *cases*: the sizes or settings each variant runs in. *device*: \"any\" runs "
    "on the CPU or on CUDA; \"CUDA only\" is reported as skipped, with the reason, on a "
    "machine without CUDA. A trick's `_cuda.cc` file holds code compiled only with "
    "`--config=cuda`.\n";

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

std::vector<std::string> SourceMarkers(const std::string& source) {
  std::vector<std::string> markers;
  std::stringstream in(source);
  std::string item;
  while (std::getline(in, item, ',')) markers.push_back(Trim(item));
  return markers;
}

bool IsSourceMarker(const std::string& m) {
  if (m == "B") return true;
  if (m.size() < 2 || m[0] != 'A' || m[1] == '0') return false;
  if (!std::all_of(m.begin() + 1, m.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return false;
  }
  return m.size() <= 3 && std::stoi(m.substr(1)) <= kArticleATips;
}

// Variant and case names are printed as code spans inside table cells, where a '|'
// would end the cell and a '`' the span.
std::string BadName(const std::string& name) {
  if (name.empty()) return "is empty";
  if (name.find_first_of("|`\n") != std::string::npos) return "contains '|', '`' or a newline";
  return "";
}

// Prose (claims, reasons) in a table cell: a '|' ends the cell, and '*', '_', '`', '<',
// '[' could start emphasis, code, HTML or a link that the article's text never meant.
std::string Cell(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      out += ' ';
      continue;
    }
    // An underscore inside a word (set_to_none) is literal in GitHub Markdown; only
    // one at a word's edge can open emphasis.
    const bool inner_underscore = c == '_' && i > 0 && i + 1 < text.size() &&
                                  std::isalnum(static_cast<unsigned char>(text[i - 1])) &&
                                  std::isalnum(static_cast<unsigned char>(text[i + 1]));
    if (std::string("\\|*`<[_").find(c) != std::string::npos && !inner_underscore) out += '\\';
    out += c;
  }
  return out;
}

std::string Code(const std::string& name) { return "`" + name + "`"; }

std::string CodeList(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + Code(n);
  return out;
}

// GitHub's heading anchors: lower case, spaces to '-', other punctuation dropped.
std::string Anchor(const std::string& heading) {
  std::string out;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_') out += static_cast<char>(std::tolower(c));
    if (c == ' ') out += '-';
  }
  return out;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string FormatTolerance(const Tolerance& t) {
  if (t.bitwise()) return "bitwise";
  std::ostringstream os;
  os << "rtol " << t.rtol << ", atol " << t.atol;
  return os.str();
}

std::string Stem(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return name.size() > 3 && name.compare(name.size() - 3, 3, ".cc") == 0
             ? name.substr(0, name.size() - 3)
             : "";
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Files by trick id: the trick's own file and its optional CUDA-only file.
struct TrickFiles {
  std::string main;
  std::string cuda;
};

std::map<std::string, TrickFiles> IndexSources(const std::vector<std::string>& sources,
                                               std::vector<std::string>* problems) {
  std::map<std::string, TrickFiles> files;
  std::vector<std::pair<std::string, std::string>> cuda;  // (id, path)
  for (const auto& path : sources) {
    const std::string stem = Stem(path);
    if (stem.empty()) {
      problems->push_back(path + ": not a trick source (expected <id>.cc or <id>_cuda.cc)");
    } else if (EndsWith(stem, "_cuda")) {
      cuda.emplace_back(stem.substr(0, stem.size() - 5), path);
    } else if (!files.emplace(stem, TrickFiles{path, ""}).second) {
      problems->push_back(path + ": a second file for trick id " + stem);
    }
  }
  for (const auto& [id, path] : cuda) {
    auto it = files.find(id);
    if (it == files.end()) {
      problems->push_back(path + ": CUDA-only file without its trick file " + id + ".cc");
    } else {
      it->second.cuda = path;
    }
  }
  return files;
}

void CheckTrick(const TrickDef& t, std::vector<std::string>* problems) {
  auto problem = [&](const std::string& what) { problems->push_back(t.id() + ": " + what); };
  if (t.category().empty()) problem("no .Category()");
  if (t.claim().empty()) problem("no .Claim() (the article's claim, quoted)");
  if (t.source().empty()) {
    problem("no .Source() (article markers such as \"A14, B\")");
  } else {
    for (const auto& m : SourceMarkers(t.source())) {
      if (!IsSourceMarker(m)) {
        problem(".Source(\"" + t.source() + "\"): '" + m + "' is not a marker (A1..A" +
                std::to_string(kArticleATips) + " or B)");
      }
    }
  }
  if (t.needs_cuda() && Trim(t.needs_cuda_reason()).empty()) {
    problem(".NeedsCuda() without a reason (the skip message shows it)");
  }
  if (t.variants().size() < 2) {
    problem(std::to_string(t.variants().size()) +
            " variant(s): a trick needs a baseline and at least one variant to compare");
  }
  for (const auto& v : t.variants()) {
    if (const std::string bad = BadName(v.name); !bad.empty()) {
      problem("variant name '" + v.name + "' " + bad);
    }
  }
  // reproduced_variant() reads variants_.back(): only ask with variants present.
  if (!t.variants().empty() && t.VariantIndex(t.reproduced_variant()) < 0) {
    problem(".Reproduce(\"" + t.reproduced_variant() + "\") names no variant");
  }
  // One unnamed case is "one" (on either device); "" among named cases is an error.
  auto named = [](const std::vector<std::string>& cases) {
    const bool one_unnamed = cases.size() == 1 && cases[0].empty();
    return one_unnamed ? std::vector<std::string>{} : cases;
  };
  std::vector<std::string> all = named(t.cpu_cases());
  for (const auto& c : named(t.cuda_cases())) all.push_back(c);
  for (const auto& c : all) {
    if (const std::string bad = BadName(c); !bad.empty()) {
      problem("case name '" + c + "' " + bad);
    }
  }
  for (const SizingRow& r : SizeForH200(t)) {
    if (!r.problem.empty()) problem("CUDA case '" + r.case_name + "': " + r.problem);
  }
}

// One row per CUDA case of a sized trick, one per exempt trick (harness/sizing.h).
constexpr char kSizingText[] =
    "## Sizing on an H200\n\n"
    "What one timed run of each CUDA case does, as the trick declares it (`.Work()`), and "
    "the least time that takes at an H200's peaks (790 TFLOP/s bf16, 4.3 TB/s HBM, 64 GB/s "
    "PCIe): the variant with the least work is shown, and every case is at least 100 us, so "
    "a GPU times the trick rather than its kernel launches. A trick whose claim is about "
    "memory traffic (*traffic*) also needs a working set beyond the 60 MB L2. A trick whose "
    "claim is launch or synchronisation cost itself, or whose timed work runs on the host, "
    "is exempt and says why. The figures are arithmetic from the case's sizes, not "
    "measurements; the catalog refuses a registration that misses them.\n\n"
    "| trick | CUDA case | least work | GFLOP | device GB | host MB | working set MB | "
    "H200 floor us |\n"
    "|---|---|---|---|---|---|---|---|\n";

std::string Fixed(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string SizingRows(const TrickDef& t) {
  std::string out;
  for (const SizingRow& r : SizeForH200(t)) {
    if (!r.exemption.empty()) {
      out += "| " + Code(t.id()) + " | exempt | " + Cell(r.exemption) + " | | | | | |\n";
      continue;
    }
    out += "| " + Code(t.id()) + (t.traffic_bound() ? " (traffic)" : "") + " | " +
           (r.case_name.empty() ? std::string("one") : Code(r.case_name)) + " | " +
           Code(r.variant) + " | " + Fixed(r.work.flop / 1e9, 1) + " | " +
           Fixed(r.work.bytes / 1e9, 2) + " | " + Fixed(r.work.host_bytes / 1e6, 1) + " | " +
           Fixed(r.work.working_set / 1e6, 1) + " | " + Fixed(r.seconds * 1e6, 0) + " |\n";
  }
  return out;
}

std::string Row(const TrickDef& t, const TrickFiles& files) {
  std::string trick = "[" + Code(t.id()) + "](../" + files.main + ")";
  if (!files.cuda.empty()) trick += " ([" + Code("_cuda.cc") + "](../" + files.cuda + "))";
  const std::vector<std::string> variants = t.VariantNames();
  auto list = [](const std::vector<std::string>& cases) {
    return cases.size() == 1 && cases[0].empty() ? std::string("one") : CodeList(cases);
  };
  std::string cases = list(t.cpu_cases());
  if (!t.cuda_cases().empty()) cases += "; on CUDA " + list(t.cuda_cases());
  const std::string device = t.needs_cuda() ? "CUDA only: " + Cell(t.needs_cuda_reason()) : "any";
  return "| " + trick + " | " + Cell(t.source()) + " | " + Cell(t.claim()) + " | " +
         CodeList(variants) + " | " + Code(t.reproduced_variant()) + " | " +
         FormatTolerance(t.tolerance()) + " | " + cases + " | " + device + " |\n";
}

}  // namespace

bool RenderCatalog(const std::vector<const TrickDef*>& tricks,
                   const std::vector<std::string>& sources, std::string* page,
                   std::vector<std::string>* problems) {
  problems->clear();
  std::map<std::string, TrickFiles> files = IndexSources(sources, problems);

  // Category -> id -> trick: the page's order, independent of link order.
  std::map<std::string, std::map<std::string, const TrickDef*>> by_category;
  std::map<std::string, std::string> category_spelling;  // lower case -> first spelling
  std::set<std::string> registered;
  for (const TrickDef* t : tricks) {
    if (!registered.insert(t->id()).second) {
      problems->push_back(t->id() + ": registered twice");
      continue;
    }
    CheckTrick(*t, problems);
    if (files.count(t->id()) == 0) {
      problems->push_back(t->id() + ": registered, but no trick source file is named " + t->id() +
                          ".cc (the id must be the file's stem)");
    }
    const auto [spelling, fresh] = category_spelling.emplace(Lower(t->category()), t->category());
    if (!fresh && spelling->second != t->category()) {
      problems->push_back(t->id() + ": category \"" + t->category() + "\" differs from \"" +
                          spelling->second + "\" only in case");
    }
    by_category[t->category()].emplace(t->id(), t);
  }
  for (const auto& [id, f] : files) {
    if (registered.count(id) == 0) {
      problems->push_back(f.main + ": no trick registered under its stem (TRICKBENCH_TRICK(" + id +
                          ", ...))");
    }
  }
  if (!problems->empty()) return false;

  std::ostringstream out;
  out << "# Trick catalog\n\n"
      << "<!-- Generated by `" << kRegenerateCommand
      << "` from the trick registrations; do not edit by hand. -->\n\n"
      << "Every trick trickbench measures, as its file registers it: `benches/<id>.cc` "
         "holds the trick, and its `TRICKBENCH_TRICK(...)` chain states what this page "
         "lists (the contract is in [harness/trick.h](../harness/trick.h)). The page is "
         "generated from those registrations; after adding or changing a trick, "
         "regenerate it:\n\n"
      << "    " << kRegenerateCommand << "\n\n"
      << "`bazel test //benches:catalog_test` fails while the page is stale.\n\n"
      << kSourcesText << "\n"
      << kColumnsText << "\n";
  out << tricks.size() << " tricks in " << by_category.size() << " categories: ";
  bool first = true;
  for (const auto& [category, members] : by_category) {
    out << (first ? "" : ", ") << "[" << Cell(category) << "](#" << Anchor(category) << ") ("
        << members.size() << ")";
    first = false;
  }
  out << ".\n";
  for (const auto& [category, members] : by_category) {
    out << "\n## " << Cell(category) << "\n\n"
        << "| trick | source | claim | variants | reproduced | equivalence | cases | device |\n"
        << "|---|---|---|---|---|---|---|---|\n";
    for (const auto& [id, t] : members) out << Row(*t, files.at(id));
  }
  // By id: a reader looks a trick up, and its category is in the table above.
  std::map<std::string, const TrickDef*> by_id;
  for (const TrickDef* t : tricks) by_id.emplace(t->id(), t);
  out << "\n" << kSizingText;
  for (const auto& [id, t] : by_id) out << SizingRows(*t);
  *page = out.str();
  return true;
}

}  // namespace trickbench::catalog
