#include "graph/registry.h"

#include "gtest/gtest.h"
#include "tests/graph/fake_passes.h"

namespace rgfx::graph::testing {
namespace {

TEST(PassRegistry, FindsRegisteredTypes) {
  auto registry = MakeFakeRegistry();
  ASSERT_NE(registry->Find("blur"), nullptr);
  EXPECT_EQ(registry->Find("blur")->name(), "blur");
  EXPECT_NE(registry->Find(kImportPassType), nullptr);
  EXPECT_EQ(registry->Find("nope"), nullptr);
}

TEST(PassRegistry, ListsAllByName) {
  auto registry = MakeFakeRegistry();
  std::vector<std::string> names;
  for (const PassType* type : registry->All()) names.emplace_back(type->name());
  EXPECT_EQ(names, (std::vector<std::string>{"blur", "composite", "downsample", "export", "import",
                                             "split", "upsample"}));
}

class NamedPass final : public PassType {
 public:
  std::string_view name() const override { return "blur"; }
  const PassSchema& schema() const override { return schema_; }
  absl::StatusOr<PassPlan> Plan(const PlanContext&) const override { return PassPlan{}; }
  absl::Status Record(RecordContext&, int) const override { return absl::OkStatus(); }

 private:
  PassSchema schema_;
};

TEST(PassRegistryDeathTest, DiesOnDuplicateName) {
  auto registry = MakeFakeRegistry();
  EXPECT_DEATH(registry->Register(std::make_unique<NamedPass>()),
               "pass type 'blur' registered twice");
}

}  // namespace
}  // namespace rgfx::graph::testing
