// TrackStore's typed values (storage/format/typed_values.h): transactions, O(1)
// removal with compaction collecting the members, expiry, and the
// whole-name operations carrying typed values.
#include <atomic>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb/statistics.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/store_test_util.h"
#include "storage/strings/string_cache.h"
#include "storage/track_store.h"
#include "storage/typed/typed_cache.h"
#include "storage/format/typed_values.h"
#include "storage/format/wrong_type.h"

namespace trackdb::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::Eq;
using testing::FlushAndCompact;
using testing::NewDataDir;
using testing::OpenStore;
using ::testing::Optional;
using ::testing::Pair;
using testing::ReadRaw;

constexpr int64_t kNow = 1'700'000'000'000;

// Creates `name`, a value of `type` with `fields` as its subkeys (subkey =
// value = the string).
void MakeValue(TrackStore& store, const std::string& name, ValueType type,
               const std::vector<std::string>& fields, int64_t expire = 0) {
  const std::string names[] = {name};
  ASSERT_TRUE(store
                  .UpdateTyped(names, kNow,
                               [&](TypedTxn& txn) {
                                 TypedMeta m = txn.Create(type);
                                 m.expire_at_ms = expire;
                                 for (const std::string& f : fields) {
                                   txn.Put(name, m, f, f);
                                 }
                                 m.size = fields.size();
                                 txn.SetMeta(name, m);
                                 return absl::OkStatus();
                               })
                  .ok());
}

void MakeHash(TrackStore& store, const std::string& name,
              const std::vector<std::string>& fields, int64_t expire = 0) {
  MakeValue(store, name, ValueType::kHash, fields, expire);
}

std::vector<std::string> Fields(TrackStore& store, const std::string& name,
                                absl::string_view from = "",
                                bool reverse = false) {
  std::vector<std::string> out;
  const std::string names[] = {name};
  EXPECT_TRUE(store
                  .UpdateTyped(names, kNow,
                               [&](TypedTxn& txn) {
                                 auto meta = txn.Meta(name);
                                 if (!meta.ok()) return meta.status();
                                 if (!*meta) return absl::OkStatus();
                                 return txn.Scan(name, **meta, "", from,
                                                 reverse,
                                                 [&](absl::string_view k,
                                                     absl::string_view) {
                                                   out.emplace_back(k);
                                                   return true;
                                                 });
                               })
                  .ok());
  return out;
}

TEST(TypedOps, CommitsWhatATransactionStagedAndScansInOrder) {
  auto store = OpenStore(NewDataDir());
  MakeHash(*store, "h", {"b", "a", "c"});
  EXPECT_THAT(Fields(*store, "h"), ElementsAre("a", "b", "c"));
  EXPECT_THAT(Fields(*store, "h", "b"), ElementsAre("b", "c"));
  EXPECT_THAT(Fields(*store, "h", "bb", true), ElementsAre("b", "a"));
  EXPECT_THAT(Fields(*store, "h", "", true), ElementsAre("c", "b", "a"));
  auto meta = store->GetTypedMeta("h", kNow);
  ASSERT_TRUE(meta.ok() && *meta);
  EXPECT_EQ((*meta)->size, 3u);
  EXPECT_EQ((*meta)->type, ValueType::kHash);
}

// The guess TypedValuesKnownAbsent gives comes from the typed cache: yes
// only once a transaction read a name's absence, no once a value exists
// or after the value is removed until its absence is read again.
TEST(TypedOps, KnownAbsentOnlyOnceAbsenceWasReadAndUntilAValueIsMade) {
  auto store = OpenStore(NewDataDir());
  const std::string h[] = {"h"};
  const std::string both[] = {"h", "other"};
  auto read_meta = [&](absl::Span<const std::string> names) {
    ASSERT_TRUE(store
                    ->ReadTyped(names, kNow,
                                [&](TypedTxn& txn) {
                                  for (const std::string& n : names) {
                                    auto meta = txn.Meta(n);
                                    if (!meta.ok()) return meta.status();
                                  }
                                  return absl::OkStatus();
                                })
                    .ok());
  };
  EXPECT_FALSE(store->TypedValuesKnownAbsent(h));  // never read
  read_meta(h);
  EXPECT_TRUE(store->TypedValuesKnownAbsent(h));
  EXPECT_FALSE(store->TypedValuesKnownAbsent(both));  // "other" unread
  read_meta(both);
  EXPECT_TRUE(store->TypedValuesKnownAbsent(both));
  EXPECT_FALSE(store->TypedValuesKnownAbsent({}));
  MakeHash(*store, "h", {"f"});
  EXPECT_FALSE(store->TypedValuesKnownAbsent(h));
  EXPECT_FALSE(store->TypedValuesKnownAbsent(both));
  ASSERT_TRUE(store
                  ->UpdateTyped(h, kNow,
                                [&](TypedTxn& txn) {
                                  txn.DeleteMeta("h");
                                  return absl::OkStatus();
                                })
                  .ok());
  EXPECT_FALSE(store->TypedValuesKnownAbsent(h));
  read_meta(h);
  EXPECT_TRUE(store->TypedValuesKnownAbsent(h));
}

TEST(TypedOps, AFailedTransactionWritesNothingAndGetSeesStagedValues) {
  auto store = OpenStore(NewDataDir());
  const std::string names[] = {"h"};
  absl::Status s = store->UpdateTyped(names, kNow, [](TypedTxn& txn) {
    TypedMeta m = txn.Create(ValueType::kHash);
    txn.Put("h", m, "f", "v");
    auto staged = txn.Get("h", m, "f");
    EXPECT_TRUE(staged.ok() && *staged == std::optional<std::string>("v"));
    m.size = 1;
    txn.SetMeta("h", m);
    return absl::InternalError("changed my mind");
  });
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(ReadRaw(*store, ColumnFamily::kTypes).empty());
}

