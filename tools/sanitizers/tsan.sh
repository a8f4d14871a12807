#!/usr/bin/env bash
# Runs trackdb's concurrency tests under ThreadSanitizer (--config=tsan,
# gcc): the storage tests whose threads race on one store, and the server
# tests that drive the RESP event loops, worker pool and gRPC server with
# several clients at once. Extra arguments go to `bazel test`.
#
# Debian's gRPC, RocksDB, protobuf and absl are not built with TSan, so it
# cannot see their own synchronisation. absl::Mutex, which guards most of
# trackdb's shared state, is made visible by tsan_absl_mutex.cc (linked
# into every --config=tsan binary); RocksDB's write group is left out where
# trackdb calls it (storage/unchecked_by_tsan.h); tsan.supp names the rest,
# each with why. Part of CI (.ci/run, stage 4): any report fails its test.
#
# BAZEL_STARTUP: Bazel startup options, e.g. another --output_base so that
# this can run beside a build in the main one.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

tests=(
  # absl::Mutex as TSan sees it (tsan_absl_mutex.cc).
  //tools/sanitizers:tsan_absl_mutex_test
  # storage: writers, readers and name operations racing on one store.
  //storage:write_path_test
  //storage:kv_ops_test
  //storage:collections_test
  //storage/engine:entity_locks_test
  # typed values: shared reads of one name beside its writer, and the
  # typed cache's per-thread copies outdated from other threads.
  //storage:typed_ops_test
  //storage/memory:read_front_test
  //storage/typed:typed_cache_test
  # the typed cache's shards: inserts, replacements and lookups from
  # several threads.
  //storage/memory:generational_cache_test
  //storage/points:latest_index_test
  //storage:name_ops_test
  # retention's passes beside writers.
  //storage:retention_test
  # fences: writers committing events out of offset order, a reader
  # following the log, Watch streams.
  //storage:fence_store_test
  //service/grpc:fence_service_test
  # pub/sub: messages pushed from other threads (PUBLISH, the fence
  # publisher) into connections on their loops.
  //service/resp/commands:pubsub_test
  # Webhooks and the log trimmer: threads beside the store's writers,
  # stopped from another thread.
  //service/jobs:stoppable_thread_test
  //service/events:fence_webhook_test
  //service/jobs:retention_trimmer_test
  # SHUTDOWN's gate (a wait ended by ABORT or the server's stop from
  # another thread) and a backup on a thread of its own.
  //service/resp/dispatch:shutdown_gate_test
  //service/jobs:backup_job_test
  # The metrics: counters recorded from many threads while a scrape reads
  # them, and the HTTP server stopped from another thread.
  //service/metrics:call_metrics_test
  //service/metrics:metrics_http_test
  # Replication: a replica's link pulling beside the primary's writers,
  # waiters woken by acks from other threads, a slot migration beside
  # writers of its slots.
  //service/replication:sync_acks_test
  //service/replication:replica_link_test
  //service/replication:slot_migrator_test
  # RESP: event loops, worker pool, many clients (with redis-server beside).
  //service/resp/commands:string_commands_test
  //service/resp/commands:key_commands_test
  //service/resp/commands:connection_commands_test
  //service/resp/commands:geo_search_command_test
  # Lists and sorted sets: blocking pops woken from other connections,
  # and pops of an empty key run under shared stripes racing pushes.
  //service/resp/commands:list_commands_test
  //service/resp/commands:typed_zset_commands_test
  # Writes to one key from many loops, handed between them on its lane
  # (connection state moves to the loop that serves the group).
  //service/resp/server:key_lanes_test
  //service/resp/server:hot_key_lanes_test
  # EXEC's exclusive gate against commands and groups on other loops.
  //service/resp/dispatch:exec_gate_test
  //service/resp/commands:transaction_commands_test
  # Both doors on one store.
  //service/resp/server:cross_door_limits_test
  //service/resp/server:geo_cross_protocol_test
  //service/grpc:grpc_server_test
)

# detect_deadlocks=0: a whole-name operation takes every entity stripe
# (storage/engine/entity_locks.h), beyond the 64 locks TSan's deadlock detector
# can hold for one thread (it aborts with a CHECK failure).
options="halt_on_error=1:detect_deadlocks=0:history_size=4"
options+=":suppressions=$PWD/tools/sanitizers/tsan.supp"
exec bazel ${BAZEL_STARTUP:-} test --config=tsan --test_env=TSAN_OPTIONS="$options" \
  "${tests[@]}" "$@"
