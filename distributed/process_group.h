// c10d over Gloo for trickbench's rank processes: joining a group, and the two
// collectives data-parallel training needs (DDP's own, written out).
//
//   auto env = *ParseRankEnv(std::getenv, &error);
//   auto group = trickbench::distributed::JoinGlooGroup(env, std::chrono::seconds(60));
//   trickbench::distributed::BroadcastParameters(*group, model->parameters(), /*root=*/0);
//   loss.backward();
//   trickbench::distributed::AverageGradients(*group, model->parameters());  // all ranks equal
//   optimizer.step();                                                 // same update everywhere
//
// Rank 0 hosts the c10d TCPStore at MASTER_ADDR:MASTER_PORT (the torch convention);
// the others connect to it. On loopback Gloo's pairs are bound to 127.0.0.1.
// Needs the c10d Gloo headers (Debian: libgloo-dev) and USE_C10D_GLOO, which this
// library's BUILD target defines for its users.
#pragma once

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/types.h>

#include <chrono>
#include <vector>

#include "distributed/rank_env.h"
#include "third_party/libtorch/compat.h"

namespace trickbench::distributed {

// What the collectives below run on: the Gloo group itself (a c10d::Backend in
// LibTorch 2.x, a c10d::ProcessGroup in 1.13).
using Group = torch_compat::CollectiveGroup;

// Rendezvous through the TCPStore and a ProcessGroupGloo whose collectives fail after
// `timeout` (a peer that died or hangs). Throws c10::Error when the store cannot be
// reached or hosted within `timeout`.
c10::intrusive_ptr<c10d::ProcessGroupGloo> JoinGlooGroup(const RankEnv& env,
                                                         std::chrono::milliseconds timeout);

// The two halves of JoinGlooGroup, for a store that outlives one group (a launcher's,
// distributed/launched_group.h): the TCPStore at MASTER_ADDR:MASTER_PORT, hosted here
// when `host` (else a client, retrying until `timeout`), and the Gloo group on any store.
c10::intrusive_ptr<c10d::Store> ConnectStore(const RankEnv& env, bool host,
                                             std::chrono::milliseconds timeout);
c10::intrusive_ptr<c10d::ProcessGroupGloo> MakeGlooGroup(
    const c10::intrusive_ptr<c10d::Store>& store, const RankEnv& env,
    std::chrono::milliseconds timeout);

// Sums every parameter's grad over the group and divides by the group size, through
// one flat buffer (one all-reduce, as DDP's buckets do). Parameters without a grad
// are an error: every rank must contribute the same tensors.
void AverageGradients(Group& group, const std::vector<torch::Tensor>& params);

// Overwrites every rank's tensors with root's (DDP does this once, at construction).
void BroadcastTensors(Group& group, const std::vector<torch::Tensor>& tensors, int root);

// DDP's invariant: true on every rank when every rank holds rank 0's `tensors` bit for
// bit (parameters after a step), false on every rank otherwise. A collective: every
// rank calls it with tensors of the same shapes.
bool InSyncWithRankZero(Group& group, const std::vector<torch::Tensor>& tensors);

// Any IValue (tuple, string, tensors...) from root to every rank, pickled. `timeout`
// bounds the wait (ranks idle between commands wait here).
c10::IValue BroadcastValue(Group& group, const c10::IValue& value, int root,
                           std::chrono::milliseconds timeout);

// IValue <-> bytes (torch's pickle format), for pipes and broadcasts.
std::vector<char> Pickle(const c10::IValue& value);
c10::IValue Unpickle(const std::vector<char>& bytes);

}  // namespace trickbench::distributed
