// Every message the field readers give, since users see them verbatim.
#include "results/checked_json.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "common/test_files.h"

namespace trickbench {
namespace results {
namespace {

// The message of the InputError `fn` throws; fails the test when it throws none.
template <typename Fn>
std::string ErrorOf(Fn fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

const Json kDoc = Json::parse(R"({"s": "x", "n": 1.5, "i": 3, "big": 18446744073709551615,
  "neg": -2, "b": true, "nul": null, "a": ["p", 1], "o": {}})");

TEST(Fields, ReadsWhatIsThere) {
  const Fields f("x.json");
  EXPECT_EQ(f.String(kDoc, "", "s"), "x");
  EXPECT_EQ(f.Number(kDoc, "", "n"), 1.5);
  EXPECT_EQ(f.Int(kDoc, "", "i", 0), 3);
  EXPECT_EQ(f.Int(kDoc, "", "big"), INT64_MAX);
  EXPECT_TRUE(f.Bool(kDoc, "", "b"));
  EXPECT_EQ(f.NumberOrNull(kDoc, "", "nul", -7), -7);
  EXPECT_EQ(f.NumberOrNull(kDoc, "", "n", -7), 1.5);
  EXPECT_TRUE(f.Object(kDoc, "", "o").empty());
  EXPECT_TRUE(f.Has(kDoc, "", "o"));
  EXPECT_FALSE(f.Has(kDoc, "", "zzz"));
}

TEST(Fields, ErrorsNameFileFieldAndProblem) {
  const Fields f("x.json");
  const Json nested = {{"checks", {{{"variants", {Json::object(), {{"peak_bytes", "1"}}}}}}}};
  const Json& variant = nested["checks"][0]["variants"][1];
  EXPECT_EQ(
      ErrorOf([&] { f.Int(variant, "trickbench.checks[0].variants[1]", "peak_bytes", 0); }),
      "x.json: trickbench.checks[0].variants[1].peak_bytes: expected an integer, got a string");
  EXPECT_EQ(ErrorOf([&] { f.String(kDoc, "", "missing"); }), "x.json: missing: missing");
  EXPECT_EQ(ErrorOf([&] { f.String(kDoc, "", "n"); }),
            "x.json: n: expected a string, got a number");
  EXPECT_EQ(ErrorOf([&] { f.Bool(kDoc, "", "s"); }), "x.json: s: expected a boolean, got a string");
  EXPECT_EQ(ErrorOf([&] { f.Number(kDoc, "", "nul"); }),
            "x.json: nul: expected a number, got null");
  EXPECT_EQ(ErrorOf([&] { f.NumberOrNull(kDoc, "", "s", 0); }),
            "x.json: s: expected a number or null, got a string");
  EXPECT_EQ(ErrorOf([&] { f.Int(kDoc, "", "n"); }), "x.json: n: expected an integer, got a number");
  EXPECT_EQ(ErrorOf([&] { f.Int(kDoc, "", "neg", 0); }), "x.json: neg: out of range: -2");
  EXPECT_EQ(ErrorOf([&] { f.Object(kDoc, "", "a"); }),
            "x.json: a: expected an object, got an array");
  EXPECT_EQ(ErrorOf([&] { f.Array(kDoc, "", "o"); }),
            "x.json: o: expected an array, got an object");
  EXPECT_EQ(ErrorOf([&] { f.Strings(kDoc, "", "a"); }),
            "x.json: a[1]: expected a string, got a number");
  EXPECT_EQ(ErrorOf([&] { f.Member(kDoc["a"], "a", "k"); }),
            "x.json: a: expected an object, got an array");
  EXPECT_EQ(ErrorOf([&] { f.Has(kDoc["b"], "b", "k"); }),
            "x.json: b: expected an object, got a boolean");
  EXPECT_EQ(ErrorOf([&] { f.Fail("", "whole file"); }), "x.json: whole file");
}

TEST(Fields, SchemaVersions) {
  const Fields f("x.json");
  const Json v2 = {{"schema_version", 2}};
  EXPECT_NO_THROW(f.Version(v2, "", 2));
  EXPECT_EQ(f.Version(v2, "", 1, 2), 2);
  EXPECT_EQ(ErrorOf([&] { f.Version(v2, "", 1); }),
            "x.json: schema_version: wrong schema version 2 (this build reads version 1)");
  EXPECT_EQ(ErrorOf([&] { f.Version(v2, "tb", 3, 4); }),
            "x.json: tb.schema_version: wrong schema version 2 (this build reads versions 3 to 4)");
  EXPECT_EQ(ErrorOf([&] { f.Version(Json::object(), "", 1); }), "x.json: schema_version: missing");
}

TEST(ParseJsonText, SaysWhatIsWrongWithTheText) {
  EXPECT_EQ(ErrorOf([] { ParseJsonText("  \n", "e.json"); }),
            "e.json: not JSON: the file is empty");
  EXPECT_EQ(ErrorOf([] { ParseJsonText(R"({"a": [1, 2)", "t.json"); }),
            "t.json: truncated: the JSON text ends early (byte 11)");
  EXPECT_EQ(
      ErrorOf([] { ParseJsonText(R"({"real_time": NaN})", "n.json"); }),
      "n.json: real_time: NaN or infinite number (not valid JSON, not a valid time) at byte 15");
  EXPECT_EQ(ErrorOf([] {
              ParseJsonText(R"({"t": -inf})", "n.json");
            }).rfind("n.json: t: NaN or infinite number (not valid JSON", 0),
            0u);
  const std::string garbage = ErrorOf([] { ParseJsonText("this is not json", "g.json"); });
  EXPECT_EQ(garbage.rfind("g.json: not JSON: syntax error", 0), 0u) << garbage;
  EXPECT_EQ(ErrorOf([] { ParseJsonText(R"({"seconds": 1e999})", "b.json"); }),
            "b.json: seconds: number out of range (not a finite number)");
  EXPECT_EQ(ParseJsonText(R"({"a": 1})", "ok.json")["a"], 1);
}

TEST(ReadJsonFile, NamesAnUnreadableFile) {
  EXPECT_EQ(ErrorOf([] { ReadJsonFile("/nonexistent/x.json"); }),
            "/nonexistent/x.json: cannot read: No such file or directory");
  const std::string path = test_files::TmpDir() + "/read_json.json";
  test_files::Write(path, R"({"k": [true]})");
  EXPECT_EQ(ReadJsonFile(path)["k"][0], true);
  std::remove(path.c_str());
}

TEST(JsonPath, JoinsKeysAndIndices) {
  EXPECT_EQ(JsonPath("", "a"), "a");
  EXPECT_EQ(JsonPath("a", "b"), "a.b");
  EXPECT_EQ(JsonPath("a.b", 3), "a.b[3]");
}

}  // namespace
}  // namespace results
}  // namespace trickbench
