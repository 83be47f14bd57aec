// large_radius's recursive path: the truncated Gaussian's half kernel
// g(k), k = 0..radius, as a damped cosine h(k) = Re(c·p^k), which a complex
// first-order recursion computes per pixel at a cost independent of the
// radius:
//   z(n) = p·z(n−1) + x(n) − p^(radius+1)·x(n−radius−1)
// keeps z(n) = Σ_{k=0..radius} p^k·x(n−k) exactly (the delayed subtraction
// truncates the window where the exact kernel is truncated), and the same
// from the right; the output is Re(c·(z + w)) + center·x. The pole p comes
// from a table fitted offline per kernel shape (radius / sigma,
// bench/fit_recursive_table.py); c is fitted here, for the actual taps.
#pragma once

#include <complex>
#include <vector>

namespace rgfx::passes {

struct RecursiveFit {
  std::complex<double> pole;         // p, |p| < 1
  std::complex<double> coefficient;  // c
  // Added at offset 0 so that tap 0 is the Gaussian's: g(0) − 2·Re(c).
  double center = 0;
  // The half kernel the recursion applies (taps 0..radius): tap 0 is
  // 2·Re(c) + center, tap k > 0 Re(c·p^k).
  std::vector<double> Kernel(int radius) const;
};

// The fit for radius >= 2 and sigma > 0: the taps' squared error (taps
// k > 0 counted twice, as the kernel is symmetric) is least with the sum of
// the weights held at exactly 1, so a constant image stays constant.
RecursiveFit FitRecursiveGaussian(int radius, double sigma);

// The pole for a kernel of shape s = radius / sigma, per pixel of a kernel
// with that sigma: the table interpolated in log s, its ends held beyond.
std::complex<double> RecursivePole(double shape, double sigma);

}  // namespace rgfx::passes
