// list commands: being written.
namespace trackdb::resp {}
