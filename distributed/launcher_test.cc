// Tests of running under a launcher (distributed/launcher_env.h, launched_group.h): the
// launchers' variables parsed and refused with their names, and //benches:ddp_no_sync run
// as two ranks with exactly the environment torchrun (with its agent's store, which the
// test hosts) or srun gives them: rank 0 writes a valid result and both exit 0; a bad
// variable is a one-line message and a non-zero exit; a rank killed mid-run makes the
// other exit with an error naming it. Last, a real torchrun when one is installed.
#include <torch/types.h>

#include <link.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "distributed/launcher_env.h"
#include "distributed/process_group.h"
#include "distributed/rank_env.h"

extern char** environ;

namespace trickbench::distributed {
namespace {

namespace fs = std::filesystem;
using Env = std::map<std::string, std::string>;

std::string g_trick_binary;  // --trick_binary=: //benches:ddp_no_sync

std::optional<LaunchEnv> Detect(const Env& env, std::string* error) {
  return DetectLauncher(
      [&env](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      error);
}

// What torchrun's agent gives worker `rank` of `world` (torch 2.11,
// elastic/agent/server/local_elastic_agent.py), one machine.
Env TorchrunEnv(int rank, int world, int port, bool agent_store) {
  return {{"RANK", std::to_string(rank)},
          {"LOCAL_RANK", std::to_string(rank)},
          {"GROUP_RANK", "0"},
          {"ROLE_RANK", std::to_string(rank)},
          {"ROLE_NAME", "default"},
          {"LOCAL_WORLD_SIZE", std::to_string(world)},
          {"WORLD_SIZE", std::to_string(world)},
          {"GROUP_WORLD_SIZE", "1"},
          {"ROLE_WORLD_SIZE", std::to_string(world)},
          {"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", std::to_string(port)},
          {"TORCHELASTIC_RESTART_COUNT", "0"},
          {"TORCHELASTIC_MAX_RESTARTS", "0"},
          {"TORCHELASTIC_RUN_ID", "launcher-test"},
          {"TORCHELASTIC_USE_AGENT_STORE", agent_store ? "True" : "False"},
          {"TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"},
          {"OMP_NUM_THREADS", "1"}};
}

Env SrunEnv(int rank, int world, int port) {
  return {{"SLURM_PROCID", std::to_string(rank)},
          {"SLURM_NTASKS", std::to_string(world)},
          {"SLURM_LOCALID", std::to_string(rank)},
          {"SLURM_NTASKS_PER_NODE", std::to_string(world)},
          {"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", std::to_string(port)}};
}

TEST(DetectLauncher, NoneWithoutALaunchersVariables) {
  std::string error;
  EXPECT_FALSE(Detect({{"PATH", "/bin"}}, &error));
  EXPECT_EQ(error, "");
  // A batch script's own shell: SLURM_PROCID=0 of one task is no launcher.
  EXPECT_FALSE(Detect({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}}, &error));
  EXPECT_EQ(error, "");
  // A rank the benchmark started itself, whatever it inherited.
  Env env = TorchrunEnv(1, 2, 29500, true);
  env["TRICKBENCH_RANK_LOCAL"] = "1";
  EXPECT_FALSE(Detect(env, &error));
  EXPECT_EQ(error, "");
  env = TorchrunEnv(0, 2, 29500, true);
  env["TRICKBENCH_LAUNCHER"] = "none";
  EXPECT_FALSE(Detect(env, &error));
  EXPECT_EQ(error, "");
}

TEST(DetectLauncher, ReadsEachLauncher) {
  std::string error;
  auto t = Detect(TorchrunEnv(1, 2, 29500, true), &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->launcher, Launcher::kTorchrun);
  EXPECT_EQ(t->rank.rank, 1);
  EXPECT_EQ(t->rank.world_size, 2);
  EXPECT_EQ(t->rank.master_port, 29500);
  EXPECT_EQ(t->local_world_size, 2);
  EXPECT_TRUE(t->agent_store);
  EXPECT_EQ(t->store_prefix, "trickbench/launcher-test/attempt0");
  Env env = TorchrunEnv(0, 2, 29500, true);
  env.erase("TORCHELASTIC_USE_AGENT_STORE");  // unset is False, as torch reads it
  EXPECT_FALSE(Detect(env, &error)->agent_store);

  auto s = Detect(SrunEnv(1, 4, 29400), &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->launcher, Launcher::kSrun);
  EXPECT_EQ(s->rank.rank, 1);
  EXPECT_EQ(s->rank.world_size, 4);
  EXPECT_FALSE(s->agent_store);

  auto m = Detect({{"OMPI_COMM_WORLD_RANK", "2"},
                   {"OMPI_COMM_WORLD_SIZE", "3"},
                   {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                   {"OMPI_COMM_WORLD_LOCAL_SIZE", "1"},
                   {"MASTER_ADDR", "node-a"},
                   {"MASTER_PORT", "29400"},
                   {"SLURM_PROCID", "0"},  // mpirun inside an allocation: mpirun's wins
                   {"SLURM_NTASKS", "3"}},
                  &error);
  ASSERT_TRUE(m) << error;
  EXPECT_EQ(m->launcher, Launcher::kMpirun);
  EXPECT_EQ(m->rank.rank, 2);
  EXPECT_EQ(m->rank.master_addr, "node-a");

  auto e = Detect({{"TRICKBENCH_LAUNCHER", "env"},
                   {"RANK", "0"},
                   {"WORLD_SIZE", "2"},
                   {"MASTER_ADDR", "127.0.0.1"},
                   {"MASTER_PORT", "29400"}},
                  &error);
  ASSERT_TRUE(e) << error;
  EXPECT_EQ(e->launcher, Launcher::kEnv);
}

TEST(DetectLauncher, IncompleteOrContradictoryNamesTheVariable) {
  struct Case {
    Env env;
    std::string unset, name, value, expected;
  };
  const std::vector<Case> cases = {
      {TorchrunEnv(0, 2, 1, true), "LOCAL_RANK", "", "", "torchrun: LOCAL_RANK is not set"},
      {TorchrunEnv(0, 2, 1, true), "MASTER_ADDR", "", "", "torchrun: MASTER_ADDR is not set"},
      {TorchrunEnv(0, 2, 1, true), "", "RANK", "2", "torchrun: RANK=2 is not below WORLD_SIZE=2"},
      {TorchrunEnv(0, 2, 1, true), "", "LOCAL_WORLD_SIZE", "3",
       "torchrun: LOCAL_WORLD_SIZE=3 is above WORLD_SIZE=2"},
      {TorchrunEnv(0, 2, 1, true), "", "TORCHELASTIC_USE_AGENT_STORE", "yes",
       "torchrun: TORCHELASTIC_USE_AGENT_STORE=yes is neither True nor False"},
      {TorchrunEnv(0, 2, 1, true), "", "MASTER_PORT", "0",
       "torchrun: MASTER_PORT=0 is not a whole number in 1..65535"},
      {SrunEnv(0, 2, 1), "SLURM_NTASKS", "", "", "srun: SLURM_NTASKS is not set"},
      {SrunEnv(0, 2, 1), "", "SLURM_PROCID", "2",
       "srun: SLURM_PROCID=2 is not below SLURM_NTASKS=2"},
      {SrunEnv(0, 2, 1), "", "RANK", "1", "srun: RANK=1 contradicts SLURM_PROCID=0"},
      {SrunEnv(0, 2, 1), "", "WORLD_SIZE", "4", "srun: WORLD_SIZE=4 contradicts SLURM_NTASKS=2"},
      {{{"OMPI_COMM_WORLD_RANK", "0"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"}},
       "",
       "",
       "",
       "mpirun: OMPI_COMM_WORLD_SIZE is not set"},
      {{{"TRICKBENCH_LAUNCHER", "slurm"}},
       "",
       "",
       "",
       "TRICKBENCH_LAUNCHER=slurm is not auto, none or env"},
  };
  for (Case c : cases) {
    if (!c.unset.empty()) c.env.erase(c.unset);
    if (!c.name.empty()) c.env[c.name] = c.value;
    std::string error;
    EXPECT_FALSE(Detect(c.env, &error)) << c.expected;
    EXPECT_EQ(error.rfind(c.expected, 0), 0u) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  std::string error;
  Detect(SrunEnv(0, 2, 1), &error);
  EXPECT_EQ(error, "");
  Env no_master = SrunEnv(0, 2, 1);
  no_master.erase("MASTER_ADDR");
  Detect(no_master, &error);
  EXPECT_EQ(error.rfind("srun: MASTER_ADDR is not set", 0), 0u) << error;
}

// A process of the trick binary with `env` added to ours (launcher variables removed
// first), stdout and stderr to `log`.
pid_t Spawn(const Env& env, const std::vector<std::string>& args, const fs::path& log) {
  std::vector<std::string> strings;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    const bool launcher = name.rfind("TORCHELASTIC_", 0) == 0 || name.rfind("SLURM_", 0) == 0 ||
                          name.rfind("OMPI_", 0) == 0 || name.rfind("TRICKBENCH_", 0) == 0;
    if (!launcher && !env.count(name) && name != "RANK" && name != "WORLD_SIZE") {
      strings.push_back(entry);
    }
  }
  for (const auto& [name, value] : env) strings.push_back(name + "=" + value);
  std::vector<std::string> argv_strings = {g_trick_binary};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> envp, argv;
  for (auto& s : strings) envp.push_back(s.data());
  for (auto& s : argv_strings) argv.push_back(s.data());
  envp.push_back(nullptr);
  argv.push_back(nullptr);
  const std::string log_path = log.string();
  const pid_t pid = fork();
  if (pid == 0) {
    FILE* out = std::fopen(log_path.c_str(), "w");
    if (out == nullptr) _exit(126);
    dup2(fileno(out), STDOUT_FILENO);
    dup2(fileno(out), STDERR_FILENO);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

// The exit code of `pid` (128 + signal when killed), or -1 after `limit` (then killed).
int WaitFor(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -1;
}

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class LaunchedTrick : public testing::Test {
 protected:
  void SetUp() override {
    if (g_trick_binary.empty()) GTEST_SKIP() << "no --trick_binary given";
    dir_ = fs::path(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") /
           ("launcher_test." + std::to_string(getpid()) + "." +
            testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    port_ = FreeLoopbackPort();
  }

  // The test as torchrun's agent: the TCPStore the workers connect to.
  c10::intrusive_ptr<c10d::Store> HostAgentStore() {
    RankEnv env;
    env.master_port = port_;
    return ConnectStore(env, /*host=*/true, std::chrono::seconds(30));
  }

  // Both ranks' keys "joined/<r>" on the store: the group has formed.
  static bool WaitJoined(const c10::intrusive_ptr<c10d::Store>& store, std::chrono::seconds limit) {
    c10d::PrefixStore keys("trickbench/launcher-test/attempt0", store);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (keys.check({"joined/0", "joined/1"})) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  void ExpectResult(const fs::path& out, const std::string& expected_status) {
    const auto j = nlohmann::json::parse(Read(out), nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(j.is_discarded()) << "not JSON: " << out;
    EXPECT_EQ(j["trickbench"]["status"], expected_status) << j["trickbench"].dump();
  }

  fs::path dir_;
  int port_ = 0;
};

TEST_F(LaunchedTrick, TorchrunWithAgentStoreChecks) {
  auto agent = HostAgentStore();
  const fs::path out = dir_ / "ddp_no_sync.json";
  pid_t pids[2];
  for (int r = 0; r < 2; ++r) {
    pids[r] = Spawn(TorchrunEnv(r, 2, port_, true), {"--check_only", "--out=" + out.string()},
                    dir_ / ("rank" + std::to_string(r) + ".log"));
  }
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(WaitFor(pids[r], std::chrono::seconds(90)), 0)
        << "rank " << r << ":\n"
        << Read(dir_ / ("rank" + std::to_string(r) + ".log"));
  }
  ExpectResult(out, "checked");
}

// srun's variables, rank 0 hosting the store; a whole run: checks, timed rounds (both
// variants' instances alive at once, calls interleaved), reproducibility.
TEST_F(LaunchedTrick, SrunMeasures) {
  const fs::path out = dir_ / "ddp_no_sync.json";
  pid_t pids[2];
  for (int r = 0; r < 2; ++r) {
    pids[r] =
        Spawn(SrunEnv(r, 2, port_), {"--rounds=2", "--min_time=0.001", "--out=" + out.string()},
              dir_ / ("rank" + std::to_string(r) + ".log"));
  }
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(WaitFor(pids[r], std::chrono::seconds(120)), 0)
        << "rank " << r << ":\n"
        << Read(dir_ / ("rank" + std::to_string(r) + ".log"));
  }
  ExpectResult(out, "ok");
}

TEST_F(LaunchedTrick, BadVariableIsOneLineAndNonZero) {
  Env env = TorchrunEnv(0, 2, port_, true);
  env.erase("LOCAL_RANK");
  const pid_t pid =
      Spawn(env, {"--check_only", "--out=" + (dir_ / "x.json").string()}, dir_ / "log");
  EXPECT_EQ(WaitFor(pid, std::chrono::seconds(30)), 2);
  const std::string log = Read(dir_ / "log");
  EXPECT_EQ(log, "trickbench (ddp_no_sync): torchrun: LOCAL_RANK is not set\n");
  EXPECT_FALSE(fs::exists(dir_ / "x.json"));
}

// Rank 1 killed while rank 0 benchmarks: rank 0 ends with an error naming rank 1.
TEST_F(LaunchedTrick, KilledRankIsNamedByRankZero) {
  auto agent = HostAgentStore();
  const std::vector<std::string> long_run = {"--rounds=10000",
                                             "--out=" + (dir_ / "r.json").string()};
  const pid_t rank0 = Spawn(TorchrunEnv(0, 2, port_, true), long_run, dir_ / "rank0.log");
  const pid_t rank1 = Spawn(TorchrunEnv(1, 2, port_, true), long_run, dir_ / "rank1.log");
  ASSERT_TRUE(WaitJoined(agent, std::chrono::seconds(60))) << Read(dir_ / "rank0.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // calls under way
  kill(rank1, SIGKILL);
  EXPECT_EQ(WaitFor(rank1, std::chrono::seconds(5)), 128 + SIGKILL);
  const int code = WaitFor(rank0, std::chrono::seconds(60));
  const std::string log = Read(dir_ / "rank0.log");
  EXPECT_NE(code, 0) << log;
  EXPECT_NE(code, -1) << "rank 0 hung:\n" << log;
  EXPECT_NE(log.find("rank 1 is gone"), std::string::npos) << log;
}

// Rank 0 killed: the serving rank exits 1 naming rank 0, although the agent's store
// (the test's) is still there.
TEST_F(LaunchedTrick, KilledRankZeroIsNamedByTheOthers) {
  auto agent = HostAgentStore();
  const std::vector<std::string> long_run = {"--rounds=10000",
                                             "--out=" + (dir_ / "r.json").string()};
  const pid_t rank0 = Spawn(TorchrunEnv(0, 2, port_, true), long_run, dir_ / "rank0.log");
  const pid_t rank1 = Spawn(TorchrunEnv(1, 2, port_, true), long_run, dir_ / "rank1.log");
  ASSERT_TRUE(WaitJoined(agent, std::chrono::seconds(60))) << Read(dir_ / "rank0.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(rank0, SIGKILL);
  EXPECT_EQ(WaitFor(rank0, std::chrono::seconds(5)), 128 + SIGKILL);
  const int code = WaitFor(rank1, std::chrono::seconds(30));
  const std::string log = Read(dir_ / "rank1.log");
  EXPECT_EQ(code, 1) << log;
  EXPECT_NE(log.find("rank 0 is gone"), std::string::npos) << log;
}

// The .venv/bin/torchrun beside the LibTorch this test links (the pinned wheel's), if any.
std::string FindTorchrun() {
  if (const char* given = std::getenv("TRICKBENCH_TORCHRUN")) return given;
  // The loaded libtorch_cpu.so's path (an address's dladdr would name the PLT's owner).
  std::string lib;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        const std::string name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find("libtorch_cpu.so") == std::string::npos) return 0;
        *static_cast<std::string*>(out) = name;
        return 1;
      },
      &lib);
  if (lib.empty()) return "";
  std::error_code ec;
  // <venv>/lib/python3.X/site-packages/torch/lib/libtorch_cpu.so
  fs::path p = fs::canonical(lib, ec);
  if (ec) return "";
  for (int up = 0; up < 6; ++up) p = p.parent_path();
  const fs::path torchrun = p / "bin" / "torchrun";
  return access(torchrun.c_str(), X_OK) == 0 ? torchrun.string() : "";
}

TEST_F(LaunchedTrick, RealTorchrun) {
  const std::string torchrun = FindTorchrun();
  if (torchrun.empty()) {
    GTEST_SKIP() << "no torchrun found (none beside the linked LibTorch, no TRICKBENCH_TORCHRUN)";
  }
  // Found is not runnable: the wheel's Python half needs packages the C++ build does not
  // (install_deps.sh installs the wheel without its dependencies).
  const fs::path probe = dir_ / "torchrun_help.log";
  if (std::system(("timeout 60 " + torchrun + " --help > " + probe.string() + " 2>&1").c_str()) !=
      0) {
    std::string last, line;
    std::ifstream in(probe);
    while (std::getline(in, line)) {
      if (!line.empty()) last = line;
    }
    GTEST_SKIP() << torchrun << " cannot start: " << last;
  }
  const fs::path out = dir_ / "ddp_no_sync.json";
  // Bounded: a torchrun that hangs fails the test instead of holding it.
  const std::string command =
      "timeout 120 " + torchrun + " --no-python --standalone --nproc-per-node=2 " + g_trick_binary +
      " --check_only --out=" + out.string() + " > " + (dir_ / "torchrun.log").string() + " 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  EXPECT_EQ(WEXITSTATUS(status), 0) << command << "\n" << Read(dir_ / "torchrun.log");
  ExpectResult(out, "checked");
}

}  // namespace
}  // namespace trickbench::distributed

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--trick_binary=", 0) == 0) trickbench::distributed::g_trick_binary = a.substr(15);
  }
  return RUN_ALL_TESTS();
}
