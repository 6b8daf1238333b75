// The HTML report opened in headless Chromium (Debian's /usr/bin/chromium): no console
// errors, and the screenshot is not blank. Planted controls prove both checks can fail.
// The screenshot is kept in TEST_UNDECLARED_OUTPUTS_DIR (bazel-testlogs/.../outputs).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "reports/html_printer.h"
#include "reports/load.h"
#include "reports/render.h"
#include "reports/test_util.h"

namespace trickbench {
namespace reports {
namespace {

using testing::Fixture;
using testing::ScratchDir;
using testing::Slurp;
using testing::Spit;
namespace fs = std::filesystem;

constexpr char kChromium[] = "/usr/bin/chromium";

struct Shot {
  int exit_code = -1;
  std::string log;  // Chromium's stderr
  std::string png;
};

Shot Screenshot(const std::string& html_path, const std::string& name) {
  const std::string dir = ScratchDir("chromium_" + name);
  const std::string png = dir + "/shot.png", log = dir + "/stderr.txt";
  const std::string cmd =
      std::string("timeout 60 ") + kChromium +
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
      " --disable-background-networking --disable-component-update --disable-sync"
      " --user-data-dir=" +
      dir +
      "/profile --window-size=1200,1600 --hide-scrollbars"
      " --enable-logging=stderr --v=0 --screenshot=" +
      png + " 'file://" + fs::absolute(html_path).string() + "' >/dev/null 2>" + log;
  Shot s;
  s.exit_code = std::system(cmd.c_str());
  s.log = Slurp(log);
  s.png = Slurp(png);
  return s;
}

// Console messages Chromium logged ("...:CONSOLE(12)] "Uncaught ..."").
std::vector<std::string> ConsoleLines(const std::string& log) {
  std::vector<std::string> lines;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(":CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos) {
      lines.push_back(line);
    }
  }
  return lines;
}

uint32_t Be32(const std::string& s, size_t at) {
  return (uint32_t(uint8_t(s[at])) << 24) | (uint32_t(uint8_t(s[at + 1])) << 16) |
         (uint32_t(uint8_t(s[at + 2])) << 8) | uint32_t(uint8_t(s[at + 3]));
}

struct Pixels {
  int width = 0, height = 0;
  double non_white = 0;  // fraction of pixels that are not white
  size_t colours = 0;
  std::string error;
};

// Decodes an 8-bit RGB or RGBA PNG (what Chromium writes) far enough to count pixels.
Pixels Analyse(const std::string& png) {
  Pixels p;
  if (png.size() < 8 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    p.error = "not a PNG (" + std::to_string(png.size()) + " bytes)";
    return p;
  }
  std::string idat;
  int depth = 0, type = 0;
  for (size_t at = 8; at + 8 <= png.size();) {
    const uint32_t len = Be32(png, at);
    const std::string kind = png.substr(at + 4, 4);
    if (at + 12 + len > png.size()) break;
    if (kind == "IHDR") {
      p.width = static_cast<int>(Be32(png, at + 8));
      p.height = static_cast<int>(Be32(png, at + 12));
      depth = uint8_t(png[at + 16]);
      type = uint8_t(png[at + 17]);
    } else if (kind == "IDAT") {
      idat += png.substr(at + 8, len);
    }
    at += 12 + len;
  }
  const int bpp = type == 6 ? 4 : type == 2 ? 3 : 0;
  if (depth != 8 || bpp == 0 || p.width <= 0 || p.height <= 0) {
    p.error =
        "unsupported PNG (depth " + std::to_string(depth) + ", type " + std::to_string(type) + ")";
    return p;
  }
  const size_t stride = static_cast<size_t>(p.width) * bpp;
  std::vector<uint8_t> raw((stride + 1) * p.height);
  uLongf raw_len = raw.size();
  if (uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) !=
          Z_OK ||
      raw_len != raw.size()) {
    p.error = "cannot inflate the image data";
    return p;
  }
  std::vector<uint8_t> prev(stride, 0), cur(stride);
  size_t non_white = 0;
  std::set<uint32_t> colours;
  for (int y = 0; y < p.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= size_t(bpp) ? cur[x - bpp] : 0, b = prev[x],
                c = x >= size_t(bpp) ? prev[x - bpp] : 0;
      int pred = 0;
      switch (filter) {
        case 1:
          pred = a;
          break;
        case 2:
          pred = b;
          break;
        case 3:
          pred = (a + b) / 2;
          break;
        case 4: {
          const int pp = a + b - c, pa = std::abs(pp - a), pb = std::abs(pp - b),
                    pc = std::abs(pp - c);
          pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default:
          break;
      }
      cur[x] = static_cast<uint8_t>(in[x] + pred);
    }
    for (int x = 0; x < p.width; ++x) {
      const uint8_t* px = &cur[x * bpp];
      if (px[0] < 250 || px[1] < 250 || px[2] < 250) ++non_white;
      if (colours.size() < 4096) colours.insert((px[0] << 16) | (px[1] << 8) | px[2]);
    }
    prev.swap(cur);
  }
  p.non_white = static_cast<double>(non_white) / (double(p.width) * p.height);
  p.colours = colours.size();
  return p;
}

class Browser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kChromium))
      GTEST_SKIP() << kChromium << " is not installed (tools/install_deps.sh)";
  }
};

TEST_F(Browser, ReportRendersWithoutConsoleErrorsAndIsNotBlank) {
  const std::string dir = ScratchDir("page");
  const std::string html = dir + "/report.html";
  Spit(html, doc::PrintHtml(ReportDocument(MergeRun(Fixture("run")))));
  const Shot s = Screenshot(html, "report");
  ASSERT_EQ(s.exit_code, 0) << s.log;
  EXPECT_EQ(ConsoleLines(s.log), std::vector<std::string>{}) << s.log;
  const Pixels p = Analyse(s.png);
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.width, 1200);
  EXPECT_GT(p.non_white, 0.02);
  EXPECT_GT(p.colours, 8u);  // text, table borders, verdict colours, chart marks
  if (const char* out = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR")) {
    Spit(std::string(out) + "/report.png", s.png);
  }
}

TEST_F(Browser, ControlsProveTheChecksCanFail) {
  const std::string dir = ScratchDir("controls");
  Spit(dir + "/error.html",
       "<!DOCTYPE html><html><body><p>x</p><script>console.error('planted "
       "error');</script></body></html>");
  const Shot bad = Screenshot(dir + "/error.html", "error");
  const auto lines = ConsoleLines(bad.log);
  ASSERT_EQ(lines.size(), 1u) << bad.log;
  EXPECT_NE(lines[0].find("planted error"), std::string::npos);
  Spit(dir + "/blank.html", "<!DOCTYPE html><html><body></body></html>");
  const Pixels blank = Analyse(Screenshot(dir + "/blank.html", "blank").png);
  ASSERT_EQ(blank.error, "");
  EXPECT_LT(blank.non_white, 0.001);
  EXPECT_LE(blank.colours, 2u);
}

}  // namespace
}  // namespace reports
}  // namespace trickbench
