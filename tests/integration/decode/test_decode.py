#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rpcrdma-decode end to end.

usage: test_decode.py RPCRDMA_DECODE MKPCAP

The messages are built here by hand from the XDR of RFC 8166, the version
two draft and the xcharext draft (not with the codec's encoders), written to
files, given as --hex, on stdin, and inside a RoCEv2 capture that mkpcap
writes with the codec's frame builder. Every JSON line is compared with the
expected object exactly: the same keys, the same values.
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

DECODE, MKPCAP = sys.argv[1], sys.argv[2]
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what, file=sys.stderr)


def check_eq(got, want, what):
    if got != want:
        check(False, "%s:\n   got  %r\n   want %r" % (what, got, want))


# ---------------------------------------------------------------- XDR

def u32(*vals):
    return b"".join(struct.pack(">I", v) for v in vals)


def u64(v):
    return struct.pack(">Q", v)


def opaque(data):
    return u32(len(data)) + data + b"\0" * (-len(data) % 4)


def seg(h, l, o):
    return u32(h, l) + u64(o)


def hdr(xid, vers, credit, proc):
    return u32(xid, vers, credit, proc)


def read_list(entries):
    return b"".join(u32(1, p) + seg(h, l, o) for p, h, l, o in entries) + u32(0)


def chunk(segs):
    return u32(len(segs)) + b"".join(seg(*s) for s in segs)


def write_list(chunks):
    return b"".join(u32(1) + chunk(c) for c in chunks) + u32(0)


def reply_chunk(segs):
    return u32(0) if segs is None else u32(1) + chunk(segs)


def j_seg(h, l, o):
    return {"handle": h, "length": l, "offset": o}


def rpc_call(xid, prog, vers, proc, cred=u32(0) + opaque(b"")):
    return u32(xid, 0, 2, prog, vers, proc) + cred + u32(0) + opaque(b"") + b"ARGS"


def authsys():
    body = u32(0x5eed) + opaque(b"host") + u32(1000, 100, 2, 100, 27)
    return u32(1) + opaque(body)


def rpc_accepted(xid, stat, extra=b""):
    return u32(xid, 1, 0) + u32(0) + opaque(b"") + u32(stat) + extra


def xcharval(which, data):
    return u32(which) + opaque(data)


# ---------------------------------------------------------------- messages

BIG = 0xfedcba9876543210  # an offset past 2^63: JSON must carry it exactly

MSGS = {}


def msg(name, raw, want):
    MSGS[name] = (raw, want)


msg("short_call",
    hdr(0x01020304, 1, 32, 0) + u32(0, 0, 0) + rpc_call(0xaabbccdd, 100003, 3, 1),
    {"xid": 0x01020304, "vers": 1, "credit": 32, "proc": "RDMA_MSG", "hdr_len": 28,
     "reads": [], "writes": [], "reply": None,
     "rpc": {"xid": 0xaabbccdd, "type": "CALL", "prog": 100003, "vers": 3, "proc": 1}})

chunked_hdr = (hdr(7, 1, 128, 0)
               + read_list([(4, 0x11, 8192, 0x1000), (4, 0x12, 100, BIG)])
               + write_list([[(0x21, 4096, 0x2000)], [(0x22, 1, 0), (0x23, 65536, BIG)]])
               + reply_chunk([(0x31, 1024, 0x3000)]))
msg("chunked", chunked_hdr + rpc_call(8, 100003, 4, 1, authsys()),
    {"xid": 7, "vers": 1, "credit": 128, "proc": "RDMA_MSG", "hdr_len": len(chunked_hdr),
     "reads": [{"position": 4, "handle": 0x11, "length": 8192, "offset": 0x1000},
               {"position": 4, "handle": 0x12, "length": 100, "offset": BIG}],
     "writes": [[j_seg(0x21, 4096, 0x2000)], [j_seg(0x22, 1, 0), j_seg(0x23, 65536, BIG)]],
     "reply": [j_seg(0x31, 1024, 0x3000)],
     "rpc": {"xid": 8, "type": "CALL", "prog": 100003, "vers": 4, "proc": 1}})

