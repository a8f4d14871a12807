"""C++ code generation for .proto files with the system protoc.

One line per .proto in a BUILD file:

    cc_proto_library_system(
        name = "config_cc_proto",
        src = "trackdb/v1/config.proto",
        grpc = False,
    )

The .proto path is relative to the package, which is the import root, so
generated headers are included as "trackdb/v1/config.pb.h".
"""

def cc_proto_library_system(name, src, proto_deps = [], deps = [], grpc = False, visibility = None):
    """Generates and compiles the C++ (and optionally gRPC) code for one .proto.

    Args:
      name: the cc_library to create.
      src: the .proto file, relative to this package.
      proto_deps: other cc_proto_library_system targets whose .proto this one imports.
      deps: extra cc deps.
      grpc: also generate gRPC service stubs.
      visibility: visibility of the cc_library.
    """
    if not src.endswith(".proto"):
        fail("src must be a .proto file")
    base = src[:-len(".proto")]
    outs = [base + ".pb.h", base + ".pb.cc"]
    if grpc:
        outs += [base + ".grpc.pb.h", base + ".grpc.pb.cc"]
    pkg = native.package_name()
    root = pkg if pkg else "."
    out_dir = "$(GENDIR)/" + pkg if pkg else "$(GENDIR)"
    cmd = "$(location @system_libs//:protoc) --proto_path=%s --cpp_out=%s" % (root, out_dir)
    tools = ["@system_libs//:protoc"]
    if grpc:
        cmd += (" --plugin=protoc-gen-grpc=$(location @system_libs//:grpc_cpp_plugin)" +
                " --grpc_out=%s" % out_dir)
        tools.append("@system_libs//:grpc_cpp_plugin")
    cmd += " $(location %s)" % src
    native.genrule(
        name = name + "_gen",
        srcs = [src] + [d + "_src" for d in proto_deps],
        outs = outs,
        cmd = cmd,
        tools = tools,
    )
    native.filegroup(
        name = name + "_src",
        srcs = [src],
        visibility = visibility,
    )
    native.cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        includes = ["."],
        deps = proto_deps + deps + ["@system_libs//:grpcpp" if grpc else "@system_libs//:protobuf"],
        visibility = visibility,
    )
