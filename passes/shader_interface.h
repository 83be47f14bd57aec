// Constants that C++ and GLSL must agree on. Included by both: keep it to
// #defines. Changing a value here changes both sides at once.
#ifndef RGFX_PASSES_SHADER_INTERFACE_H_
#define RGFX_PASSES_SHADER_INTERFACE_H_

// 2D workgroup of per-pixel kernels (import, export, exact blur): 16×8 = 128
// invocations, the minimum every Vulkan device guarantees.
#define RGFX_TILE_X 16
#define RGFX_TILE_Y 8

// Border modes (the "border" parameter), in the order of the enum values.
#define RGFX_BORDER_CLAMP 0
#define RGFX_BORDER_MIRROR 1
#define RGFX_BORDER_WRAP 2
#define RGFX_BORDER_ZERO 3

// Client pixel formats (import/export "format" parameter).
#define RGFX_FORMAT_RGBA8 0
#define RGFX_FORMAT_RGBA16 1
#define RGFX_FORMAT_RGBA16F 2
#define RGFX_FORMAT_RGBA32F 3

// Blur axis of one dispatch.
#define RGFX_AXIS_HORIZONTAL 0
#define RGFX_AXIS_VERTICAL 1

#endif  // RGFX_PASSES_SHADER_INTERFACE_H_
