#include "eval/python_numeric.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace ripplekv::eval {
namespace {

constexpr std::size_t kPairwiseBlock = 128;  // numpy's PW_BLOCKSIZE

double pairwise_sum(const double* a, std::size_t n) {
  if (n < 8) {
    double res = 0.0;
    for (std::size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= kPairwiseBlock) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

double power_of_ten(int n) {
  double f = 1.0;
  for (int i = 0; i < n; ++i) f *= 10.0;
  return f;
}

}  // namespace

double python_round(double x, int ndigits) {
  if (!std::isfinite(x)) return x;
  if (ndigits < 0 || ndigits > 300) {
    throw std::invalid_argument(fmt::format(
        "python_round: ndigits={} is outside the supported range 0..300", ndigits));
  }
  // glibc's printf rounds the exact binary value to ndigits decimals, ties to
  // even, as CPython's _Py_dg_dtoa(mode 3) does; strtod then gives the nearest
  // double, as _Py_dg_strtod does.
  char buf[512];
  const int len = std::snprintf(buf, sizeof(buf), "%.*f", ndigits, x);
  if (len < 0 || static_cast<std::size_t>(len) >= sizeof(buf)) {
    // Huge magnitudes have no fractional digits to round.
    return x;
  }
  const double rounded = std::strtod(buf, nullptr);
  // Python keeps the sign of zero: round(-0.001, 2) == -0.0.
  return (rounded == 0.0) ? std::copysign(0.0, x) : rounded;
}

double numpy_round(double x, int decimals) {
  if (decimals < 0) {
    throw std::invalid_argument("numpy_round: only decimals >= 0 is implemented");
  }
  const double f = power_of_ten(decimals);
  return std::nearbyint(x * f) / f;
}

double numpy_pairwise_sum(const std::vector<double>& values) {
  return pairwise_sum(values.data(), values.size());
}

double numpy_mean(const std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  return numpy_pairwise_sum(values) / static_cast<double>(values.size());
}

std::string python_float_repr(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x == 0.0) return std::signbit(x) ? "-0.0" : "0.0";
  // Shortest round-trip digits, as CPython's repr (mode 0 of _Py_dg_dtoa).
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const std::size_t epos = sci.find('e');
  std::string digits = sci.substr(0, epos);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const int exp10 = std::stoi(sci.substr(epos + 1));
  const int decpt = exp10 + 1;  // value = 0.DIGITS * 10^decpt
  const int n = static_cast<int>(digits.size());
  std::string out = sign;
  if (decpt <= -4 || decpt > 16) {
    out += digits.substr(0, 1);
    if (n > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02d}", exp10 < 0 ? '-' : '+', std::abs(exp10));
  } else if (decpt <= 0) {
    out += "0." + std::string(static_cast<std::size_t>(-decpt), '0') + digits;
  } else if (decpt >= n) {
    out += digits + std::string(static_cast<std::size_t>(decpt - n), '0') + ".0";
  } else {
    out += digits.substr(0, decpt) + "." + digits.substr(decpt);
  }
  return out;
}

}  // namespace ripplekv::eval
