// Property test: thousands of random engine-like operations (admit with prefix lookup, prefill
// chunks, decode steps, preemption, window trimming, frees, cache resets) keep the manager's
// invariants, and every live request reads back, through its block table, exactly the "KV" it
// would have computed itself: a fake forward pass writes a value derived from (salt, token
// prefix) into each slot, so a block shared by mistake or overwritten while held shows up.
#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "strata/kv_cache_manager.h"

namespace strata {
namespace {

constexpr int kBs = 4;
constexpr int kBlocks = 24;

struct Case {
  const char* name;
  int window;                       // ModelSpec's window when groups is empty
  std::vector<KvGroupSpec> groups;  // [] = derived
};

struct Live {
  std::vector<int32_t> tokens;  // prompt, then decoded tokens
  int prompt_len = 0;
  int computed = 0;
  std::string salt;
};

// The fake KV of the token at position p: a function of the salt and tokens [0, p].
std::vector<float> ExpectedValues(const Live& r) {
  uint32_t h = r.salt.empty() ? 17u : 91u;
  std::vector<float> out;
  for (int32_t t : r.tokens) {
    h = h * 1000003u + static_cast<uint32_t>(t) + 1u;
    out.push_back(static_cast<float>(h & 0xFFFFF));
  }
  return out;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class KvCacheManagerRandomOpsTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    spec_.num_layers = 2;
    spec_.num_heads = 2;
    spec_.num_kv_heads = 2;
    spec_.head_dim = 8;
    spec_.sliding_window = GetParam().window;
    KvCacheManagerConfig config;
    config.block_size = kBs;
    config.num_blocks = kBlocks;
    config.groups = GetParam().groups;
    auto m = KvCacheManager::Create(spec_, config);
    ASSERT_TRUE(m.ok()) << m.status();
    m_ = std::move(*m);
    // layer -> group
    layer_group_.assign(spec_.num_layers, 0);
    layer_window_.assign(spec_.num_layers, spec_.sliding_window);
    for (size_t g = 0; g < config.groups.size(); ++g) {
      for (int l : config.groups[g].layers) {
        layer_group_[l] = static_cast<int>(g);
        layer_window_[l] = config.groups[g].sliding_window;
      }
    }
  }

  float* At(int layer, int32_t slot) {
    const int64_t block = slot / kBs, off = slot % kBs;
    return static_cast<float*>(m_->view().k[layer]) +
           ((block * spec_.num_kv_heads) * kBs + off) * spec_.head_dim;
  }

  // The fake forward pass over positions [from, to) of request `id`.
  void Compute(RequestId id, const Live& r, int from, int to) {
    const auto values = ExpectedValues(r);
    for (int p = from; p < to; ++p) {
      for (int l = 0; l < spec_.num_layers; ++l)
        *At(l, m_->Slot(id, p, layer_group_[l])) = values[p];
    }
  }

  void Verify(RequestId id, const Live& r) {
    const auto values = ExpectedValues(r);
    for (int l = 0; l < spec_.num_layers; ++l) {
      const std::vector<int32_t>& table = m_->BlockTable(id, layer_group_[l]);
      ASSERT_GE(static_cast<int>(table.size()) * kBs, r.computed);
      // The next token's window must still be there.
      const int w = layer_window_[l];
      for (int p = w > 0 ? std::max(0, r.computed - w + 1) : 0; p < r.computed; ++p) {
        ASSERT_GE(table[p / kBs], 0) << "request " << id << " lost position " << p;
      }
      for (int p = 0; p < r.computed; ++p) {
        if (table[p / kBs] < 0) continue;  // dropped from a window
        ASSERT_EQ(*At(l, table[p / kBs] * kBs + p % kBs), values[p])
            << "request " << id << " layer " << l << " position " << p;
      }
    }
  }

