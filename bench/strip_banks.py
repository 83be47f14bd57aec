#!/usr/bin/env python3
"""Shared-memory wavefronts of one subgroup read in large_radius's column
strip (passes/shaders/gaussian_blur_recursive.comp, Slot for columns): a
model, not a measurement. Lane l of a subgroup reads pixel base + l·chunk of
one of the strip's two interleaved columns; a read costs as many wavefronts
as the most distinct 4-byte words any of the 32 banks must serve. Averaged
over 64 bases and both columns, for 8- and 16-byte pixels, with the spare
slots every 16 px (before 2026-11-28) and one per chunk (since).
Usage: python3 bench/strip_banks.py
"""

LINES = 2      # columns a workgroup
LANES = 32     # the H100's subgroup
BANKS = 32


def wavefronts(slots, words_per_pixel):
    banks = {}
    for slot in slots:
        for k in range(words_per_pixel):
            word = slot * words_per_pixel + k
            banks.setdefault(word % BANKS, set()).add(word)
    return max(len(words) for words in banks.values())


def mean_wavefronts(spare, chunk, words_per_pixel):
    total = count = 0
    for base in range(64):
        for line in range(LINES):
            pixels = [base + lane * chunk for lane in range(LANES)]
            slots = [i * LINES + line + spare(i, chunk) for i in pixels]
            total += wavefronts(slots, words_per_pixel)
            count += 1
    return total / count


SPARES = {
    "one per 16 px": lambda i, chunk: i >> 4,
    "one per chunk": lambda i, chunk: i // chunk,
}

if __name__ == "__main__":
    print("chunk  pixel bytes  least  " + "  ".join(SPARES))
    for chunk in (12, 14, 15, 16):
        for words in (2, 4):
            cells = "  ".join(f"{mean_wavefronts(f, chunk, words):13.2f}" for f in SPARES.values())
            print(f"{chunk:5d}  {4 * words:11d}  {words:5d}  {cells}")
