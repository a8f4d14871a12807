// Key commands.
#include "service/resp/command.h"

namespace trackdb::resp {

void RegisterKeyCommands(CommandTable* /*table*/) {}

}  // namespace trackdb::resp
