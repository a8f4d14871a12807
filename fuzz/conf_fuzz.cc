// The config loader (conf/config.h) on arbitrary text, and what trackd does
// next with a config it accepts: fill in the defaults and derive RocksDB's
// options (storage/engine/options.h).
//
// Checked: nothing crashes; a refused config says why; an accepted one
// still validates with its defaults filled in, filling them in twice
// changes nothing, it prints and parses back to itself, and RocksDB's
// options derive from it (or RocksDB refuses its raw option strings,
// naming them).

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "conf/config.h"
#include "fuzz/fuzz_check.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "storage/engine/options.h"

namespace trackdb::fuzz {
namespace {

using google::protobuf::util::MessageDifferencer;

void CheckAccepted(const v1::TrackdbConfig& config) {
  const v1::TrackdbConfig filled = conf::WithDefaults(config);
  const absl::Status valid = conf::ValidateConfig(filled);
  FUZZ_CHECK(valid.ok()) << "accepted, but refused with its defaults: "
                         << valid;
  FUZZ_CHECK(MessageDifferencer::Equals(conf::WithDefaults(filled), filled))
      << "defaults filled in twice differ";

  std::string text;
  FUZZ_CHECK(google::protobuf::TextFormat::PrintToString(config, &text));
  auto reparsed = conf::ParseConfigText(text, "printed");
  FUZZ_CHECK(reparsed.ok())
      << "the printed config is refused: " << reparsed.status() << "\n"
      << text;
  FUZZ_CHECK(MessageDifferencer::Equals(*reparsed, config))
      << "the printed config parses to another\n"
      << text;

  // The raw RocksDB option strings are RocksDB's to judge, when the store
  // opens (conf/ does not link RocksDB): the one refusal allowed here,
  // naming the field.
  auto options = storage::BuildStoreOptions(filled.storage());
  storage::StorageConfigWarnings(filled.storage());
  if (!options.ok()) {
    FUZZ_CHECK(options.status().code() == absl::StatusCode::kInvalidArgument &&
               absl::StrContains(options.status().message(), "rocksdb_") &&
               absl::StrContains(options.status().message(), "_options"))
        << "an accepted config has no RocksDB options: " << options.status();
    return;
  }
  storage::DescribeOptions(*options);
}

}  // namespace
}  // namespace trackdb::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trackdb;
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = conf::ParseConfigText(text, "fuzz.textproto");
  if (!config.ok()) {
    FUZZ_CHECK(!config.status().message().empty()) << "refused without why";
    return 0;
  }
  fuzz::CheckAccepted(*config);
  return 0;
}
