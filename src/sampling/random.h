// Counter-based random numbers for sampling: Philox4x32-10 (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC'11; the generator behind cuRAND's and PyTorch's CUDA streams).
//
// A draw is a pure function of (seed, step): no state is carried between calls, so a sequence
// draws the same number at a given step whatever else shares the batch, whether it was preempted
// and recomputed, and whichever thread or device runs it. A CUDA sampling kernel can reproduce
// the stream bit for bit. Header-only; thread-safe (pure functions).
#pragma once

#include <array>
#include <cstdint>

namespace strata::sampling {

// One Philox4x32 block with 10 rounds. Matches Random123's `philox4x32_10` known answers.
inline std::array<uint32_t, 4> Philox4x32_10(std::array<uint32_t, 4> counter,
                                             std::array<uint32_t, 2> key) {
  constexpr uint32_t kMul0 = 0xD2511F53u;
  constexpr uint32_t kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u;  // golden ratio
  constexpr uint32_t kWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kWeyl0;
      key[1] += kWeyl1;
    }
    const uint64_t p0 = static_cast<uint64_t>(kMul0) * counter[0];
    const uint64_t p1 = static_cast<uint64_t>(kMul1) * counter[2];
    counter = {static_cast<uint32_t>(p1 >> 32) ^ counter[1] ^ key[0], static_cast<uint32_t>(p1),
               static_cast<uint32_t>(p0 >> 32) ^ counter[3] ^ key[1], static_cast<uint32_t>(p0)};
  }
  return counter;
}

// Uniform double in [0, 1) with 53 random bits, a pure function of (seed, step). The key is the
// seed; the counter is (step, stream): `stream` separates independent uses of one step.
inline double Uniform(uint64_t seed, uint64_t step, uint32_t stream = 0) {
  const std::array<uint32_t, 4> block =
      Philox4x32_10({static_cast<uint32_t>(step), static_cast<uint32_t>(step >> 32), stream, 0},
                    {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
  const uint64_t bits = ((static_cast<uint64_t>(block[0]) << 32) | block[1]) >> 11;
  return static_cast<double>(bits) * 0x1.0p-53;
}

}  // namespace strata::sampling
