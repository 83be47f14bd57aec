// A kernel's phases, clocked from inside it (benchmarks only:
// rgfx-gpu-bench --phase_clock, tests/bench/phase_clock.h). In a build with
// PHASE_CLOCK, invocation 0 of each workgroup reads the clock at the
// kernel's phase boundaries (PHASE_START at entry, PHASE_MARK after each
// phase, PHASE_END once its stores are issued) and writes a record of three
// texels at phase_records[3 · workgroup] (binding 3):
//   (multiprocessor, start clock >> 16, start clock & 0xffff, 1),
//   (realtime start >> 16, & 0xffff, realtime end >> 16, & 0xffff),
//   (staged, computed, outputs staged, end): clocks after the start (the
//   input in shared memory; the arithmetic done; the outputs in shared
//   memory for coalesced stores; the stores issued),
// each an integer below 2^24, so that it passes through an RGBA32F image
// exactly (0: the path has no such phase). The clock is the subgroup's
// (the multiprocessor's on NVIDIA, in cycles), the realtime one the
// device's. SM_BUILTINS: the multiprocessor from GL_NV_shader_sm_builtins
// (0 without).
#ifdef PHASE_CLOCK
#extension GL_ARB_shader_clock : require
#extension GL_EXT_shader_realtime_clock : require
#ifdef SM_BUILTINS
#extension GL_NV_shader_sm_builtins : require
#define PHASE_MULTIPROCESSOR float(gl_SMIDNV)
#else
#define PHASE_MULTIPROCESSOR 0.0
#endif
layout(std430, binding = 3) writeonly buffer PhaseRecords { vec4 phase_records[]; };
uint phase_start, phase_realtime, phase_staged, phase_computed, phase_outputs;
#define PHASE_START()                        \
  phase_start = clock2x32ARB().x;            \
  phase_realtime = clockRealtime2x32EXT().x; \
  phase_staged = 0u;                         \
  phase_computed = 0u;                       \
  phase_outputs = 0u;
#define PHASE_MARK(VAR) VAR = clock2x32ARB().x - phase_start;
#define PHASE_BITS(V) float((V) >> 16), float((V) & 0xffffu)
#define PHASE_AFTER(V) float(min(V, 0xffffffu))
#define PHASE_END()                                                                       \
  if (gl_LocalInvocationIndex == 0u) {                                                    \
    const uint end_ = clock2x32ARB().x - phase_start;                                     \
    const uint realtime_end_ = clockRealtime2x32EXT().x;                                  \
    const uint at_ = 3u * (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);    \
    phase_records[at_] = vec4(PHASE_MULTIPROCESSOR, PHASE_BITS(phase_start), 1.0);        \
    phase_records[at_ + 1u] = vec4(PHASE_BITS(phase_realtime), PHASE_BITS(realtime_end_)); \
    phase_records[at_ + 2u] = vec4(PHASE_AFTER(phase_staged), PHASE_AFTER(phase_computed), \
                                   PHASE_AFTER(phase_outputs), PHASE_AFTER(end_));         \
  }
#else
#define PHASE_START()
#define PHASE_MARK(VAR)
#define PHASE_END()
#endif