TEST(TypedOps, DeleteIsOneKeyAndCompactionCollectsTheMembers) {
  auto store = OpenStore(NewDataDir());
  std::vector<std::string> fields;
  for (int i = 0; i < 500; ++i) fields.push_back("f" + std::to_string(i));
  MakeHash(*store, "big", fields);
  MakeHash(*store, "other", {"x"});
  ASSERT_EQ(ReadRaw(*store, ColumnFamily::kTypes).size(), 503u);

  const std::string names[] = {"big"};
  auto removed = store->DeleteNames(names, kNow);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ((*removed)[0].typed, ValueType::kHash);
  EXPECT_TRUE((*removed)[0].exists());
  // The members remain until compaction, but nothing reads them.
  EXPECT_EQ(ReadRaw(*store, ColumnFamily::kTypes).size(), 502u);
  EXPECT_TRUE(Fields(*store, "big").empty());
  // A new value of the name does not see the old members.
  MakeHash(*store, "big", {"new"});
  EXPECT_THAT(Fields(*store, "big"), ElementsAre("new"));

  ASSERT_TRUE(FlushAndCompact(*store, ColumnFamily::kTypes).ok());
  EXPECT_EQ(ReadRaw(*store, ColumnFamily::kTypes).size(), 4u);
  EXPECT_THAT(Fields(*store, "other"), ElementsAre("x"));
}

TEST(TypedOps, ExpiredValuesReadAsAbsentAndCompactionDropsThem) {
  auto store = OpenStore(NewDataDir());
  MakeHash(*store, "gone", {"a", "b"}, /*expire=*/kNow - 1);
  MakeHash(*store, "later", {"a"}, /*expire=*/INT64_MAX / 2);
  auto gone = store->GetTypedMeta("gone", kNow);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
  std::vector<std::string> seen;
  ASSERT_TRUE(store
                  ->ScanTyped(std::nullopt, kNow,
                              [&](absl::string_view name, const TypedMeta&) {
                                seen.emplace_back(name);
                                return true;
                              })
                  .ok());
  EXPECT_THAT(seen, ElementsAre("later"));
  ASSERT_TRUE(FlushAndCompact(*store, ColumnFamily::kTypes).ok());
  EXPECT_THAT(ReadRaw(*store, ColumnFamily::kTypes, TypedMetaKey("gone")),
              ::testing::IsEmpty());
  EXPECT_EQ(ReadRaw(*store, ColumnFamily::kTypes).size(), 2u);
}

TEST(TypedOps, ScanTypedResumesAfterAName) {
  auto store = OpenStore(NewDataDir());
  for (const char* n : {"a", "b", "c"}) MakeHash(*store, n, {"f1", "f2"});
  std::vector<std::string> seen;
  ASSERT_TRUE(store
                  ->ScanTyped(std::string("a"), kNow,
                              [&](absl::string_view name, const TypedMeta&) {
                                seen.emplace_back(name);
                                return true;
                              })
                  .ok());
  EXPECT_THAT(seen, ElementsAre("b", "c"));
}

