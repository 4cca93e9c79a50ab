#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "eval/python_numeric.h"
#include "eval/python_text.h"

using namespace ripplekv::eval;

namespace {
std::string lower_utf8(const std::string& s) { return u32_to_utf8(py_lower(utf8_to_u32(s))); }
}  // namespace

TEST_CASE("utf8 round trip and errors", "[eval][python_text]") {
  const std::string text = "a\u00e9\u4e2d\U0001F600";
  const auto u = utf8_to_u32(text);
  REQUIRE(u.size() == 4);
  CHECK(u[3] == 0x1F600);
  CHECK(u32_to_utf8(u) == text);
  CHECK_THROWS_AS(utf8_to_u32("\xff"), std::invalid_argument);
  CHECK_THROWS_AS(utf8_to_u32("\xe4\xb8"), std::invalid_argument);
  CHECK_THROWS_AS(utf8_to_u32("\xc0\xaf"), std::invalid_argument);      // overlong
  CHECK_THROWS_AS(utf8_to_u32("\xed\xa0\x80"), std::invalid_argument);  // surrogate
}

TEST_CASE("py_lower matches str.lower, including final sigma and U+0130", "[eval][python_text]") {
  // Expected values printed by CPython 3.11.
  CHECK(lower_utf8("HeLLo WORLD") == "hello world");
  CHECK(lower_utf8("\u0391\u03a3") == "\u03b1\u03c2");            // 'ΑΣ' -> 'ας'
  CHECK(lower_utf8("\u03a3") == "\u03c3");                        // lone sigma
  CHECK(lower_utf8("\u0391\u03a3\u0391") == "\u03b1\u03c3\u03b1");  // medial
  CHECK(lower_utf8("\u0391\u03a3 \u0392") == "\u03b1\u03c2 \u03b2");
  CHECK(lower_utf8("\u0391.\u03a3") == "\u03b1.\u03c2");  // '.' is case-ignorable
  CHECK(lower_utf8("A\u0301\u03a3") == "a\u0301\u03c2");
  CHECK(lower_utf8("\u0130x") == "i\u0307x");
  CHECK(lower_utf8("\u00c9\u0100\u0101\u1E9E\uFF21") == "\u00e9\u0101\u0101\u00df\uFF41");
  CHECK(lower_utf8("\U00010400") == "\U00010428");  // Deseret
}

TEST_CASE("py_split_whitespace matches str.split()", "[eval][python_text]") {
  // '\u2028a\x1fb\xa0c d\u3000e\u200bf'.split() == ['a','b','c','d','e\u200bf']
  const auto parts = py_split_whitespace(utf8_to_u32("\u2028a\x1f" "b\u00a0c d\u3000e\u200bf"));
  REQUIRE(parts.size() == 5);
  CHECK(u32_to_utf8(parts[0]) == "a");
  CHECK(u32_to_utf8(parts[4]) == "e\u200bf");
  CHECK(py_split_whitespace(U"   ").empty());
  CHECK(py_split_char("a\n\nb", '\n') == std::vector<std::string>{"a", "", "b"});
  CHECK(py_split_char("", '\n') == std::vector<std::string>{""});
  CHECK(py_lstrip_char("\n\nx\n", '\n') == "x\n");
}

TEST_CASE("character classes behind the digit and word classes of Python re", "[eval][python_text]") {
  CHECK(py_isdecimal(U'7'));
  CHECK(py_isdecimal(0x0663));  // ARABIC-INDIC DIGIT THREE
  CHECK(py_isdecimal(0xFF15));  // FULLWIDTH DIGIT FIVE
  CHECK_FALSE(py_isdecimal(0x00B2));  // superscript two: isdigit but not decimal
  CHECK(py_is_word(U'_'));
  CHECK(py_is_word(0x00E9));
  CHECK(py_is_word(0x4E2D));
  CHECK(py_is_word(0x00B2));  // isalnum via isdigit
  CHECK_FALSE(py_is_word(0x0307));  // combining mark
  CHECK_FALSE(py_is_word(U'-'));
  CHECK(py_isspace(0x0085));
  CHECK_FALSE(py_isspace(0x200B));
}

TEST_CASE("python_round is exact decimal rounding, numpy_round scales and rints",
          "[eval][python_numeric]") {
  CHECK(python_round(2.675, 2) == 2.67);   // 2.675 is 2.67499999... in binary
  CHECK(numpy_round(2.675, 2) == 2.68);    // 2.675 * 100 rounds to 267.5; rint -> 268 (even)
  CHECK(python_round(52.865, 2) == 52.87);
  CHECK(numpy_round(52.865, 2) == 52.86);
  CHECK(python_round(0.125, 2) == 0.12);  // exact tie -> even
  CHECK(python_round(0.375, 2) == 0.38);
  CHECK(std::isnan(python_round(NAN, 2)));
  CHECK(std::signbit(python_round(-0.001, 2)));
}

TEST_CASE("numpy_mean uses numpy's pairwise summation", "[eval][python_numeric]") {
  std::vector<double> v;
  const double base[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9,
                         1.1, 1.3, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06};
  for (int k = 0; k < 9; ++k) v.insert(v.end(), std::begin(base), std::end(base));
  REQUIRE(v.size() == 153);
  // np.mean(v) == 0.4182352941176471 while sum(v)/len(v) == 0.41823529411764704.
  CHECK(numpy_mean(v) == 0.4182352941176471);
  double seq = 0.0;
  for (double x : v) seq += x;
  CHECK(seq / 153 == 0.41823529411764704);
  CHECK(std::isnan(numpy_mean({})));
}

TEST_CASE("python_float_repr matches repr(float)", "[eval][python_numeric]") {
  CHECK(python_float_repr(71.0) == "71.0");
  CHECK(python_float_repr(0.30769230769230765) == "0.30769230769230765");
  CHECK(python_float_repr(0.999999995) == "0.999999995");
  CHECK(python_float_repr(1e-05) == "1e-05");
  CHECK(python_float_repr(0.0001) == "0.0001");
  CHECK(python_float_repr(1e16) == "1e+16");
  CHECK(python_float_repr(1234567890123456.0) == "1234567890123456.0");
  CHECK(python_float_repr(-2.5e-7) == "-2.5e-07");
  CHECK(python_float_repr(0.0) == "0.0");
  CHECK(python_float_repr(NAN) == "NaN");
}