  ModelSpec spec_;
  std::unique_ptr<KvCacheManager> m_;
  std::vector<int> layer_group_;
  std::vector<int> layer_window_;
};

TEST_P(KvCacheManagerRandomOpsTest, InvariantsAndContentsHoldAfterEveryOperation) {
  std::mt19937 rng(1234);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  // Three prompt families so that prefixes recur.
  std::vector<std::vector<int32_t>> families(3);
  for (auto& f : families) {
    for (int i = 0; i < 48; ++i) f.push_back(uniform(0, 50));
  }
  std::map<RequestId, Live> live;
  RequestId next_id = 1;
  int hits = 0;
  for (int op = 0; op < 4000; ++op) {
    const int kind = uniform(0, 99);
    if (kind < 30 && live.size() < 6) {  // admit
      Live r;
      const auto& f = families[uniform(0, 2)];
      r.tokens.assign(f.begin(), f.begin() + uniform(1, 48));
      for (int i = uniform(0, 6); i > 0; --i) r.tokens.push_back(uniform(0, 50));
      r.prompt_len = static_cast<int>(r.tokens.size());
      r.salt = uniform(0, 3) == 0 ? "tenant" : "";
      const PrefixMatch match = m_->FindCachedPrefix(r.tokens, r.salt);
      ASSERT_LT(match.num_cached_tokens, r.prompt_len);
      hits += match.num_cached_tokens > 0;
      const int chunk = uniform(1, r.prompt_len - match.num_cached_tokens);
      const RequestId id = next_id++;
      if (m_->AllocateSlots(id, chunk, &match)) {
        r.computed = match.num_cached_tokens + chunk;
        Compute(id, r, match.num_cached_tokens, r.computed);
        m_->CacheFullBlocks(id, r.tokens, r.computed, r.salt);
        live[id] = r;
      } else {
        ASSERT_TRUE(m_->BlockTable(id).empty());
      }
    } else if (kind < 80 && !live.empty()) {  // one step of a live request
      auto it = std::next(live.begin(), uniform(0, static_cast<int>(live.size()) - 1));
      Live& r = it->second;
      int n;
      if (r.computed < r.prompt_len) {
        n = uniform(1, r.prompt_len - r.computed);
      } else {
        r.tokens.push_back(uniform(0, 50));  // the token sampled last step
        n = 1;
      }
      if (m_->AllocateSlots(it->first, n)) {
        Compute(it->first, r, r.computed, r.computed + n);
        r.computed += n;
        m_->CacheFullBlocks(it->first, r.tokens, r.computed, r.salt);
      } else {  // preempt
        m_->Free(it->first);
        live.erase(it);
      }
    } else if (kind < 88 && !live.empty()) {
      auto it = std::next(live.begin(), uniform(0, static_cast<int>(live.size()) - 1));
      m_->RemoveSkippedBlocks(it->first, it->second.computed);
    } else if (kind < 99 && !live.empty()) {
      auto it = std::next(live.begin(), uniform(0, static_cast<int>(live.size()) - 1));
      m_->Free(it->first);
      live.erase(it);
    } else {
      const bool reset = m_->ResetPrefixCache();
      ASSERT_EQ(reset, live.empty() || std::all_of(live.begin(), live.end(), [&](auto& e) {
                         return m_->NumTokens(e.first) == 0;
                       }));
    }
    const absl::Status s = m_->CheckInvariants();
    ASSERT_TRUE(s.ok()) << "after op " << op << ": " << s;
    for (const auto& [id, r] : live) ASSERT_NO_FATAL_FAILURE(Verify(id, r));
  }
  EXPECT_GT(hits, 50);  // the test exercised prefix reuse
  EXPECT_LE(m_->stats().hits, m_->stats().queries);
  for (const auto& [id, r] : live) m_->Free(id);
  EXPECT_EQ(m_->num_free_blocks(), kBlocks);
  EXPECT_TRUE(m_->CheckInvariants().ok());
}

INSTANTIATE_TEST_SUITE_P(Groups, KvCacheManagerRandomOpsTest,
                         ::testing::Values(Case{"full", 0, {}}, Case{"window", 9, {}},
                                           Case{"hybrid", 0, {{0, {0}}, {9, {1}}}}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace strata