msg("nomsg_long_reply", hdr(9, 1, 16, 1) + u32(0, 0) + reply_chunk([(5, 6, 7), (8, 9, 10)]),
    {"xid": 9, "vers": 1, "credit": 16, "proc": "RDMA_NOMSG", "hdr_len": 64, "reads": [],
     "writes": [], "reply": [j_seg(5, 6, 7), j_seg(8, 9, 10)]})

msg("msgp", hdr(10, 1, 1, 2) + u32(1024, 4096) + u32(0, 0, 0),
    {"xid": 10, "vers": 1, "credit": 1, "proc": "RDMA_MSGP", "hdr_len": 36, "align": 1024,
     "thresh": 4096, "reads": [], "writes": [], "reply": None})

msg("done", hdr(11, 1, 2, 3),
    {"xid": 11, "vers": 1, "credit": 2, "proc": "RDMA_DONE", "hdr_len": 16})

msg("err_vers", hdr(12, 1, 0, 4) + u32(1, 1, 2),
    {"xid": 12, "vers": 1, "credit": 0, "proc": "RDMA_ERROR", "hdr_len": 28,
     "error": {"code": "ERR_VERS", "low": 1, "high": 2}})

msg("err_chunk", hdr(13, 1, 0, 4) + u32(2),
    {"xid": 13, "vers": 1, "credit": 0, "proc": "RDMA_ERROR", "hdr_len": 20,
     "error": {"code": "ERR_CHUNK"}})

msg("v2_err_inval_option", hdr(14, 2, 0, 4) + u32(3),
    {"xid": 14, "vers": 2, "credit": 0, "proc": "RDMA2_ERROR", "hdr_len": 20,
     "error": {"code": "RDMA2_ERR_INVAL_OPTION"}})

msg("v2_nomsg_reply", hdr(15, 2, 8, 1) + u32(1) + u32(0, 0) + reply_chunk([(1, 2, 3)]),
    {"xid": 15, "vers": 2, "credit": 8, "proc": "RDMA2_NOMSG", "hdr_len": 52,
     "direction": "REPLY", "reads": [], "writes": [], "reply": [j_seg(1, 2, 3)]})

initxch = (u32(5) + xcharval(1, u32(4096)) + xcharval(2, u32(0)) + xcharval(3, u32(1))
           + xcharval(77, b"abc") + xcharval(4294967040, u32(0xdeadbeef))
           + u32(1, 0b1001))
msg("v2_initxch", hdr(16, 2, 1, 5) + u32(0, 1) + opaque(initxch),
    {"xid": 16, "vers": 2, "credit": 1, "proc": "RDMA2_OPTIONAL",
     "hdr_len": 28 + len(initxch),
     "optional": {"optdir": "CALL", "opttype": "ROPT_INITXCH", "optinfo": {
         "start": {"XCHAR_RBSIZ": 4096, "XCHAR_REQREMINV": False,
                   "XCHAR_BRS": "BKREQSUP_INLINE", "77": "616263",
                   "4294967040": "deadbeef"},
         "nochg": [0, 3]}}})

reqxch = u32(1) + xcharval(1, u32(65536))
msg("v2_reqxch", hdr(17, 2, 1, 5) + u32(0, 2) + opaque(reqxch),
    {"xid": 17, "vers": 2, "credit": 1, "proc": "RDMA2_OPTIONAL", "hdr_len": 28 + len(reqxch),
     "optional": {"optdir": "CALL", "opttype": "ROPT_REQXCH",
                  "optinfo": {"want": {"XCHAR_RBSIZ": 65536}}}})

respxch = u32(1, 1) + u32(0) + u32(1, 0x80000002)
msg("v2_respxch", hdr(18, 2, 1, 5) + u32(1, 3) + opaque(respxch),
    {"xid": 18, "vers": 2, "credit": 1, "proc": "RDMA2_OPTIONAL", "hdr_len": 28 + len(respxch),
     "optional": {"optdir": "REPLY", "opttype": "ROPT_RESPXCH",
                  "optinfo": {"done": [0], "rej": [], "pend": [1, 31]}}})

