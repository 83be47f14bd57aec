#version 450
// The fp32 multiply-add rate of the device, for the benchmark's arithmetic
// floor: every invocation runs kChains independent chains of vec4 fma()
// (kChains·4 scalar multiply-adds per iteration, enough independent work
// to hide the FMA latency) for kIterations iterations. The multiplier and
// addend come from push constants and every chain reaches the output, so
// nothing can be folded or dropped.
layout(local_size_x = 64) in;
layout(constant_id = 0) const int kIterations = 512;
const int kChains = 8;

layout(std430, binding = 0) readonly buffer SrcBlock { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer DstBlock { vec4 dst[]; };

layout(push_constant) uniform Push {
  uint count;
  float multiplier;
  float addend;
} pc;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count) return;
  vec4 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = src[i] + float(c);
  const vec4 m = vec4(pc.multiplier), a = vec4(pc.addend);
  for (int k = 0; k < kIterations; ++k) {
    for (int c = 0; c < kChains; ++c) acc[c] = fma(acc[c], m, a);
  }
  vec4 sum = vec4(0.0);
  for (int c = 0; c < kChains; ++c) sum += acc[c];
  dst[i] = sum;
}
