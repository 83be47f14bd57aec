#!/usr/bin/env python3
"""Machine code of our Vulkan pipelines, out of the NVIDIA driver's disk cache.

Nsight Compute does not profile Vulkan, and the driver's pipeline statistics
give only register counts and sizes; but the driver keeps every compiled
pipeline in its shader disk cache (__GL_SHADER_DISK_CACHE_PATH). Each cache
file (*.bin, magic "CDVN") holds zstd frames; a frame that decompresses to an
"NVDANVVM" blob carries a section table whose first entry is the machine
code: a u32 size at byte 0x4C and its offset at 0x50, the offset counted from
byte 8 of the blob. That size is the "Binary Size" the bench prints for each
pipeline, which is how a dump is matched to its pipeline. The code is raw
Hopper instructions (16 bytes each), which `nvdisasm --binary SM90` reads.
(Layout found by inspection on driver 580.159; nothing here is documented by
NVIDIA, so the script says what it could not parse instead of guessing.)

Usage (on the GPU machine, where nvdisasm and a zstd decoder are):
  nv_cache_sass.py CACHE_DIR OUT_DIR [--arch SM90]   (nvdisasm's --binary name)
Writes OUT_DIR/<binary size>-<n>.sass (disassembly) and OUT_DIR/summary.txt
(per dump: size, instruction count, registers named, and the count of each
opcode, FFMA, HMMA, LDS, LDG, BAR and the like).
"""
import argparse
import collections
import os
import re
import shutil
import struct
import subprocess

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def decompress(frame):
    """One zstd frame (trailing bytes ignored), through whichever decoder exists."""
    try:
        import zstandard  # type: ignore
        return zstandard.ZstdDecompressor().decompressobj().decompress(frame)
    except ImportError:
        pass
    # scripts/gpu/bundle packs Debian's zstd for machines that have none.
    zstd = shutil.which("zstd") or os.environ.get("ZSTD", ".dev/bin/zstd")
    # zstd -c writes the first frame and then fails on what follows it.
    run = subprocess.run([zstd, "-q", "-d", "-c"], input=frame, capture_output=True)
    return run.stdout


def frames(data):
    starts = []
    i = data.find(ZSTD_MAGIC)
    while i >= 0:
        starts.append(i)
        i = data.find(ZSTD_MAGIC, i + 1)
    for k, s in enumerate(starts):
        yield data[s:starts[k + 1] if k + 1 < len(starts) else len(data)]


def code_of(blob):
    """The machine code of an NVDANVVM blob, or None."""
    if not blob.startswith(b"NVDANVVM") or len(blob) < 0x54:
        return None
    size, offset = struct.unpack_from("<II", blob, 0x4C)
    begin = 8 + offset
    if size == 0 or size % 16 or begin + size > len(blob):
        return None
    return blob[begin:begin + size]


def summarize(text):
    ops = collections.Counter()
    regs = set()
    count = 0
    for line in text.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)(.*);", line)
        if not m:
            continue
        count += 1
        ops[m.group(2).split(".")[0]] += 1
        regs.update(int(r) for r in re.findall(r"\bR(\d+)\b", m.group(3)))
    return count, (max(regs) + 1 if regs else 0), ops


def main():
    parser = argparse.ArgumentParser(description="Disassemble the NVIDIA shader disk cache.")
    parser.add_argument("cache")
    parser.add_argument("out")
    parser.add_argument("--arch", default="SM90")
    args = parser.parse_args()
    cache, out, arch = args.cache, args.out, args.arch
    if shutil.which("nvdisasm") is None:
        raise SystemExit("nvdisasm not found: run this on the GPU machine (CUDA's tools)")
    os.makedirs(out, exist_ok=True)
    lines = []
    seen = collections.Counter()
    for root, _, files in os.walk(cache):
        for name in sorted(files):
            if not name.endswith(".bin"):
                continue
            data = open(os.path.join(root, name), "rb").read()
            for frame in frames(data):
                code = code_of(decompress(frame))
                if code is None:
                    continue
                seen[len(code)] += 1
                stem = "%d-%d" % (len(code), seen[len(code)])
                raw = os.path.join(out, stem + ".code")
                open(raw, "wb").write(code)
                dis = subprocess.run(["nvdisasm", "--binary", arch, "--print-instruction-encoding", raw],
                                     capture_output=True, text=True)
                text = dis.stdout if dis.returncode == 0 else dis.stderr
                open(os.path.join(out, stem + ".sass"), "w").write(text)
                count, regs, ops = summarize(dis.stdout)
                top = " ".join("%s %d" % kv for kv in ops.most_common(16))
                named = "registers R0..R%d named" % (regs - 1) if regs else "no registers named"
                lines.append("%s: binary size %d, %d instructions, %s; %s" %
                             (stem, len(code), count, named, top))
    lines.sort(key=lambda l: int(l.split("-")[0]))
    open(os.path.join(out, "summary.txt"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines) if lines else "no machine code found under " + cache)


if __name__ == "__main__":
    main()
