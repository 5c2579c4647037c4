#!/usr/bin/env python3
"""RUSTC_WRAPPER that records the CPU time of the rustc compiling one crate.

Cargo calls `rustc_rusage.py RUSTC ARGS...`. When `--crate-name` is MEASURE_CRATE, the wrapper
runs rustc as a child, reads its resource usage (`wait4`: user and system CPU time, peak RSS) and
appends one line `user sys maxrss_kb wall` to MEASURE_LOG; MEASURE_RUSTFLAGS (space-separated)
is appended to that rustc's arguments only (e.g. `-Ztime-passes`, with RUSTC_BOOTSTRAP=1 set for
it alone), so the dependencies' fingerprints stay as they are; MEASURE_PREFIX (space-separated)
is put before it, e.g. `valgrind --tool=cachegrind --cache-sim=no` for an instruction count that
does not depend on the machine's load. Other crates run unwrapped (exec).
"""
import os, sys, time

def main():
    args = sys.argv[1:]
    crate = None
    for i, a in enumerate(args):
        if a == "--crate-name" and i + 1 < len(args):
            crate = args[i + 1]
    target = os.environ.get("MEASURE_CRATE")
    if not target or crate != target:
        os.execvp(args[0], args)
    extra = os.environ.get("MEASURE_RUSTFLAGS", "").split()
    prefix = os.environ.get("MEASURE_PREFIX", "").split()
    env = dict(os.environ)
    if extra:
        env["RUSTC_BOOTSTRAP"] = "1"
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        cmd = prefix + args + extra
        os.execvpe(cmd[0], cmd, env)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - start
    log = os.environ.get("MEASURE_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"{ru.ru_utime:.4f} {ru.ru_stime:.4f} {ru.ru_maxrss} {wall:.4f}\n")
    sys.exit(os.waitstatus_to_exitcode(status))

if __name__ == "__main__":
    main()
