"""trackdb_fuzz_test: one libFuzzer target, built two ways.

  <name>          a cc_test (in `bazel test //...`, any compiler) that runs
                  every file of corpus/<name>/ once through the target's
                  LLVMFuzzerTestOneInput with corpus_driver.cc's main: the
                  corpora are regression tests in plain CI.
  <name>_fuzzer   the same target linked with libFuzzer's main
                  (-fsanitize=fuzzer); builds only under --config=fuzz
                  (clang), so it is tagged manual. tools/fuzz/run.sh runs it.
"""

def trackdb_fuzz_test(name, srcs, deps, size = "small"):
    corpus = "corpus/" + name
    native.cc_library(
        name = name + "_target",
        testonly = True,
        srcs = srcs,
        deps = deps,
        # Only LLVMFuzzerTestOneInput references the target's code: keep it.
        alwayslink = True,
    )
    native.cc_test(
        name = name,
        size = size,
        args = [native.package_name() + "/" + corpus],
        data = native.glob([corpus + "/*"]),
        deps = [
            ":" + name + "_target",
            ":corpus_driver",
        ],
    )
    native.cc_binary(
        name = name + "_fuzzer",
        testonly = True,
        linkopts = select({
            ":fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        tags = ["manual"],
        deps = [":" + name + "_target"],
    )