TEST(TypedOps, CopyAndRenameCarryTheValueAndAStringReplacesIt) {
  auto store = OpenStore(NewDataDir());
  MakeHash(*store, "src", {"a", "b"}, /*expire=*/kNow + 60'000);
  auto copied = store->CopyName("src", "dst", kNow, {});
  ASSERT_TRUE(copied.ok());
  EXPECT_EQ(*copied, TrackStore::CopyNameResult::kCopied);
  EXPECT_THAT(Fields(*store, "dst"), ElementsAre("a", "b"));
  auto dst = store->GetTypedMeta("dst", kNow);
  auto src = store->GetTypedMeta("src", kNow);
  ASSERT_TRUE(dst.ok() && *dst && src.ok() && *src);
  EXPECT_EQ((*dst)->expire_at_ms, kNow + 60'000);
  EXPECT_NE((*dst)->version, (*src)->version);

  TrackStore::CopyNameOptions rename;
  rename.remove_source = true;
  ASSERT_TRUE(store->CopyName("src", "moved", kNow, rename).ok());
  EXPECT_TRUE(Fields(*store, "src").empty());
  EXPECT_THAT(Fields(*store, "moved"), ElementsAre("a", "b"));
  EXPECT_EQ(*store->CopyName("moved", "dst", kNow, {}),
            TrackStore::CopyNameResult::kDestinationExists);

  ASSERT_TRUE(store->PutString("moved", StringValue{"s", 0}, kNow).ok());
  auto moved = store->GetTypedMeta("moved", kNow);
  ASSERT_TRUE(moved.ok());
  EXPECT_FALSE(moved->has_value());
}

TEST(TypedOps, VersionsAreNeverReusedAcrossRestarts) {
  const std::string dir = NewDataDir();
  uint64_t first = 0;
  {
    auto store = OpenStore(dir);
    MakeHash(*store, "h", {"a"});
    first = (*store->GetTypedMeta("h", kNow))->version;
    ASSERT_TRUE(store->Close().ok());
  }
  auto store = OpenStore(dir);
  MakeHash(*store, "g", {"a"});
  EXPECT_GT((*store->GetTypedMeta("g", kNow))->version, first);
  EXPECT_THAT(Fields(*store, "h"), ElementsAre("a"));
}

// Scans see what the transaction staged over what is stored, in order,
// both ways, from any start.
TEST(TypedOps, ScansMergeStagedChangesWithTheStoredMembers) {
  auto store = OpenStore(NewDataDir());
  MakeHash(*store, "h", {"b", "d", "f"});
  const std::string names[] = {"h"};
  auto scan = [](TypedTxn& txn, const TypedMeta& m, absl::string_view from,
                 bool reverse) {
    std::vector<std::string> out;
    EXPECT_TRUE(txn.Scan("h", m, "", from, reverse,
                         [&](absl::string_view k, absl::string_view v) {
                           out.push_back(absl::StrCat(k, "=", v));
                           return true;
                         })
                    .ok());
    return out;
  };
  ASSERT_TRUE(
      store
          ->UpdateTyped(
              names, kNow,
              [&](TypedTxn& txn) {
                TypedMeta m = **txn.Meta("h");
                txn.Put("h", m, "a", "new");
                txn.Put("h", m, "d", "changed");
                txn.Delete("h", m, "f");
                txn.Put("h", m, "g", "new");
                EXPECT_THAT(scan(txn, m, "", false),
                            ElementsAre("a=new", "b=b", "d=changed", "g=new"));
                EXPECT_THAT(scan(txn, m, "", true),
                            ElementsAre("g=new", "d=changed", "b=b", "a=new"));
                EXPECT_THAT(scan(txn, m, "c", false),
                            ElementsAre("d=changed", "g=new"));
                EXPECT_THAT(scan(txn, m, "f", true),
                            ElementsAre("d=changed", "b=b", "a=new"));
                EXPECT_THAT(scan(txn, m, "z", false), ::testing::IsEmpty());
                return absl::OkStatus();
              })
          .ok());
}

// A transaction's scans of one range share one RocksDB iterator (a
// group's pops): each scan still starts where it asks and sees what the
// earlier calls staged, whichever range was scanned in between.
TEST(TypedOps, RepeatedScansOfARangeSeeTheEarlierCallsPops) {
  auto store = OpenStore(NewDataDir());
  MakeHash(*store, "h", {"a", "b", "c", "d", "e"});
  MakeHash(*store, "k", {"x", "y"});
  const std::string names[] = {"h", "k"};
  auto first = [](TypedTxn& txn, const std::string& name, const TypedMeta& m,
                  absl::string_view from) {
    std::string out;
    EXPECT_TRUE(txn.Scan(name, m, "", from, false,
                         [&](absl::string_view k, absl::string_view) {
                           out = std::string(k);
                           return false;
                         })
                    .ok());
    return out;
  };
  std::vector<std::string> popped;
  ASSERT_TRUE(store
                  ->UpdateTyped(names, kNow,
                                [&](TypedTxn& txn) {
                                  TypedMeta h = **txn.Meta("h");
                                  TypedMeta k = **txn.Meta("k");
                                  for (int i = 0; i < 3; ++i) {
                                    std::string head = first(txn, "h", h, "");
                                    popped.push_back(head);
                                    txn.Delete("h", h, head);
                                    popped.push_back(first(txn, "k", k, ""));
                                  }
                                  txn.Put("h", h, "a2", "new");
                                  popped.push_back(first(txn, "h", h, "a"));
                                  popped.push_back(first(txn, "h", h, "e"));
                                  return absl::OkStatus();
                                })
                  .ok());
  EXPECT_THAT(popped, ElementsAre("a", "x", "b", "x", "c", "x", "a2", "e"));
  EXPECT_THAT(Fields(*store, "h"), ElementsAre("a2", "d", "e"));
}

// A STORE over a key of another type removes it in the same batch.
// A transaction asks the string and the collection of a name once: a
// pipelined run of pops of an absent key asks for every call. What it
// removes it no longer holds.
TEST(TypedOps, AskedTwiceAnOtherTypeIsLookedUpOnce) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(store->PutString("s", StringValue{"v", 0}, kNow).ok());
  const std::string names[] = {"s", "absent"};
  StringCache& strings = store->string_cache();
  ASSERT_TRUE(
      store
          ->UpdateTyped(
              names, kNow,
              [&](TypedTxn& txn) {
                const uint64_t before = strings.hits() + strings.misses();
                for (int i = 0; i < 3; ++i) {
                  EXPECT_TRUE(txn.HoldsStringOrCollection("s").value_or(false));
                  EXPECT_FALSE(
                      txn.HoldsStringOrCollection("absent").value_or(true));
                }
                EXPECT_EQ(strings.hits() + strings.misses(), before + 2);
                if (absl::Status s = txn.RemoveOtherTypes("s"); !s.ok()) {
                  return s;
                }
                EXPECT_FALSE(txn.HoldsStringOrCollection("s").value_or(true));
                return absl::OkStatus();
              },
              names)
          .ok());
}

TEST(TypedOps, RemoveOtherTypesReplacesAStringOrACollection) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(store->PutString("s", StringValue{"v", 0}, kNow).ok());
  ASSERT_TRUE(store->AddPoints("g", {testing::Point("a", 1, 10, 20)}).ok());
  const std::string names[] = {"s", "g"};
  // Only names declared replaceable may be.
  EXPECT_EQ(
      store
          ->UpdateTyped(names, kNow,
                        [](TypedTxn& txn) { return txn.RemoveOtherTypes("s"); })
          .code(),
      absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(store
                  ->UpdateTyped(
                      names, kNow,
                      [](TypedTxn& txn) {
                        for (const char* n : {"s", "g"}) {
                          if (absl::Status s = txn.RemoveOtherTypes(n);
                              !s.ok()) {
                            return s;
                          }
                          TypedMeta m = txn.Create(ValueType::kSet);
                          txn.Put(n, m, "member", "");
                          m.size = 1;
                          txn.SetMeta(n, m);
                        }
                        return absl::OkStatus();
                      },
                      names)
                  .ok());
  EXPECT_FALSE(store->GetString("s", kNow)->has_value());
  EXPECT_EQ(*store->CollectionSize("g"), 0);
  EXPECT_FALSE(store->GetLatest("g", "a")->has_value());
  EXPECT_EQ((*store->GetTypedMeta("s", kNow))->type, ValueType::kSet);
  EXPECT_EQ((*store->GetTypedMeta("g", kNow))->type, ValueType::kSet);
  EXPECT_TRUE(testing::StringCacheViolations(*store).empty());
}

// Reads `fields` of hash `name` in one transaction, as "field=value" or
// "field absent", and its meta's size ("no hash" when there is none): the
// transaction fills the typed cache with what it reads.
std::vector<std::string> ReadHash(TrackStore& store, const std::string& name,
                                  const std::vector<std::string>& fields) {
  std::vector<std::string> out;
  const std::string names[] = {name};
  EXPECT_TRUE(
      store
          .UpdateTyped(names, kNow,
                       [&](TypedTxn& txn) {
                         auto meta = txn.Meta(name);
                         if (!meta.ok()) return meta.status();
                         if (!*meta) {
                           out.push_back("no hash");
                           return absl::OkStatus();
                         }
                         out.push_back(absl::StrCat("size ", (*meta)->size));
                         auto got = txn.GetMany(name, **meta, fields);
                         if (!got.ok()) return got.status();
                         for (size_t i = 0; i < fields.size(); ++i) {
                           out.push_back(
                               (*got)[i]
                                   ? absl::StrCat(fields[i], "=", *(*got)[i])
                                   : absl::StrCat(fields[i], " absent"));
                         }
                         return absl::OkStatus();
                       })
          .ok());
  return out;
}

// I8: what a transaction read into the typed cache follows every later
// write of those keys, through each writer of the types column family, so
// the next read answers what is stored.
TEST(TypedOps, TheTypedCacheFollowsEveryWrite) {
  auto store = OpenStore(NewDataDir());
  const std::vector<std::string> fields = {"a", "b", "c"};
  MakeHash(*store, "h", {"a"});
  EXPECT_THAT(ReadHash(*store, "h", fields),
              ElementsAre("size 1", "a=a", "b absent", "c absent"));
  // Read twice: the second answers from the cache.
  const uint64_t hits = store->engine().typed_cache->hits();
  EXPECT_THAT(ReadHash(*store, "h", fields),
              ElementsAre("size 1", "a=a", "b absent", "c absent"));
  EXPECT_GE(store->engine().typed_cache->hits(), hits + 4);

  const std::string names[] = {"h"};
  ASSERT_TRUE(store
                  ->UpdateTyped(names, kNow,
                                [](TypedTxn& txn) {
                                  TypedMeta m = **txn.Meta("h");
                                  txn.Put("h", m, "b", "new");
                                  txn.Delete("h", m, "a");
                                  txn.SetMeta("h", m);
                                  return absl::OkStatus();
                                })
                  .ok());
  EXPECT_THAT(ReadHash(*store, "h", fields),
              ElementsAre("size 1", "a absent", "b=new", "c absent"));
  EXPECT_THAT(testing::TypedCacheViolations(*store), ::testing::IsEmpty());

  // The whole-name operations: a rename over it, a string over it, DEL.
  MakeHash(*store, "src", {"c"});
  TrackStore::CopyNameOptions rename;
  rename.remove_source = true;
  rename.replace = true;
  ASSERT_TRUE(store->CopyName("src", "h", kNow, rename).ok());
  EXPECT_THAT(ReadHash(*store, "h", fields),
              ElementsAre("size 1", "a absent", "b absent", "c=c"));
  EXPECT_THAT(ReadHash(*store, "src", fields), ElementsAre("no hash"));
  ASSERT_TRUE(store->PutString("h", StringValue{"s", 0}, kNow).ok());
  EXPECT_THAT(ReadHash(*store, "h", fields), ElementsAre("no hash"));
  MakeHash(*store, "h", {"b"});
  EXPECT_THAT(ReadHash(*store, "h", fields),
              ElementsAre("size 1", "a absent", "b=b", "c absent"));
  ASSERT_TRUE(store->DeleteNames({"h"}, kNow).ok());
  EXPECT_THAT(ReadHash(*store, "h", fields), ElementsAre("no hash"));
  EXPECT_FALSE(store->GetTypedMeta("h", kNow)->has_value());
  EXPECT_THAT(testing::TypedCacheViolations(*store), ::testing::IsEmpty());
}

// GetMany answers staged values over cached and stored ones, in order.
TEST(TypedOps, GetManySeesStagedCachedAndStoredMembers) {
  auto store = OpenStore(NewDataDir());
  MakeHash(*store, "h", {"a", "b", "c"});
  EXPECT_THAT(ReadHash(*store, "h", {"a"}), ElementsAre("size 3", "a=a"));
  const std::string names[] = {"h"};
  std::vector<std::optional<std::string>> got;
  ASSERT_TRUE(
      store
          ->UpdateTyped(
              names, kNow,
              [&](TypedTxn& txn) {
                TypedMeta m = **txn.Meta("h");
                txn.Put("h", m, "c", "staged");
                txn.Delete("h", m, "b");
                auto many = txn.GetMany("h", m, {"c", "a", "b", "d", "a"});
                if (!many.ok()) return many.status();
                got = *many;
                return absl::AbortedError("read only");
              })
          .code() == absl::StatusCode::kAborted);
  EXPECT_THAT(got, ElementsAre(std::optional<std::string>("staged"),
                               std::optional<std::string>("a"), std::nullopt,
                               std::nullopt, std::optional<std::string>("a")));
  EXPECT_THAT(ReadHash(*store, "h", {"b", "c"}),
              ElementsAre("size 3", "b=b", "c=c"));
  EXPECT_THAT(testing::TypedCacheViolations(*store), ::testing::IsEmpty());
}

// A pop that reads its element from the store reads the next ones with it:
// the transaction's later reads of them go to neither the cache nor
// RocksDB, and after the commit the ones it did not delete are cached.
TEST(TypedOps, GetReadingAheadKeepsTheMembersItReadAhead) {
  auto store = OpenStore(NewDataDir());
  MakeValue(*store, "h", ValueType::kList, {"a", "b", "c", "d"});
  TypedCache& cache = *store->engine().typed_cache;
  const std::string names[] = {"h"};
  std::vector<std::string> got;
  auto keep = [&](const absl::StatusOr<std::optional<std::string>>& read) {
    got.push_back(!read.ok() ? read.status().ToString()
                             : read->value_or("absent"));
  };
  ASSERT_TRUE(store
                  ->UpdateTyped(
                      names, kNow,
                      [&](TypedTxn& txn) {
                        TypedMeta m = **txn.Meta("h");
                        keep(txn.GetReadingAhead("h", m, "a",
                                                 /*reverse=*/false,
                                                 /*ahead=*/1));
                        txn.Delete("h", m, "a");
                        const uint64_t lookups = cache.hits() + cache.misses();
                        keep(txn.Get("h", m, "b"));
                        EXPECT_EQ(cache.hits() + cache.misses(), lookups);
                        // Staged: no read, nothing read ahead.
                        keep(txn.GetReadingAhead("h", m, "a", false,
                                                 /*ahead=*/3));
                        m.size = 3;
                        txn.SetMeta("h", m);
                        return absl::OkStatus();
                      })
                  .ok());
  EXPECT_THAT(got, ElementsAre("a", "b", "absent"));
  const uint64_t misses = cache.misses();
  EXPECT_THAT(ReadHash(*store, "h", {"b"}), ElementsAre("size 3", "b=b"));
  EXPECT_EQ(cache.misses(), misses);
  EXPECT_THAT(ReadHash(*store, "h", {"c", "d"}),
              ElementsAre("size 3", "c=c", "d=d"));
  EXPECT_EQ(cache.misses(), misses + 2);
  EXPECT_THAT(testing::TypedCacheViolations(*store), ::testing::IsEmpty());
}

// Reading ahead walks down with `reverse`, from a member that may be
// absent, and stops at the value's last member.
TEST(TypedOps, GetReadingAheadWalksEitherWayFromAnAbsentMember) {
  auto store = OpenStore(NewDataDir());
  MakeValue(*store, "h", ValueType::kList, {"a", "b", "c", "d"});
  MakeValue(*store, "i", ValueType::kList,
            {"x"});  // the next value's members: not walked into
  TypedCache& cache = *store->engine().typed_cache;
  const std::string names[] = {"h"};
  std::vector<std::string> got;
  ASSERT_TRUE(store
                  ->UpdateTyped(
                      names, kNow,
                      [&](TypedTxn& txn) {
                        TypedMeta m = **txn.Meta("h");
                        auto down = txn.GetReadingAhead("h", m, "cc", true, 2);
                        if (!down.ok()) return down.status();
                        got.push_back(down->value_or("absent"));
                        auto up = txn.GetReadingAhead("h", m, "d", false, 5);
                        if (!up.ok()) return up.status();
                        got.push_back(up->value_or("absent"));
                        const uint64_t lookups = cache.hits() + cache.misses();
                        for (const char* f : {"c", "b", "cc"}) {
                          auto read = txn.Get("h", m, f);
                          if (!read.ok()) return read.status();
                          got.push_back(read->value_or("absent"));
                        }
                        EXPECT_EQ(cache.hits() + cache.misses(), lookups);
                        return absl::OkStatus();
                      })
                  .ok());
  EXPECT_THAT(got, ElementsAre("absent", "d", "c", "b", "absent"));
  EXPECT_THAT(testing::TypedCacheViolations(*store), ::testing::IsEmpty());
}

// A sorted set's score keys are only walked: a read of one by key is
// answered but never cached, so their writes (which drop no cache entry)
// can never leave a stale one; its member keys are cached as any. Reading
// ahead is for lists, whose walks pass no such keys.
TEST(TypedOps, WalkedOnlyKeysAreReadButNeverCached) {
  auto store = OpenStore(NewDataDir());
  TypedCache& cache = *store->engine().typed_cache;
  const std::string score = ZsetScoreSubkey(1.5, "x");
  const std::string member = ZsetMemberSubkey("x");
  MakeValue(*store, "z", ValueType::kZset, {member, score});
  const TypedMeta meta = **store->GetTypedMeta("z", kNow);
  const std::string prefix = TypedMembersPrefix("z", meta.version);
  const std::string names[] = {"z"};
  auto read_both = [&](TypedTxn& txn) -> absl::Status {
    TypedMeta m = **txn.Meta("z");
    auto one = txn.Get("z", m, score);
    auto many = txn.GetMany("z", m, {member, score});
    if (!one.ok()) return one.status();
    if (!many.ok()) return many.status();
    EXPECT_THAT(*one, Optional(score));
    EXPECT_THAT(*many, ElementsAre(Optional(member), Optional(score)));
    return absl::OkStatus();
  };
  ASSERT_TRUE(store->UpdateTyped(names, kNow, read_both).ok());
  ASSERT_TRUE(store->ReadTyped(names, kNow, read_both).ok());
  std::optional<std::string> cached;
  EXPECT_TRUE(cache.Lookup(prefix + member, &cached));
  EXPECT_FALSE(cache.Lookup(prefix + score, &cached));

  ASSERT_TRUE(store
                  ->UpdateTyped(names, kNow,
                                [&](TypedTxn& txn) {
                                  TypedMeta m = **txn.Meta("z");
                                  txn.Delete("z", m, score);
                                  txn.Put("z", m, ZsetScoreSubkey(2, "x"), "");
                                  txn.SetMeta("z", m);
                                  return absl::OkStatus();
                                })
                  .ok());
  EXPECT_THAT(ReadRaw(*store, ColumnFamily::kTypes, prefix + score),
              ::testing::IsEmpty());
  EXPECT_THAT(Fields(*store, "z"),
              ElementsAre(member, ZsetScoreSubkey(2, "x")));
  EXPECT_THAT(testing::TypedCacheViolations(*store), ::testing::IsEmpty());

  absl::Status ahead = store->UpdateTyped(names, kNow, [&](TypedTxn& txn) {
    return txn.GetReadingAhead("z", **txn.Meta("z"), member, false, 1).status();
  });
  EXPECT_EQ(ahead.code(), absl::StatusCode::kFailedPrecondition);
}

// Reads of one name hold its stripes shared: a read runs while another is
// under way (exclusive stripes would keep it waiting for good here).
TEST(TypedOps, ReadsOfOneNameRunSideBySide) {
  auto store = OpenStore(NewDataDir());
  MakeHash(*store, "h", {"a", "b"});
  const std::string names[] = {"h"};
  absl::Notification inner_done;
  absl::Status outer = store->ReadTyped(names, kNow, [&](TypedTxn& txn) {
    std::thread inner([&] {
      absl::Status s = store->ReadTyped(names, kNow, [&](TypedTxn& t) {
        auto meta = t.Meta("h");
        if (!meta.ok()) return meta.status();
        EXPECT_EQ((*meta)->size, 2u);
        return absl::OkStatus();
      });
      EXPECT_TRUE(s.ok()) << s;
      inner_done.Notify();
    });
    const bool ran =
        inner_done.WaitForNotificationWithTimeout(absl::Seconds(10));
    inner.detach();
    EXPECT_TRUE(ran) << "a second read waited for the first";
    auto meta = txn.Meta("h");
    if (!meta.ok()) return meta.status();
    auto a = txn.Get("h", **meta, "a");
    if (!a.ok()) return a.status();
    EXPECT_EQ(*a, "a");
    return absl::OkStatus();
  });
  EXPECT_TRUE(outer.ok()) << outer;
  inner_done.WaitForNotification();
}

// A read-only transaction that stages a write or creates a value fails and
// writes nothing; the caller can run it again as an update.
TEST(TypedOps, AReadOnlyTransactionThatWritesIsRefused) {
  auto store = OpenStore(NewDataDir());
  MakeHash(*store, "h", {"a"});
  const std::string names[] = {"h", "new"};
  absl::Status put = store->ReadTyped(names, kNow, [&](TypedTxn& txn) {
    auto meta = txn.Meta("h");
    if (!meta.ok()) return meta.status();
    txn.Put("h", **meta, "b", "b");
    TypedMeta grown = **meta;
    grown.size = 2;
    txn.SetMeta("h", grown);
    return absl::OkStatus();
  });
  EXPECT_TRUE(absl::IsFailedPrecondition(put)) << put;
  EXPECT_EQ(put.message(), kReadOnlyTxnStagedWrite);
  EXPECT_THAT(Fields(*store, "h"), ElementsAre("a"));
  EXPECT_EQ((*store->GetTypedMeta("h", kNow))->size, 1u);

  absl::Status create = store->ReadTyped(names, kNow, [&](TypedTxn& txn) {
    txn.Create(ValueType::kSet);
    return absl::OkStatus();
  });
  EXPECT_TRUE(absl::IsFailedPrecondition(create)) << create;
  EXPECT_FALSE(store->GetTypedMeta("new", kNow)->has_value());
}

// Writes hash h as round `round` of SharedReadsNeverSeeHalfAWrite: every
// field gets the round's number, and the hash grows or shrinks by one, in
// one transaction (round -1 creates it).
absl::Status WriteRound(TrackStore& store, int round) {
  const std::string names[] = {"h"};
  const std::string value = absl::StrCat(round);
  return store.UpdateTyped(names, kNow, [&](TypedTxn& txn) {
    auto meta = txn.Meta("h");
    if (!meta.ok()) return meta.status();
    TypedMeta m = *meta ? **meta : txn.Create(ValueType::kHash);
    for (const char* f : {"a", "b", "c"}) txn.Put("h", m, f, value);
    if (round % 2 == 0) {
      txn.Put("h", m, "d", value);
      m.size = 4;
    } else {
      txn.Delete("h", m, "d");
      m.size = 3;
    }
    txn.SetMeta("h", m);
    return absl::OkStatus();
  });
}

// Reads hash h as one state: whether its fields are as many as its meta
// says and all hold one value (through a walk and a cached point read).
absl::StatusOr<bool> ReadsWhole(TrackStore& store) {
  const std::string names[] = {"h"};
  bool whole = false;
  absl::Status s = store.ReadTyped(names, kNow, [&](TypedTxn& txn) {
    auto meta = txn.Meta("h");
    if (!meta.ok()) return meta.status();
    std::set<std::string> values;
    uint64_t fields = 0;
    absl::Status walked = txn.Scan("h", **meta, "", "", false,
                                   [&](absl::string_view, absl::string_view v) {
                                     ++fields;
                                     values.emplace(v);
                                     return true;
                                   });
    if (!walked.ok()) return walked;
    auto a = txn.Get("h", **meta, "a");
    if (!a.ok()) return a.status();
    if (*a) values.insert(**a);
    whole = fields == (*meta)->size && values.size() == 1;
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return whole;
}

// Readers share a name's stripes, and a writer changing the name excludes
// them: every read sees a whole transaction's state, never half of one.
// Run under TSan too (tools/sanitizers/tsan.sh).
TEST(TypedOps, SharedReadsNeverSeeHalfAWrite) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(WriteRound(*store, -1).ok());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int round = 0; round < 300; ++round) {
      ASSERT_TRUE(WriteRound(*store, round).ok());
    }
    stop = true;
  });
  auto reader = [&] {
    int torn = 0, reads = 0;
    while (!stop.load()) {
      absl::StatusOr<bool> whole = ReadsWhole(*store);
      ASSERT_TRUE(whole.ok()) << whole.status();
      torn += *whole ? 0 : 1;
      ++reads;
    }
    EXPECT_EQ(torn, 0) << "of " << reads << " reads";
  };
  std::thread r1(reader), r2(reader);
  writer.join();
  r1.join();
  r2.join();
  EXPECT_TRUE(testing::TypedCacheViolations(*store).empty());
}

