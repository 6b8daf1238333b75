// reports/SCHEMA.md against the code that writes the files it documents: every key the
// writers emit appears in its section, every status and outcome is listed, fields the
// section names under trickbench.* exist, and the documented schema versions are the
// constants. So neither can change without the other.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "common/test_files.h"
#include "results/result_file.h"
#include "results/run_index.h"
#include "results/full_examples.h"

namespace trickbench {
namespace results {
namespace {

std::string g_schema_path;

std::string Schema() { return test_files::ReadExisting(g_schema_path); }

// The text from the heading that starts with `heading` to the next "## ".
std::string Section(const std::string& heading) {
  const std::string text = Schema();
  const auto start = text.find("\n" + heading);
  if (start == std::string::npos) {
    ADD_FAILURE() << "SCHEMA.md has no section '" << heading << "'";
    return "";
  }
  const auto end = text.find("\n## ", start + 1);
  return text.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
}

// Every identifier inside `backticks` in the text: `{rtol, atol}` gives rtol and atol,
// `trickbench.checks[]` gives trickbench and checks.
std::set<std::string> DocumentedWords(const std::string& section) {
  std::set<std::string> words;
  static const std::regex kCode("`([^`]*)`");
  static const std::regex kWord("[A-Za-z_][A-Za-z0-9_]*");
  for (auto m = std::sregex_iterator(section.begin(), section.end(), kCode);
       m != std::sregex_iterator(); ++m) {
    const std::string code = (*m)[1];
    for (auto w = std::sregex_iterator(code.begin(), code.end(), kWord);
         w != std::sregex_iterator(); ++w) {
      words.insert(w->str());
    }
  }
  return words;
}

// Every object key anywhere in `j`, with the path it was found at; not the names
// inside "counters", which are each trick's own.
void CollectKeys(const Json& j, const std::string& path, std::map<std::string, std::string>* keys) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      keys->emplace(k, JsonPath(path, k));
      if (k != "counters") CollectKeys(v, JsonPath(path, k), keys);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) CollectKeys(j[i], JsonPath(path, i), keys);
  }
}

int VersionInHeading(const std::string& section) {
  std::smatch m;
  const std::string first_line = section.substr(0, section.find('\n'));
  if (!std::regex_search(first_line, m, std::regex(R"(schema_version (\d+))"))) {
    ADD_FAILURE() << "no 'schema_version N' in: " << first_line;
    return -1;
  }
  return std::stoi(m[1]);
}

TEST(SchemaDoc, ResultFileSectionStatesTheCodesVersion) {
  const std::string s = Section("## 1. Per-trick result file");
  EXPECT_EQ(VersionInHeading(s), kResultSchemaVersion);
  EXPECT_NE(s.find("| `trickbench.schema_version` | int | " + std::to_string(kResultSchemaVersion) +
                   " |"),
            std::string::npos);
}

TEST(SchemaDoc, IndexSectionStatesTheCodesVersion) {
  const std::string s = Section("## 2. Run index");
  EXPECT_EQ(VersionInHeading(s), kIndexSchemaVersion);
  EXPECT_NE(s.find("| `schema_version` | " + std::to_string(kIndexSchemaVersion) + " |"),
            std::string::npos);
  EXPECT_NE(s.find("`\"" + std::string(kIndexKind) + "\"`"), std::string::npos);
  EXPECT_NE(s.find("accept versions " + std::to_string(kOldestReadableIndexSchemaVersion) +
                   " and " + std::to_string(kIndexSchemaVersion)),
            std::string::npos)
      << "the section must say which versions readers accept";
}

TEST(SchemaDoc, EveryResultFieldTheWriterEmitsIsDocumented) {
  const std::set<std::string> documented = DocumentedWords(Section("## 1. Per-trick result file"));
  const Json j = testing::FullResult().ToJson();
  std::map<std::string, std::string> keys;
  for (const char* top : {"context", "trickbench"}) keys.emplace(top, top);
  CollectKeys(j["trickbench"], "trickbench", &keys);  // context: free-form key/value strings
  for (const auto& [key, where] : keys) {
    EXPECT_TRUE(documented.count(key)) << "SCHEMA.md section 1 does not document " << where;
  }
}

TEST(SchemaDoc, EveryDocumentedTrickbenchFieldExists) {
  const std::string s = Section("## 1. Per-trick result file");
  const Json tb = testing::FullResult().ToJson()["trickbench"];
  static const std::regex kRow(R"(\n\| `trickbench\.([a-z_]+))");
  int rows = 0;
  for (auto m = std::sregex_iterator(s.begin(), s.end(), kRow); m != std::sregex_iterator(); ++m) {
    EXPECT_TRUE(tb.contains((*m)[1].str()))
        << "SCHEMA.md documents trickbench." << (*m)[1] << ", which the writer does not emit";
    ++rows;
  }
  EXPECT_GT(rows, 10);
}

TEST(SchemaDoc, EveryIndexFieldTheWriterEmitsIsDocumented) {
  const std::string s = Section("## 2. Run index");
  const std::set<std::string> documented = DocumentedWords(s);
  std::map<std::string, std::string> keys;
  Json index = testing::FullIndex().ToJson();
  ASSERT_FALSE(index["budget"]["added"].empty());
  index["budget"]["added"] = Json::object();  // trick id -> count: its keys are ids
  CollectKeys(index, "", &keys);
  for (const auto& [key, where] : keys) {
    EXPECT_TRUE(documented.count(key)) << "SCHEMA.md section 2 does not document " << where;
  }
}

TEST(SchemaDoc, EveryStatusAndOutcomeIsListed) {
  const std::set<std::string> result_words =
      DocumentedWords(Section("## 1. Per-trick result file"));
  for (ResultStatus st : AllResultStatuses()) {
    EXPECT_TRUE(result_words.count(Name(st))) << "status " << Name(st) << " not in section 1";
  }
  const std::set<std::string> index_words = DocumentedWords(Section("## 2. Run index"));
  for (RunOutcome o : AllRunOutcomes()) {
    EXPECT_TRUE(index_words.count(Name(o))) << "outcome " << Name(o) << " not in section 2";
  }
}

}  // namespace
}  // namespace results
}  // namespace trickbench

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    trickbench::test_files::ArgValue(a, "--schema", &trickbench::results::g_schema_path);
  }
  if (trickbench::results::g_schema_path.empty()) {
    std::fprintf(stderr, "usage: %s --schema=reports/SCHEMA.md\n", argv[0]);
    return 2;
  }
  return RUN_ALL_TESTS();
}