updxch = xcharval(2, u32(1)) + u32(1)
msg("v2_updxch_with_rpc",
    hdr(19, 2, 1, 5) + u32(1, 4) + opaque(updxch) + rpc_accepted(19, 4),
    {"xid": 19, "vers": 2, "credit": 1, "proc": "RDMA2_OPTIONAL", "hdr_len": 28 + len(updxch),
     "optional": {"optdir": "REPLY", "opttype": "ROPT_UPDXCH",
                  "optinfo": {"now": {"XCHAR_REQREMINV": True}, "pendclr": True}},
     "rpc": {"xid": 19, "type": "REPLY", "stat": "MSG_ACCEPTED",
             "accept_stat": "GARBAGE_ARGS"}})

msg("v2_unknown_opttype", hdr(20, 2, 1, 5) + u32(1, 9) + opaque(b"\x01\x02\x03"),
    {"xid": 20, "vers": 2, "credit": 1, "proc": "RDMA2_OPTIONAL", "hdr_len": 32,
     "optional": {"optdir": "REPLY", "opttype": 9, "optinfo": "010203"}})

V1_MSG = hdr(21, 1, 32, 0) + u32(0, 0, 0)
msg("reply_success", V1_MSG + rpc_accepted(21, 0) + b"RESULTS!",
    {"xid": 21, "vers": 1, "credit": 32, "proc": "RDMA_MSG", "hdr_len": 28, "reads": [],
     "writes": [], "reply": None,
     "rpc": {"xid": 21, "type": "REPLY", "stat": "MSG_ACCEPTED", "accept_stat": "SUCCESS"}})

msg("reply_prog_mismatch", V1_MSG + rpc_accepted(22, 2, u32(2, 3)),
    {"xid": 21, "vers": 1, "credit": 32, "proc": "RDMA_MSG", "hdr_len": 28, "reads": [],
     "writes": [], "reply": None,
     "rpc": {"xid": 22, "type": "REPLY", "stat": "MSG_ACCEPTED",
             "accept_stat": "PROG_MISMATCH", "low": 2, "high": 3}})

msg("reply_rpc_mismatch", V1_MSG + u32(23, 1, 1, 0, 2, 2),
    {"xid": 21, "vers": 1, "credit": 32, "proc": "RDMA_MSG", "hdr_len": 28, "reads": [],
     "writes": [], "reply": None,
     "rpc": {"xid": 23, "type": "REPLY", "stat": "MSG_DENIED",
             "reject_stat": "RPC_MISMATCH", "low": 2, "high": 2}})

msg("reply_auth_error", V1_MSG + u32(24, 1, 1, 1, 5),
    {"xid": 21, "vers": 1, "credit": 32, "proc": "RDMA_MSG", "hdr_len": 28, "reads": [],
     "writes": [], "reply": None,
     "rpc": {"xid": 24, "type": "REPLY", "stat": "MSG_DENIED", "reject_stat": "AUTH_ERROR",
             "auth_stat": 5}})

# Messages that cannot be decoded, and the error name the reason starts with.
BAD = {
    "bad_vers": (hdr(30, 3, 1, 0) + u32(0, 0, 0), "VERS: "),
    "bad_trunc": (hdr(31, 1, 1, 0) + u32(1, 0), "TRUNC: "),
    "bad_proc": (hdr(32, 2, 1, 2), "PROC: "),
    "bad_rpcvers": (V1_MSG + u32(33, 0, 3, 1, 1, 1) + u32(0, 0, 0, 0), "RPCVERS: "),
    "bad_msg_no_rpc": (V1_MSG, "TRUNC: "),
    "bad_xchar_len": (hdr(34, 2, 1, 5) + u32(0, 2) + opaque(u32(1) + xcharval(1, u64(1))),
                      "XCHAR_LEN: "),
}


# ---------------------------------------------------------------- running

