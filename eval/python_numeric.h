// The float arithmetic of the official LongBench eval.py, reproduced bit for bit:
// Python's round(x, n) (exact decimal rounding, ties to even), numpy's round
// (scale, rint, unscale), numpy's pairwise summation behind np.mean, and the
// shortest repr that json.dump writes for a float.
#pragma once

#include <string>
#include <vector>

namespace ripplekv::eval {

// Python's round(x, ndigits) on a float: the double nearest to the decimal
// correctly rounded (half-even on the exact binary value) to ndigits places.
double python_round(double x, int ndigits);

// round() applied to a numpy.float64, which is np.around: rint(x * 10^d) / 10^d.
// eval.py's LongBench-E path rounds this way (its value comes from np.mean).
double numpy_round(double x, int decimals);

// np.add.reduce over a contiguous float64 array (pairwise, 8-way unrolled blocks).
double numpy_pairwise_sum(const std::vector<double>& values);

// np.mean: pairwise sum / n; NaN for an empty list (numpy warns and returns nan).
double numpy_mean(const std::vector<double>& values);

// repr(float) as json.dump writes it: "71.0", "0.30769230769230765", "1e-05",
// "NaN", "Infinity", "-Infinity".
std::string python_float_repr(double x);

}  // namespace ripplekv::eval
