// The HTML printer of a doc::Document (document.h): one self-contained page, its style
// sheet inline and its charts as inline SVG; nothing is fetched and no script runs, so
// the file can be mailed, archived as a CI artifact or opened offline.
//
//   WriteFileAtomically("report.html", trickbench::reports::doc::PrintHtml(document), &error);
//
// Tones are classes (good, bad, uncertain, muted, flagged) styled by the one style sheet;
// sections are <section id="anchor"> with headings one level per depth. Throws
// std::invalid_argument on a document CheckDocument refuses.
#pragma once

#include <string>

#include "reports/document.h"

namespace trickbench {
namespace reports {
namespace doc {

std::string PrintHtml(const Document& document);

// Text for HTML content and attribute values: & < > " ' escaped.
std::string HtmlEscape(const std::string& s);

}  // namespace doc
}  // namespace reports
}  // namespace trickbench
