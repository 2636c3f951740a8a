#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""meson install, then a program built out of tree against what it installed.

usage: test_install.py BUILD_DIR HELLO_C CC RELOCATABLE SRC_HEADERS

Installs the build into a temporary DESTDIR and checks what a user links:
librpcrdma.so with its versioned soname, librpcrdma.a, the public headers
(every one of SRC_HEADERS, include/rpcrdma/, and each compiles on its own) and rpcrdma.pc. Then builds HELLO_C
(tests/integration/install/hello_rpcrdma.c: encodes and decodes a transport
header, opens a shm PMD device) with `pkg-config --cflags --libs rpcrdma`,
PKG_CONFIG_PATH pointing into the temporary tree, and runs it; and links it
once more against the static library, taken whole (the PMDs register from
constructors), and runs that too.

rpcrdma.pc is relocatable (prefix=${pcfiledir}/...), so that the tree works
wherever it is unpacked; RELOCATABLE is the build's pkgconfig.relocatable,
and false skips (77): the temporary tree cannot be used then.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

BUILD, HELLO, CC, RELOCATABLE, SRC_HEADERS, SANITIZE = sys.argv[1:7]
# a library built with sanitizers (make test's build-asan) links only into a
# program built with them, as its users' would be
SAN = ["-fsanitize=" + SANITIZE] if SANITIZE != "none" else []
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what, file=sys.stderr)
    return cond


def run(cmd, env=None, what=None):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if not check(p.returncode == 0, "%s exited %d:\n  %s\n%s%s" % (
            what or cmd[0], p.returncode, " ".join(cmd), p.stdout, p.stderr)):
        return None
    return p.stdout


def find(root, name):
    for d, _, files in os.walk(root):
        if name in files:
            return os.path.join(d, name)
    return None


def main():
    if RELOCATABLE != "true":
        print("install: SKIP: %s was configured with pkgconfig.relocatable=false (it "
              "predates the project's default): meson configure %s "
              "-Dpkgconfig.relocatable=true" % (BUILD, BUILD))
        return 77
    tmp = tempfile.mkdtemp(prefix="rpcrdma-install-")
    try:
        dest = os.path.join(tmp, "dest")
        if run(["meson", "install", "-C", BUILD, "--no-rebuild", "--quiet",
                "--destdir", dest], what="meson install") is None:
            return 1

        pc = find(dest, "rpcrdma.pc")
        if not check(pc is not None, "no rpcrdma.pc installed under %s" % dest):
            return 1
        text = open(pc).read()
        check(re.search(r"^prefix=\$\{pcfiledir\}", text, re.M),
              "rpcrdma.pc is not relocatable (prefix not under ${pcfiledir}):\n" + text)
        req = re.search(r"^Requires: (.*)$", text, re.M)
        check(req and "libdpdk" in req.group(1), "rpcrdma.pc does not require libdpdk")

        libdir = os.path.dirname(os.path.dirname(pc))
        so = os.path.join(libdir, "librpcrdma.so")
        ar = os.path.join(libdir, "librpcrdma.a")
        check(os.path.islink(so), "%s is not the development symlink" % so)
        check(os.path.isfile(ar), "no static library %s" % ar)
        dyn = run(["readelf", "-d", so], what="readelf -d")
        soname = re.search(r"\(SONAME\)\s+Library soname: \[(.*)\]", dyn or "")
        check(soname and re.fullmatch(r"librpcrdma\.so\.\d+\.\d+", soname.group(1)),
              "librpcrdma.so has no versioned soname: %r" % (soname and soname.group(1)))
        if soname:
            check(os.path.isfile(os.path.join(libdir, soname.group(1))),
                  "the soname %s is not installed in %s" % (soname.group(1), libdir))

        env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pc))
        # meson test points LD_LIBRARY_PATH at the build tree's librpcrdma:
        # the programs run with the installed one only.
        run_env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
        cflags = run(["pkg-config", "--cflags", "rpcrdma"], env=env)
        libs = run(["pkg-config", "--libs", "rpcrdma"], env=env)
        if cflags is None or libs is None:
            return 1
        incdir = find(dest, "rpcrdma_hdr.h")
        want_inc = os.path.dirname(os.path.dirname(incdir))
        check(any(a.startswith("-I") and os.path.normpath(a[2:]) == want_inc
                  for a in cflags.split()),
              "pkg-config --cflags does not name %s: %s" % (want_inc, cflags))

        # Every installed header compiles alone, as a user includes it.
        hdrs = sorted(os.listdir(os.path.dirname(incdir)))
        want = sorted(h for h in os.listdir(SRC_HEADERS) if h.endswith(".h"))
        check(hdrs == want, "installed headers differ from %s: missing %s, extra %s" % (
            SRC_HEADERS, sorted(set(want) - set(hdrs)), sorted(set(hdrs) - set(want))))
        for h in hdrs:
            src = os.path.join(tmp, "one.c")
            with open(src, "w") as f:
                f.write("#include <rpcrdma/%s>\n" % h)
            run([CC, "-c", "-Wall", "-Werror", "-o", os.path.join(tmp, "one.o"), src]
                + cflags.split(), what="compiling a file that includes only " + h)

        # The program, linked against the shared library.
        exe = os.path.join(tmp, "hello")
        if run([CC, "-o", exe, HELLO, "-Wl,-rpath," + libdir] + SAN + cflags.split()
               + libs.split(), what="cc hello_rpcrdma.c $(pkg-config ...)") is not None:
            needed = run(["readelf", "-d", exe], what="readelf -d hello") or ""
            check(soname and ("[%s]" % soname.group(1)) in needed,
                  "hello does not load librpcrdma by its soname")
            out = run([exe], env=run_env, what="hello (shared)")
            check(out and "xid 0x11223344" in out and "driver shm" in out,
                  "hello (shared) printed %r" % out)

        # The same program, librpcrdma.a linked whole, with DPDK shared and
        # the libraries rpcrdma.pc lists for a static link (Requires.private).
        private = run(["pkg-config", "--print-requires-private", "rpcrdma"], env=env) or ""
        private = [l.split()[0] for l in private.splitlines() if l.strip()]
        check("libibverbs" in private and "librdmacm" in private,
              "rpcrdma.pc does not list libibverbs and librdmacm for static links: %r" % private)
        deps = run(["pkg-config", "--libs", "libdpdk"] + private, env=env)
        exe_a = os.path.join(tmp, "hello-static")
        if deps is not None and run(
                [CC, "-o", exe_a, HELLO] + SAN + cflags.split()
                + ["-Wl,--whole-archive", ar, "-Wl,--no-whole-archive"] + deps.split()
                + ["-lpthread"], what="cc hello_rpcrdma.c librpcrdma.a") is not None:
            needed = run(["readelf", "-d", exe_a], what="readelf -d hello-static") or ""
            check("librpcrdma" not in needed, "hello-static loads librpcrdma.so")
            out = run([exe_a], env=run_env, what="hello (static)")
            check(out and "xid 0x11223344" in out and "driver shm" in out,
                  "hello (static) printed %r" % out)
    finally:
        shutil.rmtree(tmp)
    if failures:
        print("%d failed checks" % failures, file=sys.stderr)
        return 1
    print("install: %s, headers, rpcrdma.pc; shared and static programs ran"
          % (soname.group(1) if soname else "?"))
    return 0


sys.exit(main())
