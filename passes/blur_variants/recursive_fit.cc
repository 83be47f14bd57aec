#include "passes/blur_variants/recursive_fit.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "passes/gaussian_weights.h"

namespace rgfx::passes {
namespace {

#include "passes/blur_variants/recursive_fit_table.inc"

}  // namespace

std::vector<double> RecursiveFit::Kernel(int radius) const {
  std::vector<double> h(radius + 1);
  std::complex<double> power = 1;
  for (int k = 0; k <= radius; ++k, power *= pole) h[k] = (coefficient * power).real();
  h[0] = 2 * coefficient.real() + center;
  return h;
}

std::complex<double> RecursivePole(double shape, double sigma) {
  constexpr size_t rows = std::size(kRecursivePoles1);
  const double* row = kRecursivePoles1[0];
  double alpha = row[1], beta = row[2];
  if (shape >= kRecursivePoles1[rows - 1][0]) {
    alpha = kRecursivePoles1[rows - 1][1];
    beta = kRecursivePoles1[rows - 1][2];
  } else if (shape > kRecursivePoles1[0][0]) {
    size_t i = 1;
    while (kRecursivePoles1[i][0] < shape) ++i;
    const double* lo = kRecursivePoles1[i - 1];
    const double* hi = kRecursivePoles1[i];
    const double t = std::log(shape / lo[0]) / std::log(hi[0] / lo[0]);
    alpha = lo[1] + t * (hi[1] - lo[1]);
    beta = lo[2] + t * (hi[2] - lo[2]);
  }
  // The table is in units of 1/sigma; both entries are negative damping.
  return std::exp(std::complex<double>(alpha, beta) / sigma);
}

RecursiveFit FitRecursiveGaussian(int radius, double sigma) {
  const std::vector<double> g = GaussianWeights(radius, sigma);  // Σ over ±k = 1
  const std::complex<double> p = RecursivePole(radius / sigma, sigma);
  // h(k) = a·Re(p^k) + b·(−Im(p^k)) for c = a + ib. Taps k >= 1 (tap 0 is
  // made exact by `center`): minimise Σ (h − g)² subject to
  // Σ h(k) = Σ g(k) over k >= 1 (the weights then sum to 1). Lagrange:
  // [AᵀA 1ᵀA; 1ᵀA 0] [a b μ] = [Aᵀg; Σg], a 3×3 system solved with
  // pivoting in double.
  double m[3][4] = {};
  std::complex<double> power = p;
  for (int k = 1; k <= radius; ++k, power *= p) {
    const double u = power.real(), v = -power.imag();
    m[0][0] += u * u;
    m[0][1] += u * v;
    m[1][1] += v * v;
    m[0][2] += u;
    m[1][2] += v;
    m[0][3] += u * g[k];
    m[1][3] += v * g[k];
    m[2][3] += g[k];
  }
  m[1][0] = m[0][1];
  m[2][0] = m[0][2];
  m[2][1] = m[1][2];
  for (int col = 0; col < 3; ++col) {
    int pivot = col;
    for (int r = col + 1; r < 3; ++r) {
      if (std::abs(m[r][col]) > std::abs(m[pivot][col])) pivot = r;
    }
    std::swap(m[col], m[pivot]);
    for (int r = 0; r < 3; ++r) {
      if (r == col || m[col][col] == 0) continue;
      const double f = m[r][col] / m[col][col];
      for (int j = col; j < 4; ++j) m[r][j] -= f * m[col][j];
    }
  }
  // A zero pivot (a degenerate fit) leaves its unknown at 0.
  RecursiveFit fit;
  fit.pole = p;
  const double a = m[0][0] != 0 ? m[0][3] / m[0][0] : 0;
  const double b = m[1][1] != 0 ? m[1][3] / m[1][1] : 0;
  fit.coefficient = {a, b};
  fit.center = g[0] - 2 * a;
  return fit;
}

}  // namespace rgfx::passes
