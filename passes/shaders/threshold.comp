#version 450
#extension GL_GOOGLE_include_directive : require
// threshold (bright pass) with a soft knee, as in bloom implementations
// since Karis (2013): with luminance L (Rec. 709 weights, premultiplied
// linear light), the pixel is scaled by max(soft, L - threshold) / L, where
// soft = clamp(L - threshold + knee, 0, 2·knee)² / (4·knee) blends the cut
// over threshold ± knee (0 for a hard cut). All four channels are scaled, so
// premultiplied colour stays valid.
#include "shader_interface.h"
#include "working_format.glsl"

layout(local_size_x = RGFX_TILE_X, local_size_y = RGFX_TILE_Y) in;

WORKING_BUFFER(0, readonly, src);
WORKING_BUFFER(1, writeonly, dst);

layout(push_constant) uniform Push {
  uint width;
  uint height;
  float threshold;
  float knee;
} pc;

void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= pc.width || p.y >= pc.height) return;
  uint i = p.y * pc.width + p.x;
  vec4 c = LOAD_PIXEL(src, i);
  float luminance = dot(c.rgb, vec3(0.2126, 0.7152, 0.0722));
  float soft = 0.0;
  if (pc.knee > 0.0) {
    float s = clamp(luminance - pc.threshold + pc.knee, 0.0, 2.0 * pc.knee);
    soft = s * s / (4.0 * pc.knee);
  }
  float scale = luminance > 0.0 ? max(soft, luminance - pc.threshold) / luminance : 0.0;
  STORE_PIXEL(dst, i, c * scale);
}
