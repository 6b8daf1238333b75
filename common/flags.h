// Flags: the one strict command-line parser of trickbench's programs (trick binaries,
// run_all, report, compare).
//
//   int threads = 1;
//   double min_time = 0.1;
//   bool help = false;
//   std::vector<std::string> benchmark_flags;
//   trickbench::Flags flags("trickbench");
//   flags.Int("threads", &threads, 1, 1024, "intra-op threads")
//       .Seconds("min_time", &min_time, 3600, "minimum time of one repetition")
//       .Bool("help", &help, "this text")
//       .PassThrough("--benchmark_", &benchmark_flags, {"--benchmark_out"}, "--out");
//   std::string error;
//   if (!flags.Parse(args, &error)) {                  // args: argv[1..]
//     std::cerr << "trickbench: " << error << "\n";   // one line, names the flag
//     return 2;
//   }
//   if (help) std::cout << usage << flags.Help();
//
// Why strict: a benchmark that silently ignores a mistyped flag measures something
// else than the user asked for, for minutes, and says nothing. So every flag is
// --name=value (--name alone for a Bool), values are checked against their range, an
// unknown flag, a stray argument or a flag given twice is an error, and nothing is
// stored unless the whole command line is good: after a failed Parse every output
// still holds its default.
//
// Declaring a flag twice, an empty name, or a range the output cannot hold is a
// programming error: std::logic_error at declaration, so a test of the program's
// command line catches it.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace trickbench {

class Flags {
 public:
  // "run_all", "trickbench", "compare": names the program in declaration errors.
  explicit Flags(std::string program);

  // Chained declarations; each flag is --name=value (or --name for Bool). The output's
  // value at declaration is the default; it is only written by a successful Parse.
  Flags& Int(const std::string& name, int* out, long long lo, long long hi, std::string help);
  Flags& Uint64(const std::string& name, uint64_t* out, std::string help);
  // Seconds: > 0 and <= max.
  Flags& Seconds(const std::string& name, double* out, double max, std::string help);
  // Percent: a finite number >= 0.
  Flags& Percent(const std::string& name, double* out, std::string help);
  // String: any non-empty text.
  Flags& String(const std::string& name, std::string* out, std::string help);
  // Choice: one of `choices`, spelled exactly.
  Flags& Choice(const std::string& name, std::string* out, std::vector<std::string> choices,
                std::string help);
  // Bool: --name sets *out to true; --name=... is an error.
  Flags& Bool(const std::string& name, bool* out, std::string help);
  // List: comma-separated, non-empty items ("a,b"); replaces *out.
  Flags& List(const std::string& name, std::vector<std::string>* out, std::string help);

  // Arguments starting with `prefix` (e.g. "--benchmark_") are appended to *out
  // verbatim, for another parser to read (Google Benchmark's), unless they start with
  // one of `refused`: then the error is "<flag> is set by the harness; use <instead>"
  // (e.g. instead = "--out, --repetitions or --min_time"). Not listed by Help(): say
  // in the usage text where they go.
  Flags& PassThrough(const std::string& prefix, std::vector<std::string>* out,
                     std::vector<std::string> refused = {}, std::string instead = "");

  // Non-flag arguments (and "-" alone) are appended to *out; without this call they
  // are an error.
  Flags& Positional(std::vector<std::string>* out);

  // Parses argv[1..]. On error returns false with one line in *error, without the
  // program name (the caller prefixes it), and writes no output. Call it once.
  bool Parse(const std::vector<std::string>& args, std::string* error);

  // Whether --name was on the command line (a default and an explicit value can mean
  // different things, e.g. "one thread per core" vs "--threads=2"). `name` must be
  // declared (std::logic_error otherwise: a typo here would silently read false).
  bool Given(const std::string& name) const;

  // Every recognised flag and pass-through argument, verbatim, in command-line order
  // (not the positional ones): what a program forwards to the processes it starts.
  const std::vector<std::string>& Seen() const { return seen_; }

  // The flag list for --help: one line per flag, "  --name=VALUE  help", in declaration
  // order, help texts aligned; a help text's own line breaks are indented to match.
  std::string Help() const;

 private:
  struct Flag {
    std::string name;
    std::string value_name;  // "N", "SECONDS", ...; empty for a Bool
    std::string help;
    // Checks `value` and returns the store to run if the whole Parse succeeds; on a bad
    // value returns an empty function and sets *error.
    std::function<std::function<void()>(const std::string& value, std::string* error)> check;
  };
  struct Prefix {
    std::string prefix;
    std::vector<std::string>* out;
    std::vector<std::string> refused;
    std::string instead;
  };

  Flags& Add(Flag flag);
  const Flag* Find(const std::string& name) const;

  std::string program_;
  std::vector<Flag> flags_;
  std::vector<Prefix> pass_through_;
  std::vector<std::string>* positional_ = nullptr;
  std::set<std::string> given_;
  std::vector<std::string> seen_;
};

}  // namespace trickbench