// A field's value as a read-only transaction reads it.
std::optional<std::string> ReadField(TrackStore& store, const std::string& name,
                                     const std::string& field) {
  const std::string names[] = {name};
  std::optional<std::string> value;
  EXPECT_TRUE(store
                  .ReadTyped(names, kNow,
                             [&](TypedTxn& txn) {
                               auto meta = txn.Meta(name);
                               if (!meta.ok()) return meta.status();
                               auto got = txn.Get(name, **meta, field);
                               if (!got.ok()) return got.status();
                               value = *got;
                               return absl::OkStatus();
                             })
                  .ok());
  return value;
}

// Repeated reads come from the reading thread's copy of the typed cache
// (storage/memory/read_front.h); a write on another thread outdates that copy.
TEST(TypedOps, ReadsOnOneThreadSeeWritesMadeOnAnother) {
  auto store = OpenStore(NewDataDir());
  MakeHash(*store, "h", {"a"});
  TypedCache& cache = *store->engine().typed_cache;
  for (int i = 0; i < 2; ++i) {  // filled from RocksDB, then copied
    EXPECT_THAT(ReadField(*store, "h", "a"), Optional(Eq("a")));
  }
  const uint64_t lookups = cache.hits() + cache.misses();
  EXPECT_THAT(ReadField(*store, "h", "a"), Optional(Eq("a")));
  EXPECT_EQ(cache.hits() + cache.misses(), lookups);  // the thread's copy
  std::thread writer([&] {
    const std::string names[] = {"h"};
    ASSERT_TRUE(store
                    ->UpdateTyped(names, kNow,
                                  [&](TypedTxn& txn) {
                                    TypedMeta m = **txn.Meta("h");
                                    txn.Put("h", m, "a", "changed");
                                    return absl::OkStatus();
                                  })
                    .ok());
  });
  writer.join();
  EXPECT_THAT(ReadField(*store, "h", "a"), Optional(Eq("changed")));
  EXPECT_THAT(testing::TypedCacheViolations(*store), ::testing::IsEmpty());
}

