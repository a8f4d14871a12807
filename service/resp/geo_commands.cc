// Geo commands.
#include "service/resp/command.h"

namespace trackdb::resp {

void RegisterGeoCommands(CommandTable* /*table*/) {}

}  // namespace trackdb::resp
