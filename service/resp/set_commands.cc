// set commands: being written.
namespace trackdb::resp {}
