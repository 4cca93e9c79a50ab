// The CPython `str` semantics that the official LongBench metrics depend on,
// reproduced on UTF-32 code points: str.lower() (full mapping, final sigma),
// str.split() / str.isspace(), and the `re` classes \d and \w used for \b.
// Tables come from scripts/gen_python_unicode_tables.py (CPython 3.11, Unicode 14).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ripplekv::eval {

// UTF-8 <-> UTF-32. Throws std::invalid_argument on malformed UTF-8 or on a
// surrogate / out-of-range code point, naming the byte offset.
std::u32string utf8_to_u32(std::string_view utf8);
std::string u32_to_utf8(std::u32string_view text);

bool py_isspace(char32_t cp);    // str.isspace()
bool py_isdecimal(char32_t cp);  // re's \d on a str pattern
bool py_is_word(char32_t cp);    // re's \w on a str pattern (alnum or '_')

// str.lower(), including U+0130 -> "i\u0307" and the Final_Sigma rule for U+03A3.
std::u32string py_lower(std::u32string_view text);

// str.split() with no argument: runs of Unicode whitespace separate, no empties.
std::vector<std::u32string> py_split_whitespace(std::u32string_view text);

// str.split(sep) for a one-character separator: keeps empty pieces.
std::vector<std::string> py_split_char(std::string_view text, char sep);

// str.lstrip(chars) for a one-character set.
std::string_view py_lstrip_char(std::string_view text, char ch);

// The Python / Unicode versions the tables were generated from, e.g. "3.11.7".
const char* python_unicode_tables_python_version();
const char* python_unicode_tables_unicode_version();

}  // namespace ripplekv::eval
