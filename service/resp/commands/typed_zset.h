#ifndef TRACKDB_SERVICE_RESP_COMMANDS_TYPED_ZSET_H_
#define TRACKDB_SERVICE_RESP_COMMANDS_TYPED_ZSET_H_

// What the sorted-set command families (zset_commands.cc,
// zset_write_commands.cc, zset_algebra_commands.cc) share at the door: the
// type check of a key that may hold a typed zset or a GEO key, running a
// command on a typed zset or into a STORE destination, parsing ranges and
// replying with members. The sorted set's semantics are types/zset.h's.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/protocol/reply.h"
#include "storage/format/typed_values.h"
#include "types/zset.h"

namespace trackdb::resp {

// The kind of `name` (a storage name), or nullopt once it has replied
// WRONGTYPE (a string, hash, list or set) or a storage error. Not for use
// inside a transaction (it reads strings, which takes their locks).
std::optional<types::ZsetKind> ZsetKindOrReply(CommandContext& ctx,
                                               const std::string& name);

using TypedZsetBody =
    std::function<absl::Status(storage::TypedTxn& txn, const std::string& name,
                               const storage::TypedMeta& meta, Reply& reply)>;

// Runs `body` on the typed zset `name` in one transaction (RunTyped), after
// Redis's type check: WRONGTYPE when it holds anything else by then, and
// `absent`'s reply when it holds nothing.
void RunOnTypedZset(CommandContext& ctx, const std::string& name,
                    const std::function<void(Reply&)>& absent,
                    const TypedZsetBody& body);

// What a STORE command computed: nullopt once it has replied an error.
using ZsetResult = std::optional<std::vector<types::ZEntry>>;
using ZsetStoreBody = std::function<absl::Status(
    storage::TypedTxn& txn, Reply& reply, ZsetResult* result)>;

// Runs a STORE command: `compute` reads its sources in one transaction over
// `names` (the sources and `dst`), and in the same transaction `dst` is
// replaced by the result (removed when it is empty), whatever it held (a
// typed value, a string or a GEO key: TypedTxn::RemoveOtherTypes), and the
// reply is the result's size. Atomic: one batch.
void RunZsetStore(CommandContext& ctx, const std::vector<std::string>& names,
                  const std::string& dst, const ZsetStoreBody& compute);

// ZRANGE's and ZRANGESTORE's options from argv[first_option] on
// (WITHSCORES unless `store`, LIMIT, and REV, BYSCORE, BYLEX where the
// request's type and direction are still kAuto), then Redis's checks on
// their combination. False once it has replied an error.
bool ParseRangeOptionsOrReply(CommandContext& ctx, size_t first_option,
                              bool store, types::RangeRequest* req);

// The range's bounds, argv[min_index] and the one after it, as ranks,
// scores or lex bounds (a reverse score or lex range names its max first).
// False once it has replied an error.
bool ParseRangeBoundsOrReply(CommandContext& ctx, size_t min_index,
                             types::RangeRequest* req);

// Redis's zrange reply of `entries`: with scores, flat member-score pairs
// in RESP2 and [member, score] arrays in RESP3.
void EmitEntry(Reply& reply, const types::ZEntry& entry, bool withscores);
void EmitEntries(Reply& reply, const std::vector<types::ZEntry>& entries,
                 bool withscores);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_COMMANDS_TYPED_ZSET_H_
