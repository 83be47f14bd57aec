// Working-format storage. Each shader is compiled twice: with WORKING_F32
// (RGBA32F, a vec4 per pixel) and without (RGBA16F, two packed half2 words
// per pixel, which needs no 16-bit storage feature). GLSL cannot pass
// buffers to functions, hence macros.
// PACK_PIXEL / UNPACK_PIXEL convert one value between vec4 and the stored
// pixel (for arrays a shader declares itself).
#ifdef WORKING_F32
#define WORKING_PIXEL vec4
#define WORKING_BUFFER(binding_, qualifier_, name_) \
  layout(std430, binding = binding_) qualifier_ buffer name_##Block { vec4 name_[]; }
#define PACK_PIXEL(value_) (value_)
#define UNPACK_PIXEL(stored_) (stored_)
#else
#define WORKING_PIXEL uvec2
#define WORKING_BUFFER(binding_, qualifier_, name_) \
  layout(std430, binding = binding_) qualifier_ buffer name_##Block { uvec2 name_[]; }
#define PACK_PIXEL(value_) uvec2(packHalf2x16((value_).xy), packHalf2x16((value_).zw))
#define UNPACK_PIXEL(stored_) vec4(unpackHalf2x16((stored_).x), unpackHalf2x16((stored_).y))
#endif
#define LOAD_PIXEL(name_, index_) UNPACK_PIXEL(name_[index_])
#define STORE_PIXEL(name_, index_, value_) name_[index_] = PACK_PIXEL(value_)
