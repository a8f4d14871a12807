#include "storage/retention.h"

#include <climits>

#include "storage/keys.h"

namespace trackdb::storage {
namespace {
// The encoding: a version byte, max_age_ms big-endian, a flags byte.
constexpr char kPolicyVersion = 1;
constexpr char kExpireLatestFlag = 1;
constexpr size_t kPolicyBytes = 10;
}  // namespace

int64_t HistoryCutoffMs(const RetentionPolicy& policy, int64_t now_ms) {
  if (policy.keeps_everything()) return INT64_MIN;
  // max_age_ms is bounded (model::kMaxRetentionAgeMs), so only a clock far
  // in the past could wrap: then nothing is old enough.
  if (now_ms < INT64_MIN + policy.max_age_ms) return INT64_MIN;
  return now_ms - policy.max_age_ms;
}

std::string EncodeRetentionPolicy(const RetentionPolicy& policy) {
  std::string out(1, kPolicyVersion);
  AppendBigEndian64(&out, static_cast<uint64_t>(policy.max_age_ms));
  out.push_back(policy.expire_latest ? kExpireLatestFlag : 0);
  return out;
}

std::optional<RetentionPolicy> DecodeRetentionPolicy(absl::string_view value) {
  if (value.size() != kPolicyBytes || value[0] != kPolicyVersion) {
    return std::nullopt;
  }
  RetentionPolicy policy;
  policy.max_age_ms = static_cast<int64_t>(ReadBigEndian64(value.substr(1)));
  policy.expire_latest = value[9] == kExpireLatestFlag;
  if (policy.max_age_ms < 0) return std::nullopt;
  return policy;
}

void RetentionPolicies::Set(absl::string_view collection,
                            const RetentionPolicy& policy) {
  absl::MutexLock lock(&mu_);
  if (policy.keeps_everything()) {
    policies_.erase(collection);
  } else {
    policies_[collection] = policy;
  }
}

RetentionPolicy RetentionPolicies::Get(absl::string_view collection) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = policies_.find(collection);
  return it == policies_.end() ? RetentionPolicy{} : it->second;
}

std::vector<std::pair<std::string, RetentionPolicy>> RetentionPolicies::All()
    const {
  absl::ReaderMutexLock lock(&mu_);
  return {policies_.begin(), policies_.end()};
}

absl::flat_hash_map<std::string, int64_t> RetentionPolicies::Cutoffs(
    int64_t now_ms) const {
  absl::ReaderMutexLock lock(&mu_);
  absl::flat_hash_map<std::string, int64_t> out;
  for (const auto& [collection, policy] : policies_) {
    out[collection] = HistoryCutoffMs(policy, now_ms);
  }
  return out;
}

bool RetentionPolicies::empty() const {
  absl::ReaderMutexLock lock(&mu_);
  return policies_.empty();
}

RetentionCounters RetentionPolicies::counters() const {
  return {points_expired_.load(), entities_expired_.load()};
}

}  // namespace trackdb::storage
