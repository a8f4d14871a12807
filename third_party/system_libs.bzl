"""A repository rule exposing Debian's system libraries as cc_library targets.

Link flags come from `pkg-config` on the build machine, so they follow the
installed packages instead of a hand-kept list. Headers live in /usr/include,
which the default C++ toolchain already searches.
"""

def _split_flags(text):
    return [f for f in text.strip().split(" ") if f]

def _pkg_config(ctx, args):
    pkg_config = ctx.which("pkg-config")
    if not pkg_config:
        fail("pkg-config not found: run tools/setup/install_deps.sh")
    result = ctx.execute([pkg_config] + args)
    if result.return_code != 0:
        fail("pkg-config %s failed (run tools/setup/install_deps.sh):\n%s" %
             (" ".join(args), result.stderr))
    return _split_flags(result.stdout)

def _library(name, linkopts, defines, deps, opt_linkopts = None):
    links = repr(linkopts)
    if opt_linkopts != None:
        links = "select({\"@//third_party:optimized\": %s, \"//conditions:default\": %s})" % (
            repr(opt_linkopts),
            links,
        )
    return """
cc_library(
    name = "{name}",
    defines = {defines},
    linkopts = {linkopts},
    deps = {deps},
)
""".format(
        name = name,
        defines = repr(defines),
        linkopts = links,
        deps = repr([":" + d for d in deps]),
    )

def _system_libs_impl(ctx):
    build = ['package(default_visibility = ["//visibility:public"])\n']
    for name, modules in ctx.attr.pkg_config.items():
        mods = modules.split(" ")
        linkopts = _pkg_config(ctx, ["--libs"] + mods)
        cflags = _pkg_config(ctx, ["--cflags"] + mods)
        defines = [f[2:] for f in cflags if f.startswith("-D")]
        opt = ctx.attr.opt_linkopts.get(name)
        build.append(_library(
            name,
            linkopts,
            defines,
            [],
            _split_flags(opt) if opt != None else None,
        ))
    for name, flags in ctx.attr.raw_linkopts.items():
        build.append(_library(
            name,
            _split_flags(flags),
            [],
            ctx.attr.raw_deps.get(name, []),
        ))
    for tool in ctx.attr.tools:
        path = ctx.which(tool)
        if not path:
            fail("%s not found: run tools/setup/install_deps.sh" % tool)
        ctx.symlink(path, tool)
    build.append("exports_files(%s)\n" % repr(ctx.attr.tools))
    ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % ctx.name)
    ctx.file("BUILD", "".join(build))

system_libs = repository_rule(
    implementation = _system_libs_impl,
    attrs = {
        "pkg_config": attr.string_dict(
            doc = "target name -> space-separated pkg-config modules",
        ),
        "raw_linkopts": attr.string_dict(
            doc = "target name -> link flags, for libraries without a .pc file",
        ),
        "opt_linkopts": attr.string_dict(
            doc = "target name -> link flags instead of pkg-config's in " +
                  "-c opt builds (@//third_party:optimized)",
        ),
        "raw_deps": attr.string_list_dict(
            doc = "target name -> other targets of this repository it needs",
        ),
        "tools": attr.string_list(
            doc = "executables on PATH to expose as files (e.g. protoc)",
        ),
    },
    local = True,
)
