// Working-format storage. Each shader is compiled twice: with WORKING_F32
// (RGBA32F, a vec4 per pixel) and without (RGBA16F, two packed half2 words
// per pixel, which needs no 16-bit storage feature). GLSL cannot pass
// buffers to functions, hence macros.
#ifdef WORKING_F32
#define WORKING_PIXEL vec4
#define WORKING_BUFFER(binding_, qualifier_, name_) \
  layout(std430, binding = binding_) qualifier_ buffer name_##Block { vec4 name_[]; }
#define LOAD_PIXEL(name_, index_) (name_[index_])
#define STORE_PIXEL(name_, index_, value_) name_[index_] = (value_)
#else
#define WORKING_PIXEL uvec2
#define WORKING_BUFFER(binding_, qualifier_, name_) \
  layout(std430, binding = binding_) qualifier_ buffer name_##Block { uvec2 name_[]; }
#define LOAD_PIXEL(name_, index_) \
  vec4(unpackHalf2x16(name_[index_].x), unpackHalf2x16(name_[index_].y))
#define STORE_PIXEL(name_, index_, value_) \
  name_[index_] = uvec2(packHalf2x16((value_).xy), packHalf2x16((value_).zw))
#endif
