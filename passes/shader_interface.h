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

// Line-per-workgroup blur variants (passes/blur_variants/): the workgroup
// size is specialization constant 0 (local_size_x_id) and the workgroup cache
// capacity in pixels specialization constant 1. The published line variants
// used 1024 invocations; the host caps it at the device's limit.
#define RGFX_LINE_GROUP_PUBLISHED 1024
// tiled_halo: outputs per tile (= invocations per workgroup).
#define RGFX_TILED_HALO_TILE 256

// Effect pass enums, in the order of their parameters' enum values.
#define RGFX_DOWNSAMPLE_BOX 0
#define RGFX_DOWNSAMPLE_13TAP 1
#define RGFX_UPSAMPLE_BILINEAR 0
#define RGFX_UPSAMPLE_NEAREST 1
#define RGFX_UPSAMPLE_TENT 2
#define RGFX_COMPOSITE_ADD 0
#define RGFX_COMPOSITE_MIX 1

// branch_lab: how the per-pixel path is decided (specialization constant 0).
#define RGFX_BRANCH_STATIC 0
#define RGFX_BRANCH_UNIFORM 1
#define RGFX_BRANCH_DIVERGENT 2

#endif  // RGFX_PASSES_SHADER_INTERFACE_H_
