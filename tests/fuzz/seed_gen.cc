// Writes the committed seed corpus and the JSON dictionary of tests/fuzz:
//   rgfx-fuzz-seeds SOURCE_DIR OUT_DIR
// png_decode: every PNG kind the codec tests make (tests/service/png_test_util);
// graph_json: examples/graphs/*.json as they are; proto_graph: each example
// graph in a serialized ProcessRequest with small PNG (and raw) inputs.
// graph_json.dict: every field name (proto and JSON spelling) and enum value
// reachable from rgfx.v1.Graph, so it follows the proto when it changes.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>

#include <png.h>

#include "client/graph_file.h"
#include "rgfx/v1/post_process.pb.h"
#include "tests/service/png_test_util.h"

namespace fs = std::filesystem;
namespace pb = google::protobuf;

namespace {

void Write(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

void CollectNames(const pb::Descriptor& d, std::set<std::string>& names,
                  std::set<const pb::Descriptor*>& seen) {
  if (!seen.insert(&d).second) return;
  for (int i = 0; i < d.field_count(); ++i) {
    const pb::FieldDescriptor& f = *d.field(i);
    names.insert(f.name());
    names.insert(f.json_name());
    if (f.enum_type() != nullptr) {
      for (int v = 0; v < f.enum_type()->value_count(); ++v) names.insert(f.enum_type()->value(v)->name());
    }
    if (f.message_type() != nullptr) CollectNames(*f.message_type(), names, seen);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: rgfx-fuzz-seeds SOURCE_DIR OUT_DIR\n";
    return 2;
  }
  const fs::path src = argv[1];
  const fs::path out = argv[2];

  for (const rgfx::testing::PngSpec& spec : rgfx::testing::AllPngKinds()) {
    Write(out / "corpus/png_decode" / (rgfx::testing::PngSpecName(spec) + ".png"),
          rgfx::testing::MakeTestPng(spec).file);
  }

  rgfx::testing::PngSpec small{.width = 8, .height = 6, .color_type = PNG_COLOR_TYPE_RGBA};
  const std::string small_png = rgfx::testing::MakeTestPng(small).file;
  for (const fs::directory_entry& e : fs::directory_iterator(src / "examples/graphs")) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Write(out / "corpus/graph_json" / e.path().filename(), json);
    absl::StatusOr<rgfx::v1::Graph> graph = rgfx::client::ParseGraphJson(json, e.path());
    if (!graph.ok()) {
      std::cerr << graph.status() << "\n";
      return 1;
    }
    for (bool raw : {false, true}) {
      rgfx::v1::ProcessRequest request;
      request.set_id(e.path().stem().string());
      *request.mutable_graph() = *graph;
      for (const std::string& name : rgfx::client::ExternalInputs(*graph)) {
        rgfx::v1::Image& image = *request.add_inputs();
        image.set_name(name);
        if (raw) {
          image.set_encoding(rgfx::v1::IMAGE_ENCODING_RGBA8);
          image.set_width(4);
          image.set_height(4);
          image.set_data(std::string(4 * 4 * 4, '\x40'));
        } else {
          image.set_encoding(rgfx::v1::IMAGE_ENCODING_PNG);
          image.set_data(small_png);
        }
      }
      Write(out / "corpus/proto_graph" /
                (e.path().stem().string() + (raw ? "-raw.pb" : "-png.pb")),
            request.SerializeAsString());
    }
  }

  std::set<std::string> names;
  std::set<const pb::Descriptor*> seen;
  CollectNames(*rgfx::v1::Graph::descriptor(), names, seen);
  std::string dict = "# Field names and enum values of rgfx.v1.Graph (tests/fuzz/seed_gen.cc).\n";
  for (const std::string& n : names) dict += "\"\\\"" + n + "\\\"\"\n";
  dict += "\"{\"\n\"}\"\n\"[\"\n\"]\"\n\":\"\n\"true\"\n\"NaN\"\n\"Infinity\"\n\"1e39\"\n";
  Write(out / "graph_json.dict", dict);
  std::cout << "wrote seeds and graph_json.dict under " << out << "\n";
  return 0;
}
