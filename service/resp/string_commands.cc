// String commands.
#include "service/resp/command.h"

namespace trackdb::resp {

void RegisterStringCommands(CommandTable* /*table*/) {}

}  // namespace trackdb::resp
