// The bodies of the libFuzzer targets, apart from libFuzzer itself, so the
// same code runs under the fuzzer (fuzzer_main.cc) and over the committed
// corpus and crash inputs in every ordinary build (corpus_replay_test.cc).
//
// Each body returns 0 and aborts (FUZZ_CHECK) when an invariant breaks: an
// error that is not the documented code, an empty error message, a decode
// that does not survive an encode round trip, a compiled graph whose buffers
// do not hold its resources.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace rgfx::fuzz {

// ReadPngHeader + DecodePngInto on arbitrary bytes, then EncodePng of the
// pixels and a second decode that must give the same pixels.
int FuzzPngDecode(const uint8_t* data, size_t size);

// Arbitrary bytes as a serialized rgfx.v1.ProcessRequest, then
// service::TranslateRequest and graph::Compile against lavapipe-like caps.
int FuzzProtoGraph(const uint8_t* data, size_t size);

// Arbitrary text as a JSON rgfx.v1.Graph (the client's graph files), then
// `--set` assignments (after NUL bytes) and a print/parse round trip.
int FuzzGraphJson(const uint8_t* data, size_t size);

// The targets by name, as scripts/fuzz and the corpus folders spell them.
using FuzzBody = int (*)(const uint8_t*, size_t);
FuzzBody FindTarget(const std::string& name);

[[noreturn]] inline void FuzzFail(const char* file, int line, const char* what,
                                  const std::string& detail) {
  std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed: %s\n", file, line, what, detail.c_str());
  std::abort();
}

}  // namespace rgfx::fuzz

#define FUZZ_CHECK(cond, detail)                                                   \
  do {                                                                             \
    if (!(cond)) ::rgfx::fuzz::FuzzFail(__FILE__, __LINE__, #cond, (detail));      \
  } while (false)
