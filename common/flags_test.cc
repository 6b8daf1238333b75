#include "common/flags.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace trickbench {
namespace {

// A trick binary's command line, as the runner declares it.
struct TrickOptions {
  int threads = 4;
  int repetitions = 9;
  double min_time = 0.1;
  uint64_t seed = 0;
  std::string out = "default.json";
  std::string device = "auto";
  bool list = false;
  bool help = false;
  std::vector<std::string> only = {"all"};
  double fail_on = 0;
  std::vector<std::string> benchmark;

  Flags flags{"trickbench"};
  TrickOptions() {
    flags.Int("threads", &threads, 1, 1024, "intra-op threads")
        .Int("repetitions", &repetitions, 1, 10000, "repetitions per variant")
        .Seconds("min_time", &min_time, 3600, "minimum time of one repetition")
        .Uint64("seed", &seed, "seed for every RNG")
        .String("out", &out, "result file")
        .Choice("device", &device, {"auto", "cpu", "cuda"}, "where to run")
        .Bool("list", &list, "print the cases and exit")
        .Bool("help", &help, "this text")
        .List("only", &only, "run only these")
        .Percent("fail_on", &fail_on, "regression threshold")
        .PassThrough("--benchmark_", &benchmark,
                     {"--benchmark_out", "--benchmark_repetitions", "--benchmark_min_time"},
                     "--out, --repetitions or --min_time");
  }
  // The error of parsing `args`, "" when it parsed.
  std::string Error(const std::vector<std::string>& args) {
    std::string error;
    return flags.Parse(args, &error) ? "" : error;
  }
};

TEST(Flags, ParsesEveryKindAndRecordsWhatWasGiven) {
  TrickOptions o;
  ASSERT_EQ(
      o.Error({"--threads=2", "--min_time=0.25", "--seed=18446744073709551615", "--out=r.json",
               "--device=cuda", "--list", "--only=a,b", "--benchmark_filter=x", "--fail_on=12.5"}),
      "");
  EXPECT_EQ(o.threads, 2);
  EXPECT_EQ(o.repetitions, 9);  // not given: the default stays
  EXPECT_DOUBLE_EQ(o.min_time, 0.25);
  EXPECT_EQ(o.seed, UINT64_MAX);
  EXPECT_EQ(o.out, "r.json");
  EXPECT_EQ(o.device, "cuda");
  EXPECT_TRUE(o.list);
  EXPECT_FALSE(o.help);
  EXPECT_EQ(o.only, (std::vector<std::string>{"a", "b"}));
  EXPECT_DOUBLE_EQ(o.fail_on, 12.5);
  EXPECT_EQ(o.benchmark, (std::vector<std::string>{"--benchmark_filter=x"}));
  EXPECT_TRUE(o.flags.Given("threads"));
  EXPECT_TRUE(o.flags.Given("list"));
  EXPECT_FALSE(o.flags.Given("repetitions"));
  EXPECT_FALSE(o.flags.Given("help"));
  EXPECT_EQ(o.flags.Seen(), (std::vector<std::string>{"--threads=2", "--min_time=0.25",
                                                      "--seed=18446744073709551615", "--out=r.json",
                                                      "--device=cuda", "--list", "--only=a,b",
                                                      "--benchmark_filter=x", "--fail_on=12.5"}));
}

TEST(Flags, EmptyCommandLineKeepsDefaults) {
  TrickOptions o;
  ASSERT_EQ(o.Error({}), "");
  EXPECT_EQ(o.threads, 4);
  EXPECT_EQ(o.out, "default.json");
  EXPECT_TRUE(o.flags.Seen().empty());
}

TEST(Flags, BadValuesNameTheFlagTheValueAndWhatWasExpected) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--threads=x", "bad value for --threads: 'x' (expected an integer from 1 to 1024)"},
      {"--threads=0", "bad value for --threads: '0' (expected an integer from 1 to 1024)"},
      {"--threads=1025", "bad value for --threads: '1025' (expected an integer from 1 to 1024)"},
      {"--threads=2.5", "bad value for --threads: '2.5' (expected an integer from 1 to 1024)"},
      {"--threads= 2", "bad value for --threads: ' 2' (expected an integer from 1 to 1024)"},
      {"--threads=99999999999999999999",
       "bad value for --threads: '99999999999999999999' (expected an integer from 1 to 1024)"},
      {"--seed=-1",
       "bad value for --seed: '-1' (expected an integer from 0 to "
       "18446744073709551615)"},
      {"--seed=18446744073709551616",
       "bad value for --seed: '18446744073709551616' (expected "
       "an integer from 0 to 18446744073709551615)"},
      {"--seed=+3",
       "bad value for --seed: '+3' (expected an integer from 0 to "
       "18446744073709551615)"},
      {"--min_time=0", "bad value for --min_time: '0' (expected seconds, > 0 and <= 3600)"},
      {"--min_time=-1", "bad value for --min_time: '-1' (expected seconds, > 0 and <= 3600)"},
      {"--min_time=3601", "bad value for --min_time: '3601' (expected seconds, > 0 and <= 3600)"},
      {"--min_time=nan", "bad value for --min_time: 'nan' (expected seconds, > 0 and <= 3600)"},
      {"--min_time=1s", "bad value for --min_time: '1s' (expected seconds, > 0 and <= 3600)"},
      {"--device=tpu", "bad value for --device: 'tpu' (expected auto, cpu or cuda)"},
      {"--device=CPU", "bad value for --device: 'CPU' (expected auto, cpu or cuda)"},
      {"--fail_on=-5", "bad value for --fail_on: '-5' (expected a percentage >= 0)"},
      {"--fail_on=inf", "bad value for --fail_on: 'inf' (expected a percentage >= 0)"},
      {"--fail_on=ten", "bad value for --fail_on: 'ten' (expected a percentage >= 0)"},
      {"--only=a,,b",
       "bad value for --only: 'a,,b' (expected a comma-separated list without empty items)"},
      {"--only=a,",
       "bad value for --only: 'a,' (expected a comma-separated list without empty items)"},
  };
  for (const auto& [arg, message] : cases) {
    TrickOptions o;
    EXPECT_EQ(o.Error({arg}), message) << arg;
  }
}