// A run of walks in one transaction, each starting at the key where the
// one before stopped (pops from the low end), seeks the store once.
TEST(TypedOps, WalksThatResumeWhereTheLastStoppedSeekOnce) {
  auto store = OpenStore(NewDataDir());
  MakeHash(*store, "h", {"a", "b", "c", "d", "e"});
  rocksdb::Statistics& stats = *store->engine().options.db.statistics;
  const std::string names[] = {"h"};
  std::vector<std::string> popped;
  uint64_t seeks = 0;
  ASSERT_TRUE(store
                  ->UpdateTyped(
                      names, kNow,
                      [&](TypedTxn& txn) {
                        TypedMeta m = **txn.Meta("h");
                        const uint64_t before =
                            stats.getTickerCount(rocksdb::NUMBER_DB_SEEK);
                        std::string from;
                        for (int pop = 0; pop < 3; ++pop) {
                          std::string first;
                          absl::Status s = txn.Scan(
                              "h", m, "", from, false,
                              [&](absl::string_view f, absl::string_view) {
                                first = std::string(f);
                                return false;
                              });
                          if (!s.ok()) return s;
                          popped.push_back(first);
                          txn.Delete("h", m, first);
                          from = first;
                        }
                        seeks = stats.getTickerCount(rocksdb::NUMBER_DB_SEEK) -
                                before;
                        return absl::OkStatus();
                      })
                  .ok());
  EXPECT_THAT(popped, ElementsAre("a", "b", "c"));
  EXPECT_EQ(seeks, 1u);
  EXPECT_THAT(Fields(*store, "h"), ElementsAre("d", "e"));
}

