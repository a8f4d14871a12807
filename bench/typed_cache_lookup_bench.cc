// What one typed cache lookup costs (storage/typed/typed_cache.h, over
// storage/memory/block_cache_entries.h), against a plain sharded hash map, on the
// shape of redis-benchmark's sadd and hset: 100k members of one key, looked
// up in random order, beside 4 KiB blocks in the same cache. The question
// it answers: how much of SADD's CPU a cache of trackdb's own, outside the
// block cache's LRU, could save (bench/README.md).
//
//   bazel run --config=bench //bench:typed_cache_lookup_bench
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "rocksdb/cache.h"

namespace {

constexpr int kMembers = 100000;
constexpr int kBlocks = 20000;
constexpr size_t kLookups = 1 << 20;

using Value = std::optional<std::string>;

// Keys shaped as the typed cache's: cache id and marker, the name's
// prefix, a version, the member.
std::vector<std::string> MemberKeys() {
  std::vector<std::string> keys;
  keys.reserve(kMembers);
  for (int i = 0; i < kMembers; ++i) {
    keys.push_back(absl::StrCat("12345678trackdb:t", std::string(1, '\x06'),
                                "myhash", std::string(8, '\0'),
                                "element:", 1000000000000 + i * 7919LL));
  }
  return keys;
}

// A random order of lookups, the same for both.
std::vector<uint32_t> Order() {
  std::mt19937 rng(17);
  std::vector<uint32_t> order(kLookups);
  for (uint32_t& o : order) o = rng() % kMembers;
  return order;
}

void DeleteValue(const rocksdb::Slice&, void* v) {
  delete static_cast<Value*>(v);
}
void DeleteBlock(const rocksdb::Slice&, void* v) {
  delete static_cast<std::string*>(v);
}

void BM_BlockCacheLookup(benchmark::State& state) {
  const std::vector<std::string> keys = MemberKeys();
  const std::vector<uint32_t> order = Order();
  std::shared_ptr<rocksdb::Cache> cache = rocksdb::NewLRUCache(256 << 20);
  for (int i = 0; i < kBlocks; ++i) {
    std::string key(16, 'b');
    key.replace(0, 4, reinterpret_cast<const char*>(&i), 4);
    (void)cache->Insert(key, new std::string(4096, 'x'), 4200, &DeleteBlock);
  }
  for (const std::string& k : keys) {
    (void)cache->Insert(k, new Value(""), 200, &DeleteValue);
  }
  size_t i = 0;
  int64_t found = 0;
  for (auto _ : state) {
    rocksdb::Cache::Handle* h = cache->Lookup(keys[order[i++ % kLookups]]);
    if (h != nullptr) {
      Value v = *static_cast<Value*>(cache->Value(h));
      found += v.has_value();
      cache->Release(h);
    }
  }
  benchmark::DoNotOptimize(found);
}
BENCHMARK(BM_BlockCacheLookup);

void BM_ShardedHashMapLookup(benchmark::State& state) {
  const std::vector<std::string> keys = MemberKeys();
  const std::vector<uint32_t> order = Order();
  constexpr size_t kShards = 64;
  struct Shard {
    std::mutex mu;
    absl::flat_hash_map<std::string, Value> map;
  };
  auto shards = std::make_unique<std::array<Shard, kShards>>();
  for (const std::string& k : keys) {
    (*shards)[absl::HashOf(k) % kShards].map.emplace(k, Value(""));
  }
  size_t i = 0;
  int64_t found = 0;
  for (auto _ : state) {
    const std::string& k = keys[order[i++ % kLookups]];
    const size_t hash = absl::HashOf(k);
    Shard& shard = (*shards)[hash % kShards];
    std::lock_guard<std::mutex> lock(shard.mu);
    auto it = shard.map.find(k);
    if (it != shard.map.end()) {
      Value v = it->second;
      found += v.has_value();
    }
  }
  benchmark::DoNotOptimize(found);
}
BENCHMARK(BM_ShardedHashMapLookup);

}  // namespace

BENCHMARK_MAIN();
