#include "distributed/process_group.h"

#include <torch/serialize.h>
#include <torch/utils.h>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/jit/serialization/pickle.h>

#include <stdexcept>

namespace trickbench::distributed {

c10::intrusive_ptr<c10d::Store> ConnectStore(const RankEnv& env, bool host,
                                             std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions store_options;
  store_options.port = static_cast<std::uint16_t>(env.master_port);
  store_options.isServer = host;
  store_options.numWorkers = env.world_size;
  store_options.waitWorkers = false;  // the process group's own rendezvous waits for them
  store_options.timeout = timeout;
  return c10::make_intrusive<c10d::TCPStore>(env.master_addr, store_options);
}

c10::intrusive_ptr<c10d::ProcessGroupGloo> MakeGlooGroup(
    const c10::intrusive_ptr<c10d::Store>& store, const RankEnv& env,
    std::chrono::milliseconds timeout) {
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  // Loopback groups bind to 127.0.0.1 only; a multi-machine group uses the interface
  // named by GLOO_SOCKET_IFNAME when set (as torch does), else this host's address.
  if (env.loopback()) {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  } else if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME")) {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
  } else {
    options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  }
  options->threads = 1;  // one collective at a time; compute keeps the cores
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, env.rank, env.world_size, options);
}

c10::intrusive_ptr<c10d::ProcessGroupGloo> JoinGlooGroup(const RankEnv& env,
                                                         std::chrono::milliseconds timeout) {
  return MakeGlooGroup(ConnectStore(env, env.rank == 0, timeout), env, timeout);
}

void AverageGradients(Group& group, const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> grads;
  grads.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i].grad().defined()) {
      throw std::invalid_argument("AverageGradients: parameter " + std::to_string(i) +
                                  " has no grad");
    }
    grads.push_back(params[i].grad().reshape({-1}));
  }
  std::vector<torch::Tensor> flat{torch::cat(grads)};
  group.allreduce(flat)->wait();
  flat[0].div_(group.getSize());
  int64_t offset = 0;
  for (const auto& p : params) {
    const int64_t n = p.grad().numel();
    p.grad().copy_(flat[0].narrow(0, offset, n).view_as(p.grad()));
    offset += n;
  }
}

void BroadcastTensors(Group& group, const std::vector<torch::Tensor>& tensors, int root) {
  torch::NoGradGuard no_grad;
  for (const auto& t : tensors) {
    std::vector<torch::Tensor> one{t.detach()};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    group.broadcast(one, options)->wait();
  }
}

bool InSyncWithRankZero(Group& group, const std::vector<torch::Tensor>& tensors) {
  std::vector<torch::Tensor> flat;
  for (const auto& t : tensors) flat.push_back(t.detach().reshape({-1}));
  const torch::Tensor mine = torch::cat(flat);
  const torch::Tensor root = mine.clone();
  BroadcastTensors(group, {root}, 0);
  std::vector<torch::Tensor> in_sync{torch::tensor({torch::equal(mine, root) ? 1 : 0})};
  c10d::AllreduceOptions min;
  min.reduceOp = c10d::ReduceOp::MIN;
  group.allreduce(in_sync, min)->wait();
  return in_sync[0].item<int64_t>() == 1;
}

c10::IValue BroadcastValue(Group& group, const c10::IValue& value, int root,
                           std::chrono::milliseconds timeout) {
  c10d::BroadcastOptions options;
  options.rootRank = root;
  options.timeout = timeout;
  const bool is_root = group.getRank() == root;
  std::vector<char> bytes = is_root ? Pickle(value) : std::vector<char>{};
  std::vector<torch::Tensor> size{torch::tensor({static_cast<int64_t>(bytes.size())})};
  group.broadcast(size, options)->wait();
  const int64_t n = size[0].item<int64_t>();
  std::vector<torch::Tensor> data{is_root
                                      ? torch::from_blob(bytes.data(), {n}, torch::kUInt8).clone()
                                      : torch::empty({n}, torch::kUInt8)};
  group.broadcast(data, options)->wait();
  if (is_root) return value;
  const auto* p = data[0].data_ptr<uint8_t>();
  return Unpickle(std::vector<char>(p, p + n));
}

std::vector<char> Pickle(const c10::IValue& value) { return torch::pickle_save(value); }

c10::IValue Unpickle(const std::vector<char>& bytes) { return torch::pickle_load(bytes); }

}  // namespace trickbench::distributed