// A name holds one type: points are refused on a name that holds a typed
// value or an unexpired string, writing nothing, and accepted once it holds
// neither.
TEST(OneTypePerNameTest, AddPointsRefusesANameHoldingAnotherType) {
  auto store = OpenStore(NewDataDir());
  MakeHash(*store, "h", {"f"});
  absl::Status s = store->AddPoints("h", {testing::Point("a", 1, 10, 20)});
  EXPECT_TRUE(IsWrongType(s)) << s;
  EXPECT_EQ(store->CollectionSize("h").value_or(-1), 0);
  EXPECT_THAT(Fields(*store, "h"), ElementsAre("f"));

  ASSERT_TRUE(store->PutString("s", StringValue{"v", 0}, kNow).ok());
  s = store->AddPoints("s", {testing::Point("a", 1, 10, 20)});
  EXPECT_TRUE(IsWrongType(s)) << s;
  EXPECT_EQ(store->CollectionSize("s").value_or(-1), 0);

  // An expired string is no type: the name takes points.
  ASSERT_TRUE(store->PutString("x", StringValue{"v", kNow + 1}, kNow).ok());
  EXPECT_TRUE(store->AddPoints("x", {testing::Point("a", 1, 10, 20)}).ok());
  EXPECT_EQ(store->CollectionSize("x").value_or(-1), 1);
}