TEST(Flags, ShapeErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--out"}, "--out needs a value (--out=...)"},
      {{"--threads"}, "--threads needs a value (--threads=...)"},
      {{"--list=yes"}, "--list takes no value"},
      {{"--list="}, "--list takes no value"},
      {{"--out="}, "--out is empty"},
      {{"--only="}, "--only is empty"},
      {{"--frobnicate"}, "unknown flag --frobnicate (see --help)"},
      {{"--frobnicate=3"}, "unknown flag --frobnicate (see --help)"},
      {{"-threads=2"}, "unexpected argument '-threads=2' (flags are --name=value; see --help)"},
      {{"x"}, "unexpected argument 'x' (flags are --name=value; see --help)"},
      {{"--"}, "unexpected argument '--' (flags are --name=value; see --help)"},
      {{"--threads=2", "--threads=3"}, "--threads is given twice"},
      {{"--list", "--list"}, "--list is given twice"},
      {{"--benchmark_out=x.json"},
       "--benchmark_out is set by the harness; use --out, --repetitions or --min_time"},
      {{"--benchmark_out_format=json"},
       "--benchmark_out_format is set by the harness; use --out, --repetitions or --min_time"},
      {{"--benchmark_min_time=2"},
       "--benchmark_min_time is set by the harness; use --out, --repetitions or --min_time"},
  };
  for (const auto& [args, message] : cases) {
    TrickOptions o;
    EXPECT_EQ(o.Error(args), message) << args[0];
  }
}

TEST(Flags, AFailedParseWritesNothing) {
  TrickOptions o;
  EXPECT_NE(o.Error({"--threads=2", "--out=r.json", "--list", "--only=a", "--benchmark_x=1",
                     "--seed=7", "--device=tpu"}),
            "");
  EXPECT_EQ(o.threads, 4);
  EXPECT_EQ(o.out, "default.json");
  EXPECT_FALSE(o.list);
  EXPECT_EQ(o.only, (std::vector<std::string>{"all"}));
  EXPECT_EQ(o.seed, 0u);
  EXPECT_TRUE(o.benchmark.empty());
  EXPECT_FALSE(o.flags.Given("threads"));
  EXPECT_TRUE(o.flags.Seen().empty());
}

TEST(Flags, PositionalArgumentsOnlyWhenDeclared) {
  std::vector<std::string> files;
  std::string md;
  Flags f("compare");
  f.String("md", &md, "write Markdown here").Positional(&files);
  std::string error;
  ASSERT_TRUE(f.Parse({"old.json", "--md=x.md", "new.json", "-"}, &error)) << error;
  EXPECT_EQ(files, (std::vector<std::string>{"old.json", "new.json", "-"}));
  EXPECT_EQ(f.Seen(), (std::vector<std::string>{"--md=x.md"}));  // positional ones not forwarded
  std::vector<std::string> more;
  Flags g("compare");
  g.Positional(&more);
  EXPECT_FALSE(g.Parse({"a", "-x"}, &error));
  EXPECT_EQ(error, "unexpected argument '-x' (flags are --name=value; see --help)");
  EXPECT_TRUE(more.empty());
}

