// A kernel's phases, clocked from inside it (benchmarks only:
// rgfx-gpu-bench --phase_clock, tests/bench/phase_clock.h). In a build with
// PHASE_CLOCK, invocation 0 of each workgroup reads the clock at the
// kernel's phase boundaries (PHASE_START at entry, PHASE_MARK after each
// phase, PHASE_END once its stores are issued) and writes a record of nine
// pixels at phase_records[9 · workgroup] (binding 3, in the working format):
// 36 values, each one byte of what it measured, so that every value passes
// exactly through RGBA16F as through RGBA32F:
//   1 (written), the multiprocessor (2 bytes), the start clock (4), the
//   realtime clock at start (4) and at end (4), then staged, computed,
//   outputs staged, end, swept and scanned (3 bytes each): clocks after the
//   start (the input in shared memory; the arithmetic done; the outputs in
//   shared memory for coalesced stores; the stores issued; within the
//   arithmetic of a kernel that sweeps, scans and sweeps again, the first
//   sweep done and the scan done), at most 2^24 − 1 (0: the path has no
//   such phase), then three 0.
// Bytes most significant first. The clock is the subgroup's (the
// multiprocessor's on NVIDIA, in cycles), the realtime one the device's.
// SM_BUILTINS: the multiprocessor from GL_NV_shader_sm_builtins (0
// without).
#ifdef PHASE_CLOCK
#extension GL_ARB_shader_clock : require
#extension GL_EXT_shader_realtime_clock : require
#ifdef SM_BUILTINS
#extension GL_NV_shader_sm_builtins : require
#define PHASE_MULTIPROCESSOR gl_SMIDNV
#else
#define PHASE_MULTIPROCESSOR 0u
#endif
WORKING_BUFFER(3, writeonly, phase_records);
uint phase_start, phase_realtime, phase_staged, phase_computed, phase_outputs, phase_swept,
    phase_scanned;

// Byte k (0: the least significant) of v, as a float.
float PhaseByte(uint v, uint k) { return float((v >> (8u * k)) & 0xffu); }

void PhaseWrite(uint at, uint end, uint realtime_end) {
  const uint staged = min(phase_staged, 0xffffffu), computed = min(phase_computed, 0xffffffu);
  const uint outputs = min(phase_outputs, 0xffffffu), last = min(end, 0xffffffu);
  const uint swept = min(phase_swept, 0xffffffu), scanned = min(phase_scanned, 0xffffffu);
  const uint sm = PHASE_MULTIPROCESSOR, s = phase_start, r = phase_realtime;
  STORE_PIXEL(phase_records, at, vec4(1.0, PhaseByte(sm, 1u), PhaseByte(sm, 0u), PhaseByte(s, 3u)));
  STORE_PIXEL(phase_records, at + 1u,
              vec4(PhaseByte(s, 2u), PhaseByte(s, 1u), PhaseByte(s, 0u), PhaseByte(r, 3u)));
  STORE_PIXEL(phase_records, at + 2u,
              vec4(PhaseByte(r, 2u), PhaseByte(r, 1u), PhaseByte(r, 0u), PhaseByte(realtime_end, 3u)));
  STORE_PIXEL(phase_records, at + 3u,
              vec4(PhaseByte(realtime_end, 2u), PhaseByte(realtime_end, 1u),
                   PhaseByte(realtime_end, 0u), PhaseByte(staged, 2u)));
  STORE_PIXEL(phase_records, at + 4u, vec4(PhaseByte(staged, 1u), PhaseByte(staged, 0u),
                                           PhaseByte(computed, 2u), PhaseByte(computed, 1u)));
  STORE_PIXEL(phase_records, at + 5u, vec4(PhaseByte(computed, 0u), PhaseByte(outputs, 2u),
                                           PhaseByte(outputs, 1u), PhaseByte(outputs, 0u)));
  STORE_PIXEL(phase_records, at + 6u, vec4(PhaseByte(last, 2u), PhaseByte(last, 1u),
                                           PhaseByte(last, 0u), PhaseByte(swept, 2u)));
  STORE_PIXEL(phase_records, at + 7u, vec4(PhaseByte(swept, 1u), PhaseByte(swept, 0u),
                                           PhaseByte(scanned, 2u), PhaseByte(scanned, 1u)));
  STORE_PIXEL(phase_records, at + 8u, vec4(PhaseByte(scanned, 0u), 0.0, 0.0, 0.0));
}

#define PHASE_START()                        \
  phase_start = clock2x32ARB().x;            \
  phase_realtime = clockRealtime2x32EXT().x; \
  phase_staged = 0u;                         \
  phase_computed = 0u;                       \
  phase_outputs = 0u;                        \
  phase_swept = 0u;                          \
  phase_scanned = 0u;
#define PHASE_MARK(VAR) VAR = clock2x32ARB().x - phase_start;
#define PHASE_END()                                                                    \
  if (gl_LocalInvocationIndex == 0u) {                                                 \
    const uint end_ = clock2x32ARB().x - phase_start;                                  \
    const uint realtime_end_ = clockRealtime2x32EXT().x;                               \
    PhaseWrite(9u * (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x), end_,  \
               realtime_end_);                                                         \
  }
#else
#define PHASE_START()
#define PHASE_MARK(VAR)
#define PHASE_END()
#endif
