#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check that the library's layers depend one way (DEVELOPERS.md, "Layers").

    check-layers.py SRCDIR [LIB.a ...]

1. Includes. Every file of the library (engine/, mempool/, pmd/) belongs to
   the layer of its folder, and every public header (include/rpcrdma/) to the
   layer that implements it. A file may include headers of its own layer and
   of the layers below it, never above; a quoted include ("x.h") must name a
   file of its own folder (or of the folder above, in the same layer).
2. Calls (with the static libraries given). From the objects' defined and
   undefined symbols (nm), the calls between components: a component is a
   file, except that the files of engine/xprt/ are one component (one
   connection engine split by concern, sharing xprt_int.h). No call may go
   up a layer, and no two components may call each other, directly or
   through others (a circle).

Prints each violation with the file and the include or symbol, and exits 1
when there is one; 0 with a one-line summary otherwise.
"""
import os
import re
import subprocess
import sys

# Lowest first: a layer may use itself and the layers before it.
LAYERS = ["codec", "pmd", "mempool", "rt", "xprt", "svc"]

# Folders of the library, most specific first.
FOLDERS = [
    ("engine/codec/", "codec"),
    ("pmd/", "pmd"),
    ("mempool/", "mempool"),
    ("engine/rt/", "rt"),
    ("engine/xprt/", "xprt"),
    ("engine/svc/", "svc"),
]

# Public headers: the layer that implements each.
HEADERS = {
    "rpcrdma_bkchan.h": "codec",
    "rpcrdma_credit.h": "codec",
    "rpcrdma_errno.h": "codec",
    "rpcrdma_hdr.h": "codec",
    "rpcrdma_marshal.h": "codec",
    "rpcrdma_mount3.h": "codec",
    "rpcrdma_nfs3.h": "codec",
    "rpcrdma_pdata.h": "codec",
    "rpcrdma_roce.h": "codec",
    "rpcrdma_rpc.h": "codec",
    "rpcrdma_vers.h": "codec",
    "rpcrdma_wire.h": "codec",
    "rpcrdma_xchar.h": "codec",
    "rpcrdma_xchar_state.h": "codec",
    "rpcrdma_xdr.h": "codec",
    "rpcrdma_capture.h": "pmd",
    "rpcrdma_pmd.h": "pmd",
    "rpcrdma_pmd_driver.h": "pmd",
    "rpcrdma_shm.h": "pmd",
    "rpcrdma_stamp.h": "pmd",
    "rpcrdma_verbs.h": "pmd",
    "rpcrdma_mempool.h": "mempool",
    "rpcrdma_rt.h": "rt",
    "rpcrdma_telemetry.h": "rt",
    "rpcrdma_xprt.h": "xprt",
    "rpcrdma_svc.h": "svc",
    "rpcrdma_xprt_svc.h": "svc",
}

# Components of more than one file (see the docstring).
COMPONENTS = [("engine/xprt/", "engine/xprt/")]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def layer_of(path):
    for prefix, layer in FOLDERS:
        if path.startswith(prefix):
            return layer
    return None


def rank(layer):
    return LAYERS.index(layer)


def check_includes(src, errors):
    files = 0
    for top in ("engine", "mempool", "pmd", "include/rpcrdma"):
        for dirpath, _, names in os.walk(os.path.join(src, top)):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), src)
                if path.startswith("include/rpcrdma/"):
                    me = HEADERS.get(name)
                    if me is None:
                        errors.append(f"{path}: a public header with no layer in {sys.argv[0]}")
                        continue
                else:
                    me = layer_of(path)
                    if me is None:
                        continue
                files += 1
                text = open(os.path.join(src, path), encoding="utf-8").read()
                for m in INCLUDE.finditer(text):
                    kind, inc = m.groups()
                    line = text.count("\n", 0, m.start()) + 1
                    where = f"{path}:{line}"
                    if kind == '"':
                        target = os.path.normpath(os.path.join(os.path.dirname(path), inc))
                        if not os.path.exists(os.path.join(src, target)):
                            continue  # generated in the build directory (verbs_config.h)
                        if layer_of(target) != me:
                            errors.append(f'{where}: "{inc}" is a file of another layer '
                                          f"({layer_of(target)})")
                        continue
                    if not inc.startswith("rpcrdma/"):
                        continue  # libc, DPDK, rdma-core
                    other = HEADERS.get(os.path.basename(inc))
                    if other is None:
                        errors.append(f"{where}: <{inc}> has no layer in {sys.argv[0]}")
                    elif rank(other) > rank(me):
                        errors.append(f"{where}: the {me} layer includes <{inc}> of the "
                                      f"{other} layer above it")
    return files


def component(obj_path):
    for prefix, name in COMPONENTS:
        if obj_path.startswith(prefix):
            return name
    return obj_path


def object_source(member):
    # meson names an object after its source path: engine_xprt_xprt_req.c.o
    member = os.path.basename(member)
    return member[:-2] if member.endswith(".o") else member


def check_calls(src, libs, errors):
    # the library's sources by meson's flattened object name
    flat = {}
    for prefix, _ in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(src, prefix)):
            for name in names:
                if name.endswith(".c"):
                    rel = os.path.relpath(os.path.join(dirpath, name), src)
                    flat[rel.replace("/", "_")] = rel
    defined, needs = {}, {}
    for lib in libs:
        out = subprocess.run(["nm", "-A", "--defined-only", "-g", lib], check=True,
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            m = re.match(r"^[^:]+:([^:]+):\S*\s+([A-Za-z])\s+(\S+)$", line)
            if m and m.group(2) in "TDBRV" and object_source(m.group(1)) in flat:
                defined[m.group(3)] = flat[object_source(m.group(1))]
        out = subprocess.run(["nm", "-A", "-u", lib], check=True, capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            m = re.match(r"^[^:]+:([^:]+):\s+U\s+(\S+)$", line)
            if m and object_source(m.group(1)) in flat:
                needs.setdefault(flat[object_source(m.group(1))], set()).add(m.group(2))
    graph = {}
    for path, syms in needs.items():
        a = component(path)
        for sym in syms:
            target = defined.get(sym)
            if target is None:
                continue  # libc, DPDK, rdma-core
            b = component(target)
            if a == b:
                continue
            graph.setdefault(a, {}).setdefault(b, sym)
            la, lb = layer_of(path), layer_of(target)
            if rank(lb) > rank(la):
                errors.append(f"{path} ({la}) calls {sym}() of {target} ({lb}), a layer above")
    # circles: strongly connected components of more than one node (Tarjan)
    index, low, stack, on, sccs = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                sccs.append(sorted(scc))

    sys.setrecursionlimit(10000)
    for v in sorted(set(graph) | {w for e in graph.values() for w in e}):
        if v not in index:
            visit(v)
    for scc in sccs:
        calls = [f"{a} -> {b} ({graph[a][b]})" for a in scc for b in graph.get(a, {})
                 if b in scc]
        errors.append("a circle: " + "; ".join(calls))
    return sum(len(e) for e in graph.values())


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    src = sys.argv[1]
    errors = []
    files = check_includes(src, errors)
    edges = check_calls(src, sys.argv[2:], errors) if len(sys.argv) > 2 else None
    for e in errors:
        print(e)
    if errors:
        print(f"check-layers: {len(errors)} violation(s)")
        return 1
    calls = f", {edges} calls between components, no circle" if edges is not None else ""
    print(f"check-layers: {files} files, includes one way{calls}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