TEST(Flags, PassThroughWithoutRefusalsKeepsOrderAndRepeats) {
  std::vector<std::string> rest;
  bool check_only = false;
  Flags f("run_all");
  f.Bool("check_only", &check_only, "no timing").PassThrough("--benchmark_", &rest);
  std::string error;
  ASSERT_TRUE(f.Parse({"--benchmark_a=1", "--check_only", "--benchmark_a=2"}, &error)) << error;
  EXPECT_EQ(rest, (std::vector<std::string>{"--benchmark_a=1", "--benchmark_a=2"}));
  EXPECT_EQ(f.Seen(),
            (std::vector<std::string>{"--benchmark_a=1", "--check_only", "--benchmark_a=2"}));
  Flags g("x");
  std::vector<std::string> r2;
  g.PassThrough("--benchmark_", &r2, {"--benchmark_out"});
  EXPECT_FALSE(g.Parse({"--benchmark_out=y"}, &error));
  EXPECT_EQ(error, "--benchmark_out is set by the harness");
}

TEST(Flags, SecondsMaximumIsWrittenAsGiven) {
  double timeout = 300;
  Flags f("run_all");
  f.Seconds("timeout", &timeout, 86400, "per trick");
  std::string error;
  EXPECT_FALSE(f.Parse({"--timeout=soon"}, &error));
  EXPECT_EQ(error, "bad value for --timeout: 'soon' (expected seconds, > 0 and <= 86400)");
  ASSERT_TRUE(f.Parse({"--timeout=86400"}, &error)) << error;
  EXPECT_EQ(timeout, 86400);
}

TEST(Flags, TwoChoicesReadAsEitherOr) {
  std::string mode = "a";
  Flags f("x");
  f.Choice("mode", &mode, {"fast", "slow"}, "");
  std::string error;
  EXPECT_FALSE(f.Parse({"--mode=medium"}, &error));
  EXPECT_EQ(error, "bad value for --mode: 'medium' (expected fast or slow)");
}

TEST(Flags, IntRangeMayBeNegative) {
  int offset = 0;
  Flags f("x");
  f.Int("offset", &offset, -5, 5, "");
  std::string error;
  ASSERT_TRUE(f.Parse({"--offset=-5"}, &error)) << error;
  EXPECT_EQ(offset, -5);
}

TEST(Flags, HelpListsEveryFlagInOrderAligned) {
  int threads = 1;
  bool list = false;
  std::string device = "auto";
  std::vector<std::string> only, rest;
  double min_time = 0.1;
  Flags f("trickbench");
  f.Int("threads", &threads, 1, 1024, "intra-op threads")
      .Seconds("min_time", &min_time, 3600, "minimum time of one repetition\n(default 0.1)")
      .Choice("device", &device, {"auto", "cpu", "cuda"}, "where to run")
      .List("only", &only, "run only these")
      .Bool("list", &list, "print the cases and exit")
      .PassThrough("--benchmark_", &rest);
  EXPECT_EQ(f.Help(),
            "  --threads=N             intra-op threads\n"
            "  --min_time=SECONDS      minimum time of one repetition\n"
            "                          (default 0.1)\n"
            "  --device=auto|cpu|cuda  where to run\n"
            "  --only=A,B,...          run only these\n"
            "  --list                  print the cases and exit\n");
}

TEST(Flags, DeclarationMistakesAreLogicErrors) {
  int n = 0;
  double d = 0;
  Flags f("x");
  f.Int("n", &n, 0, 10, "");
  EXPECT_THROW(f.Int("n", &n, 0, 10, ""), std::logic_error);           // twice
  EXPECT_THROW(f.Int("big", &n, 0, 1LL << 40, ""), std::logic_error);  // not an int
  EXPECT_THROW(f.Int("upside", &n, 5, 1, ""), std::logic_error);       // lo > hi
  EXPECT_THROW(f.Seconds("s", &d, 0, ""), std::logic_error);           // max <= 0
  EXPECT_THROW(f.Bool("", nullptr, ""), std::logic_error);             // no name
  EXPECT_THROW(f.Bool("--x", nullptr, ""), std::logic_error);          // dashes in name
  EXPECT_THROW(f.Bool("a=b", nullptr, ""), std::logic_error);
  EXPECT_THROW(f.Choice("c", nullptr, {}, ""), std::logic_error);   // no choices
  EXPECT_THROW(f.PassThrough("bench", nullptr), std::logic_error);  // not --...
  EXPECT_THROW(f.Given("threads"), std::logic_error);               // undeclared
}

}  // namespace
}  // namespace trickbench