def run(args, stdin=b""):
    p = subprocess.run([DECODE] + args, input=stdin, capture_output=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def json_lines(out):
    lines = out.decode("utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_files(d):
    names = list(MSGS)
    rc, out, err = run(["--json"] + [os.path.join(d, n) for n in names])
    check_eq(rc, 0, "files: exit status (stderr %r)" % err)
    got = json_lines(out)
    check_eq(len(got), len(names), "files: one line per message")
    for name, obj in zip(names, got):
        check_eq(obj, MSGS[name][1], "files: " + name)


def test_hex_and_stdin():
    raw, want = MSGS["chunked"]
    h = raw.hex()
    spaced = " ".join(h[i:i + 8] for i in range(0, len(h), 8))
    colons = ":".join(h[i:i + 2] for i in range(0, len(h), 2)).upper()
    rc, out, _ = run(["--json", "--hex", spaced, "--hex=" + colons])
    check_eq(rc, 0, "--hex: exit status")
    check_eq(json_lines(out), [want, want], "--hex with spaces, colons, upper case")

    rc, out, _ = run(["--json", "-"], stdin=raw)
    check_eq(rc, 0, "stdin: exit status")
    check_eq(json_lines(out), [want], "stdin")


def test_pcap(d):
    f = lambda n: os.path.join(d, n)
    cap = f("capture.pcap")
    items = ["arp", "send:" + f("short_call"), "write:" + f("chunked"), "readreq",
             "sendinv:" + f("chunked"), "readresp:" + f("done"), "ack",
             "send:" + f("v2_initxch"), "send:" + f("err_vers")]
    subprocess.run([MKPCAP, cap] + items, check=True)
    rc, out, err = run(["--json", "--pcap", cap])
    check_eq(rc, 0, "pcap: exit status (stderr %r)" % err)
    want = [MSGS[n][1] for n in ("short_call", "chunked", "v2_initxch", "err_vers")]
    check_eq(json_lines(out), want, "pcap: only the SEND payloads, in order")

    rc, out, _ = run(["--pcap", cap])
    lines = out.decode().splitlines()
    check_eq(len(lines), 4, "pcap text: lines")
    check(lines and lines[0].startswith("frame 2: RDMA_MSG xid=0x01020304"),
          "pcap text names the frame: %r" % lines[:1])

    # pcapng, as Wireshark writes it, decodes the same.
    if shutil.which("editcap"):
        ng = f("capture.pcapng")
        subprocess.run(["editcap", "-F", "pcapng", cap, ng], check=True)
        rc, out, _ = run(["--json", "--pcap", ng])
        check_eq(rc, 0, "pcapng: exit status")
        check_eq(json_lines(out), want, "pcapng: same messages")
    else:
        print("editcap not found: pcapng end-to-end check skipped")

    # A frame with a bad ICRC is an error; the frames around it still decode.
    bad = f("bad.pcap")
    subprocess.run([MKPCAP, bad, "send:" + f("done"), "badicrc:" + f("done"),
                    "send:" + f("err_chunk")], check=True)
    rc, out, _ = run(["--json", "--pcap", bad])
    check_eq(rc, 1, "bad pcap: exit status")
    got = json_lines(out)
    check_eq(len(got), 3, "bad pcap: lines")
    if len(got) == 3:
        check_eq(got[0], MSGS["done"][1], "bad pcap: first frame")
        check_eq(list(got[1]), ["error"], "bad pcap: error object")
        check(got[1]["error"].startswith("ROCE_ICRC: ") and "frame 2" in got[1]["error"],
              "bad pcap: reason %r" % got[1]["error"])
        check_eq(got[2], MSGS["err_chunk"][1], "bad pcap: third frame")

    # Not a capture at all.
    rc, out, _ = run(["--json", "--pcap", f("done")])
    check_eq(rc, 1, "not a capture: exit status")
    got = json_lines(out)
    check(len(got) == 1 and list(got[0]) == ["error"] and
          "cannot read capture" in got[0]["error"] and "unknown file format" in got[0]["error"],
          "not a capture: %r" % got)

    # A capture cut inside its last frame: the frames before it decode, then
    # libpcap's reason, with the frame after which the file went wrong.
    cut = f("cut.pcap")
    with open(bad, "rb") as src, open(cut, "wb") as dst:
        dst.write(src.read()[:-10])
    rc, out, _ = run(["--json", "--pcap", cut])
    got = json_lines(out)
    check(rc == 1 and len(got) == 3 and got[0] == MSGS["done"][1] and
          list(got[2]) == ["error"] and "after frame 2: truncated" in got[2]["error"],
          "cut capture: exit %d, %r" % (rc, got))


def test_errors(d):
    args = ["--json"]
    for name in BAD:
        args.append(os.path.join(d, name))
        args.append(os.path.join(d, "done"))
    rc, out, _ = run(args)
    check_eq(rc, 1, "errors: exit status 1")
    got = json_lines(out)
    check_eq(len(got), 2 * len(BAD), "errors: one line per input")
    if len(got) != 2 * len(BAD):
        return
    for i, (name, (_, prefix)) in enumerate(BAD.items()):
        e, ok = got[2 * i], got[2 * i + 1]
        check_eq(list(e), ["error"], name + ": only the error key")
        check(isinstance(e.get("error"), str) and e["error"].startswith(prefix),
              "%s: reason %r starts with %r" % (name, e.get("error"), prefix))
        check_eq(ok, MSGS["done"][1], name + ": the next message still decodes")

    # Text mode: a clear error line, same exit status.
    rc, out, _ = run([os.path.join(d, "bad_vers"), os.path.join(d, "short_call")])
    lines = out.decode().splitlines()
    check_eq(rc, 1, "text errors: exit status")
    check(len(lines) == 2 and lines[0].startswith("error: ") and "VERS" in lines[0],
          "text error line: %r" % lines)
    check(len(lines) == 2 and lines[1].startswith("RDMA_MSG xid=0x01020304 vers=1 credit=32")
          and "RPC xid=0xaabbccdd CALL prog=100003 vers=3 proc=1" in lines[1],
          "text line: %r" % lines)

    # Files that cannot be read; a name that needs JSON escaping.
    weird = os.path.join(os.fsencode(d), b'no "such"\\file\n\xff\xc3\xa9')
    big = os.path.join(d, "big")
    with open(big, "wb") as fp:
        fp.truncate((16 << 20) + 1)
    p = subprocess.run([DECODE, "--json", weird, big], capture_output=True, timeout=60)
    check_eq(p.returncode, 1, "unreadable: exit status")
    got = json_lines(p.stdout)
    check_eq(len(got), 2, "unreadable: lines")
    if len(got) == 2:
        check('no "such"\\file\n\ufffd\u00e9' in got[0]["error"],
              "escaped file name: %r" % got[0])
        check("16 MiB" in got[1]["error"], "size cap: %r" % got[1])
    os.unlink(big)


def test_options():
    for args in (["--bogus"], ["--hex"], ["--pcap"], ["--hex", "zz"], ["--hex", "123"],
                 ["-x"], []):
        rc, out, err = run(args)
        check_eq(rc, 2, "bad options %r: exit status" % args)
        check_eq(out, b"", "bad options %r: nothing on stdout" % args)
        check(b"usage: rpcrdma-decode" in err, "bad options %r: usage on stderr" % args)
    rc, out, _ = run(["--help"])
    check_eq(rc, 0, "--help: exit status")
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES"):
        check(("\n" + section + "\n").encode() in b"\n" + out, "--help has " + section)


def test_samples():
    rc, out, _ = run(["--json", "--samples"])
    check_eq(rc, 0, "--samples: exit status")
    got = json_lines(out)
    check_eq([(o["vers"], o["proc"]) for o in got],
             [(1, "RDMA_MSG"), (1, "RDMA_MSG"), (1, "RDMA_NOMSG"), (1, "RDMA_ERROR"),
              (2, "RDMA2_OPTIONAL"), (2, "RDMA2_MSG"), (1, "RDMA_MSG")], "--samples: kinds")
    if len(got) == 7:
        check_eq(got[3]["error"], {"code": "ERR_VERS", "low": 1, "high": 1}, "sample ERR_VERS")
        check_eq(got[4]["optional"]["opttype"], "ROPT_INITXCH", "sample INITXCH")
        check_eq(got[6]["rpc"]["type"], "REPLY", "sample reply")
        check_eq(len(got[1]["reads"]), 2, "sample chunked call")
    rc, out, _ = run(["--samples"])
    check(rc == 0 and len(out.decode().splitlines()) == 7, "--samples text")


def main():
    d = tempfile.mkdtemp(prefix="rpcrdma-decode-")
    try:
        for name, (raw, _) in list(MSGS.items()) + [(n, (r, None)) for n, (r, _) in
                                                    BAD.items()]:
            with open(os.path.join(d, name), "wb") as fp:
                fp.write(raw)
        test_files(d)
        test_hex_and_stdin()
        test_pcap(d)
        test_errors(d)
        test_options()
        test_samples()
    finally:
        shutil.rmtree(d)
    if failures:
        print("%d check(s) failed" % failures, file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