// Creates a hash at `name` unless it holds a string or a collection, as a
// typed command does.
absl::Status CreateHashUnlessOtherType(TrackStore& store,
                                       const std::string& name) {
  const std::string names[] = {name};
  return store.UpdateTyped(names, kNow, [&](TypedTxn& txn) {
    absl::StatusOr<bool> other = txn.HoldsStringOrCollection(name);
    if (!other.ok()) return other.status();
    if (*other) return WrongTypeError(name, "a collection");
    TypedMeta m = txn.Create(ValueType::kHash);
    txn.Put(name, m, "f", "v");
    m.size = 1;
    txn.SetMeta(name, m);
    return absl::OkStatus();
  });
}

// Whether `name` holds both a collection and a typed value.
bool HoldsBoth(TrackStore& store, const std::string& name) {
  absl::StatusOr<int64_t> size = store.CollectionSize(name);
  absl::StatusOr<std::optional<TypedMeta>> meta =
      store.GetTypedMeta(name, kNow);
  EXPECT_TRUE(size.ok() && meta.ok());
  return size.value_or(0) > 0 && meta.ok() && meta->has_value();
}

// A typed write and a points write racing on a new name: whichever wins,
// the name ends with one type, and the loser was refused.
TEST(OneTypePerNameTest, RacingTypedAndPointsWritesLeaveOneType) {
  auto store = OpenStore(NewDataDir());
  constexpr int kRounds = 300;
  int both = 0, typed_won = 0, points_won = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::string name = absl::StrCat("k", round);
    std::atomic<int> ready{0};
    absl::Status points_status, typed_status;
    std::thread points([&] {
      ++ready;
      while (ready.load() < 2) std::this_thread::yield();
      points_status = store->AddPoints(name, {testing::Point("a", 1, 1, 2)});
    });
    std::thread typed([&] {
      ++ready;
      while (ready.load() < 2) std::this_thread::yield();
      typed_status = CreateHashUnlessOtherType(*store, name);
    });
    points.join();
    typed.join();
    if (HoldsBoth(*store, name)) ++both;
    absl::StatusOr<int64_t> size = store->CollectionSize(name);
    absl::StatusOr<std::optional<TypedMeta>> meta =
        store->GetTypedMeta(name, kNow);
    ASSERT_TRUE(size.ok() && meta.ok());
    if (meta->has_value()) {
      ++typed_won;
      EXPECT_TRUE(IsWrongType(points_status)) << points_status;
    } else {
      ++points_won;
      EXPECT_EQ(*size, 1);
      EXPECT_TRUE(IsWrongType(typed_status)) << typed_status;
    }
  }
  EXPECT_EQ(both, 0) << "typed won " << typed_won << ", points won "
                     << points_won;
  EXPECT_EQ(typed_won + points_won, kRounds);
}

