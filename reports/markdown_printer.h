// The Markdown printer of a doc::Document (document.h): for terminals, CI logs and
// code-review pages (GitHub-flavoured tables).
//
//   std::cout << trickbench::reports::doc::PrintMarkdown(document);
//
// Charts and Details are left out, and so is a section with nothing else to print (the
// document's rules put their numbers in tables too). Tones are not printed, badges are
// "(NOISY)" after their text, links are their text. Throws std::invalid_argument on a
// document CheckDocument refuses.
#pragma once

#include <string>

#include "reports/document.h"

namespace trickbench {
namespace reports {
namespace doc {

std::string PrintMarkdown(const Document& document);

// A table cell's text: "|" escaped, line breaks as spaces (a break ends a table row).
std::string MarkdownCell(const std::string& s);

}  // namespace doc
}  // namespace reports
}  // namespace trickbench
