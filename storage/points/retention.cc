#include "storage/points/retention.h"

#include <climits>

#include "storage/format/keys.h"

namespace trackdb::storage {
namespace {
// The encoding: a version byte, max_age_ms big-endian, a flags byte,
// max_points big-endian.
constexpr char kPolicyVersion = 1;
constexpr char kExpireLatestFlag = 1;
constexpr size_t kPolicyBytes = 18;
}  // namespace

int64_t HistoryCutoffMs(const RetentionPolicy& policy, int64_t now_ms) {
  if (policy.max_age_ms == 0) return INT64_MIN;
  // max_age_ms is bounded (model::kMaxRetentionAgeMs), so only a clock far
  // in the past could wrap: then nothing is old enough.
  if (now_ms < INT64_MIN + policy.max_age_ms) return INT64_MIN;
  return now_ms - policy.max_age_ms;
}

std::string EncodeRetentionPolicy(const RetentionPolicy& policy) {
  std::string out(1, kPolicyVersion);
  AppendBigEndian64(&out, static_cast<uint64_t>(policy.max_age_ms));
  out.push_back(policy.expire_latest ? kExpireLatestFlag : 0);
  AppendBigEndian64(&out, static_cast<uint64_t>(policy.max_points));
  return out;
}

std::optional<RetentionPolicy> DecodeRetentionPolicy(absl::string_view value) {
  if (value.size() != kPolicyBytes || value[0] != kPolicyVersion) {
    return std::nullopt;
  }
  RetentionPolicy policy;
  policy.max_age_ms = static_cast<int64_t>(ReadBigEndian64(value.substr(1)));
  policy.expire_latest = value[9] == kExpireLatestFlag;
  policy.max_points = static_cast<int64_t>(ReadBigEndian64(value.substr(10)));
  if (policy.max_age_ms < 0 || policy.max_points < 0) return std::nullopt;
  return policy;
}

void RetentionPolicies::Set(absl::string_view collection,
                            const RetentionPolicy& policy) {
  absl::MutexLock lock(&mu_);
  // A new limit may be lower: every entity is trimmed again.
  trimmed_at_.erase(collection);
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
    if (policy.max_age_ms > 0) {
      out[collection] = HistoryCutoffMs(policy, now_ms);
    }
  }
  return out;
}

std::optional<RetentionPolicies::TrimState> RetentionPolicies::TrimmedAt(
    absl::string_view collection, absl::string_view entity) const {
  absl::ReaderMutexLock lock(&mu_);
  auto c = trimmed_at_.find(collection);
  if (c == trimmed_at_.end()) return std::nullopt;
  auto e = c->second.find(entity);
  if (e == c->second.end()) return std::nullopt;
  return e->second;
}

void RetentionPolicies::SetTrimmedAt(absl::string_view collection,
                                     absl::string_view entity,
                                     const TrimState& state) {
  absl::MutexLock lock(&mu_);
  trimmed_at_[collection][entity] = state;
}

bool RetentionPolicies::empty() const {
  absl::ReaderMutexLock lock(&mu_);
  return policies_.empty();
}

RetentionCounters RetentionPolicies::counters() const {
  return {points_expired_.load(), entities_expired_.load(),
          points_trimmed_.load()};
}

}  // namespace trackdb::storage