// The last entity of a name removed while a typed write and a points
// write of that entity race: the points write, which found the entity
// before it took its locks, must not miss the typed value that the empty
// name then admits.
TEST(OneTypePerNameTest, PointsForAnEntityRemovedMeanwhileStillSeeTheType) {
  auto store = OpenStore(NewDataDir());
  for (int round = 0; round < 300; ++round) {
    const std::string name = absl::StrCat("k", round);
    ASSERT_TRUE(store->AddPoints(name, {testing::Point("a", 1, 1, 2)}).ok());
    std::atomic<int> ready{0};
    auto start = [&] {
      ++ready;
      while (ready.load() < 3) std::this_thread::yield();
    };
    std::thread remove([&] {
      start();
      EXPECT_TRUE(store->DeleteEntity(name, "a").ok());
    });
    std::thread typed([&] {
      start();
      absl::Status s = CreateHashUnlessOtherType(*store, name);
      EXPECT_TRUE(s.ok() || IsWrongType(s)) << s;
    });
    std::thread points([&] {
      start();
      absl::Status s = store->AddPoints(name, {testing::Point("a", 2, 1, 2)});
      EXPECT_TRUE(s.ok() || IsWrongType(s)) << s;
    });
    remove.join();
    typed.join();
    points.join();
    EXPECT_FALSE(HoldsBoth(*store, name)) << name;
  }
}

}  // namespace
}  // namespace trackdb::storage
