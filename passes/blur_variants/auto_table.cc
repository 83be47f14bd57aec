#include "passes/blur_variants/auto_table.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "absl/synchronization/mutex.h"

namespace rgfx::passes {
namespace {

#include "passes/blur_variants/auto_table_data.inc"

// Distance in log scale (radius 0 is its own point: the identity).
double LogDistance(double a, double b) {
  return std::abs(std::log2(std::max(a, 0.5)) - std::log2(std::max(b, 0.5)));
}

// The measured rows' strings: a few distinct names (devices, formats,
// variants), kept for the process's life so that rows can point at them.
const char* Intern(const char* text) {
  static absl::Mutex mu(absl::kConstInit);
  static std::set<std::string>* names = new std::set<std::string>();
  absl::MutexLock lock(&mu);
  return names->emplace(text).first->c_str();
}

absl::Mutex measured_mu(absl::kConstInit);
std::shared_ptr<const std::vector<AutoTableRow>>& Measured() {
  static auto* rows = new std::shared_ptr<const std::vector<AutoTableRow>>(
      std::make_shared<const std::vector<AutoTableRow>>());
  return *rows;
}

}  // namespace

std::span<const AutoTableRow> BuiltinAutoTable() { return kAutoTable; }

void SetMeasuredAutoRows(uint32_t vendor_id, uint32_t device_id,
                         std::span<const AutoTableRow> rows) {
  absl::MutexLock lock(&measured_mu);
  auto next = std::make_shared<std::vector<AutoTableRow>>();
  for (const AutoTableRow& row : *Measured()) {
    if (row.vendor_id != vendor_id || row.device_id != device_id) next->push_back(row);
  }
  for (AutoTableRow row : rows) {
    row.vendor_id = vendor_id;
    row.device_id = device_id;
    row.device = Intern(row.device);
    row.working = Intern(row.working);
    row.variant = Intern(row.variant);
    next->push_back(row);
  }
  Measured() = std::move(next);
}

std::shared_ptr<const std::vector<AutoTableRow>> MeasuredAutoRows() {
  absl::MutexLock lock(&measured_mu);
  return Measured();
}

size_t CountDeviceRows(std::span<const AutoTableRow> table, uint32_t vendor_id,
                       uint32_t device_id) {
  size_t rows = 0;
  for (const AutoTableRow& row : table) {
    rows += row.vendor_id == vendor_id && row.device_id == device_id;
  }
  return rows;
}

bool AdmitsStatedPsnr(double stated, double min_psnr_db) {
  const bool exact = std::isinf(stated) && stated > 0;
  return exact || (min_psnr_db > 0 && stated >= min_psnr_db);
}

std::optional<std::string> ChooseFromTable(std::span<const AutoTableRow> table,
                                           const AutoQuery& query, const StatedPsnrFn& stated) {
  // The nearest measured size, then the nearest measured radius at it.
  const AutoTableRow* nearest = nullptr;
  double best_size = std::numeric_limits<double>::infinity();
  double best_radius = best_size;
  for (const AutoTableRow& row : table) {
    if (row.vendor_id != query.vendor_id || row.device_id != query.device_id ||
        query.working != row.working) {
      continue;
    }
    const double ds = LogDistance(double(row.width) * row.height, double(query.pixels));
    const double dr = LogDistance(row.radius, query.radius);
    if (ds < best_size || (ds == best_size && dr < best_radius)) {
      best_size = ds;
      best_radius = dr;
      nearest = &row;
    }
  }
  if (nearest == nullptr) return std::nullopt;
  // Fastest admitted variant at that point (ties: the first listed).
  std::optional<std::string> choice;
  double fastest = std::numeric_limits<double>::infinity();
  std::map<std::string, std::optional<double>> psnr;  // stated once per variant
  for (const AutoTableRow& row : table) {
    if (row.vendor_id != query.vendor_id || row.device_id != query.device_id ||
        query.working != row.working || row.width != nearest->width ||
        row.height != nearest->height || row.radius != nearest->radius) {
      continue;
    }
    if (!(row.total_us < fastest)) continue;
    auto it = psnr.find(row.variant);
    if (it == psnr.end()) it = psnr.emplace(row.variant, stated(row.variant)).first;
    const std::optional<double>& p = it->second;
    if (!p) continue;  // cannot plan this request
    if (!AdmitsStatedPsnr(*p, query.min_psnr_db)) continue;
    if (row.approximate != !std::isinf(*p)) continue;  // measured another kernel
    fastest = row.total_us;
    choice = row.variant;
  }
  return choice;
}

}  // namespace rgfx::passes
