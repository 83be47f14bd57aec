// rgfx-wire-bench: the CPU cost of a raw Process request's image bytes on
// the server, with protobuf's generic (de)serialization (the copies before
// 2026-11-24) against service/process_wire (raw images left in gRPC's
// slices on the way in, sent from the download memory on the way out).
// The message is cut in 16 KiB slices, the HTTP/2 frame size gRPC receives
// in. Prints median CPU-ms per request (CLOCK_PROCESS_CPUTIME_ID, one thread).
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <grpcpp/support/proto_buffer_reader.h>
#include <grpcpp/impl/codegen/proto_utils.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "service/process_wire.h"

ABSL_FLAG(int, width, 1920, "image width");
ABSL_FLAG(int, height, 1080, "image height");
ABSL_FLAG(int, runs, 31, "timed runs per measurement (median reported)");

namespace rgfx {
namespace {

double CpuMs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

double MedianCpuMs(const std::function<void()>& body) {
  body();  // warm: allocations and page faults of the first run
  std::vector<double> ms;
  for (int i = 0; i < absl::GetFlag(FLAGS_runs); ++i) {
    const double start = CpuMs();
    body();
    ms.push_back(CpuMs() - start);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

grpc::ByteBuffer InSlices(const std::string& bytes, size_t slice) {
  std::vector<grpc::Slice> slices;
  for (size_t at = 0; at < bytes.size(); at += slice) {
    slices.emplace_back(bytes.data() + at, std::min(slice, bytes.size() - at));
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

size_t Drain(const grpc::ByteBuffer& buffer) {
  // What gRPC's writer does with each slice, at least: touches its bytes.
  std::vector<grpc::Slice> slices;
  (void)buffer.Dump(&slices);
  size_t sum = 0;
  for (const grpc::Slice& s : slices) sum += s.size() > 0 ? s.begin()[s.size() - 1] : 0;
  return sum;
}

int Run() {
  const size_t pixels = static_cast<size_t>(absl::GetFlag(FLAGS_width)) * absl::GetFlag(FLAGS_height);
  std::string data(pixels * 4, '\0');
  std::mt19937 rng(1);
  for (char& c : data) c = static_cast<char>(rng());
  v1::ProcessRequest request;
  v1::Image& image = *request.add_inputs();
  image.set_name("image");
  image.set_encoding(v1::IMAGE_ENCODING_RGBA8);
  image.set_width(absl::GetFlag(FLAGS_width));
  image.set_height(absl::GetFlag(FLAGS_height));
  image.set_data(data);
  request.mutable_graph()->add_outputs("out");
  const grpc::ByteBuffer wire = InSlices(request.SerializeAsString(), 16 << 10);
  std::vector<std::byte> staging(data.size());  // the upload / readback lease
  std::memcpy(staging.data(), data.data(), data.size());
  std::printf("raw RGBA8 %dx%d (%zu bytes), message in %zu-byte slices; median CPU-ms of %d runs\n",
              absl::GetFlag(FLAGS_width), absl::GetFlag(FLAGS_height), data.size(),
              size_t{16} << 10, absl::GetFlag(FLAGS_runs));

  size_t sink = 0;
  const double in_protobuf = MedianCpuMs([&] {
    grpc::ByteBuffer shared(wire);
    grpc::ProtoBufferReader reader(&shared);
    v1::ProcessRequest parsed;
    parsed.ParseFromZeroCopyStream(&reader);
    const std::string& bytes = parsed.inputs(0).data();
    std::memcpy(staging.data(), bytes.data(), bytes.size());
  });
  const double in_wire = MedianCpuMs([&] {
    service::WireRequest parsed;
    (void)service::ParseProcessRequest(wire, parsed);
    parsed.external.input(0)->CopyTo(staging);
  });
  std::printf("  request in, parse + copy into staging: protobuf %.2f, process_wire %.2f\n",
              in_protobuf, in_wire);

  auto response_of = [&](bool with_data) {
    v1::ProcessResponse response;
    v1::Image& out = *response.add_outputs();
    out.set_name("out");
    out.set_encoding(v1::IMAGE_ENCODING_RGBA8);
    out.set_width(absl::GetFlag(FLAGS_width));
    out.set_height(absl::GetFlag(FLAGS_height));
    if (with_data) out.mutable_data()->assign(reinterpret_cast<const char*>(staging.data()), staging.size());
    response.mutable_stages()->set_total_ns(1);
    return response;
  };
  const double out_protobuf = MedianCpuMs([&] {
    v1::ProcessResponse response = response_of(true);  // the copy out of the readback lease
    grpc::ByteBuffer buffer;
    bool own = false;
    (void)grpc::SerializationTraits<v1::ProcessResponse>::Serialize(response, &buffer, &own);
    sink += Drain(buffer);
  });
  const double out_copy_shared = MedianCpuMs([&] {
    v1::ProcessResponse response = response_of(true);
    sink += Drain(service::SerializeSharingImages(response));
  });
  auto lease = std::make_shared<int>(0);  // stands for the readback lease
  const double out_held = MedianCpuMs([&] {
    v1::ProcessResponse response = response_of(false);
    service::ExternalImages held;
    held.held.emplace_back(0, std::span<const std::byte>(staging));
    held.owner = lease;
    sink += Drain(service::SerializeSharingImages(response, &held));
  });
  std::printf("  response out, copy from readback + serialize: protobuf %.2f, copy + shared "
              "string %.2f, held (no copy) %.2f\n",
              out_protobuf, out_copy_shared, out_held);
  std::printf("  per request: %.2f with protobuf both ways (to 2026-11-23), %.2f with the outputs "
              "shared (Process raw), %.2f now (checksum %zu)\n",
              in_protobuf + out_protobuf, in_protobuf + out_copy_shared, in_wire + out_held,
              sink % 10);
  return 0;
}

}  // namespace
}  // namespace rgfx

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return rgfx::Run();
}
