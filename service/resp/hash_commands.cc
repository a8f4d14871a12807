// hash commands: being written.
namespace trackdb::resp {}
