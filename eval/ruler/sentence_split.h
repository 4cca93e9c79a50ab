// Sentence splitting for RULER's essay haystacks, standing in for nltk's punkt
// (sent_tokenize), which RULER uses to insert needles between sentences. A sentence ends
// after '.', '!' or '?' (runs of them, then closing quotes or brackets) followed by
// whitespace, or at the end of the text; sentences are returned stripped. Punkt also knows
// abbreviations ("Mr.", "e.g.") and splits some glued tokens ("good.[2]"): the haystack
// lengths differ slightly from RULER's, the needles still sit between sentences.
// Torch-free.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ripplekv::eval {

std::vector<std::string> split_sentences(std::string_view text);

}  // namespace ripplekv::eval
