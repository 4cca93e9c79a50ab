// The essay haystack of the needle and RULER tests: every *.txt of a folder (Paul Graham's
// essays, ../shared/data/haystack/PaulGrahamEssays) in sorted file-name order, concatenated
// with nothing between them, as RULER's PaulGrahamEssays.json and Kamradt's needle test build
// it. Torch-free.
#pragma once

#include <filesystem>
#include <string>

namespace ripplekv::eval {

// Throws std::invalid_argument naming the folder ("--haystack DIR: ...") when it is not a
// folder or holds no .txt files.
std::string read_essay_haystack(const std::filesystem::path& dir);

}  // namespace ripplekv::eval
