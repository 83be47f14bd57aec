#!/usr/bin/env python3
"""CPU time of a process by thread name, to see which stage spends it.

  thread_cpu.py snap PID FILE              # records every thread's CPU now
  thread_cpu.py diff PID FILE ANSWERS      # CPU-ms per answer since the snap

Threads are grouped by name (/proc/PID/task/TID/comm; rgfx-server names its
own: rgfx-cpu, rgfx-gpu, rgfx-inflate, rgfx-deflate, rgfx-trim; gRPC names
its threads too). A thread that ended between the two calls leaves no
entry of its own: its CPU shows as "(threads that ended)", the process's
total less what the living threads account for.
"""
import json
import os
import sys

HZ = os.sysconf("SC_CLK_TCK")


def ticks(stat_path):
    with open(stat_path) as f:
        text = f.read()
    # Fields after the ")" that closes the name: utime is field 14, stime 15.
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[11]) + int(fields[12])


def snapshot(pid):
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            threads[tid] = [name, ticks(f"/proc/{pid}/task/{tid}/stat")]
        except OSError:
            continue  # ended while we looked
    return {"process": ticks(f"/proc/{pid}/stat"), "threads": threads}


def main():
    mode, pid, path = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "snap":
        with open(path, "w") as f:
            json.dump(snapshot(pid), f)
        return
    answers = max(1, int(sys.argv[4]))
    with open(path) as f:
        before = json.load(f)
    now = snapshot(pid)
    by_name, counted = {}, 0
    for tid, (name, t) in now["threads"].items():
        spent = t - before["threads"].get(tid, [name, 0])[1]
        by_name.setdefault(name, [0, 0])
        by_name[name][0] += spent
        by_name[name][1] += 1
        counted += spent
    # The process's own figure includes threads that have ended (those born
    # and gone since the snap, and those alive then and gone now).
    ended = (now["process"] - before["process"]) - counted
    rows = sorted(by_name.items(), key=lambda kv: -kv[1][0])
    rows.append(("(threads that ended)", [ended, 0]))
    total = now["process"] - before["process"]
    print(f"{'thread name':<22} {'threads':>7} {'CPU-ms/answer':>14} {'share':>6}")
    for name, (spent, n) in rows:
        if spent <= 0:
            continue
        ms = 1e3 * spent / HZ / answers
        print(f"{name:<22} {n:>7} {ms:>14.2f} {100 * spent / max(1, total):>5.1f}%")
    print(f"{'total':<22} {'':>7} {1e3 * total / HZ / answers:>14.2f}")


if __name__ == "__main__":
    main()
