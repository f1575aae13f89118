#include "forward_harness.h"

#include <filesystem>
#include <cstdlib>
#include <set>
#include <unistd.h>

#include "gtest/gtest.h"
#include "absl/strings/str_cat.h"

namespace strata::testing {
namespace {

// absl 2022 has no CHECK_OK; a broken harness step must stop the test binary.
void DieUnlessOk(const absl::Status& status, const char* what) {
  if (!status.ok()) {
    ADD_FAILURE() << what << ": " << status;
    std::abort();
  }
}
#define CHECK_OK(expr) DieUnlessOk((expr), #expr)

}  // namespace

SequenceLogits RunSchedule(Model& model, const std::vector<std::vector<int32_t>>& prompts,
                           const std::vector<Pass>& passes) {
  const int vocab = model.spec().vocab_size;
  constexpr int kBlockSize = 16;
  int blocks = 0;
  for (const auto& p : prompts) blocks += static_cast<int>(p.size()) / kBlockSize + 2;
  auto pool = KvPool::Create(model.spec(), kBlockSize, blocks);
  CHECK_OK(pool.status());
  std::vector<BlockTable> tables(prompts.size());
  std::vector<int> done(prompts.size(), 0);
  SequenceLogits out(prompts.size());
  std::vector<float> logits;
  for (const Pass& pass : passes) {
    ForwardBatch batch;
    for (auto [seq, count] : pass) {
      CHECK_OK(tables[seq].EnsureCapacity(**pool, done[seq] + count));
      BatchSequence bs;
      bs.query_start = batch.num_tokens();
      bs.query_len = count;
      bs.context_len = done[seq] + count;
      bs.block_table = tables[seq].blocks().data();
      for (int i = 0; i < count; ++i) {
        const int pos = done[seq] + i;
        batch.logit_rows.push_back(batch.num_tokens());
        batch.tokens.push_back(prompts[seq][pos]);
        batch.positions.push_back(pos);
        batch.slots.push_back(tables[seq].Slot(pos, kBlockSize));
      }
      batch.sequences.push_back(bs);
      done[seq] += count;
    }
    logits.assign(batch.logit_rows.size() * static_cast<size_t>(vocab), 0.0f);
    CHECK_OK(model.Forward(batch, (*pool)->view(), logits.data()));
    int row = 0;
    for (auto [seq, count] : pass) {
      for (int i = 0; i < count; ++i, ++row) {
        const float* r = logits.data() + static_cast<size_t>(row) * vocab;
        out[seq].emplace_back(r, r + vocab);
      }
    }
  }
  for (size_t s = 0; s < prompts.size(); ++s) {
    if (done[s] != static_cast<int>(prompts[s].size())) {
      ADD_FAILURE() << "schedule leaves part of prompt " << s;
      std::abort();
    }
  }
  return out;
}

std::vector<int32_t> RandomPrompt(int length, int vocab, uint64_t seed) {
  std::vector<int32_t> ids;
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int i = 0; i < length; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    ids.push_back(static_cast<int32_t>(x % static_cast<uint64_t>(vocab)));
  }
  return ids;
}

MakeModelOptions TinyModel(Architecture arch, DType hf_dtype, DType gguf_dtype) {
  static std::set<std::string> made;
  static const bool cleanup_registered = [] {
    std::atexit([] {
      for (const std::string& dir : made) std::filesystem::remove_all(dir);
    });
    return true;
  }();
  (void)cleanup_registered;
  MakeModelOptions options;
  options.arch = arch;
  options.preset = ModelPreset::kTiny;
  options.seed = 11;
  options.hf_dtype = hf_dtype;
  options.gguf_dtype = gguf_dtype;
  options.show_progress = false;
  options.out_dir = (std::filesystem::temp_directory_path() /
                     absl::StrCat("strata-forward-test-", getpid(), "-", ArchitectureName(arch),
                                  "-", std::string(DTypeName(hf_dtype)), "-",
                                  std::string(DTypeName(gguf_dtype))))
                        .string();
  if (made.insert(options.out_dir).second) CHECK_OK(MakeRandomModel(options));
  return options;
}

}  // namespace strata::testing
