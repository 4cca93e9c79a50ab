// Method names researchers use, as selector x allocator pairs with options (torch-free):
//   full, snapkv, pyramidkv, streamingllm, h2o, cake, squeeze, ripple, random, knorm,
//   or an explicit "selector:allocator"; either may end in "@key=value,key=value".
#pragma once

#include <string>
#include <vector>

#include "core/compress/compression.h"

namespace ripplekv {

struct MethodPreset {
  const char* name;
  const char* selector;
  const char* allocator;
  const char* summary;
};
const std::vector<MethodPreset>& method_presets();
// Their names separated by spaces, for help texts.
std::string method_preset_names();

// Parses one method text (see above) into a spec with the given budget. The label is the text
// as given (used in tables).
CompressionSpec parse_method(const std::string& text, int64_t budget);

// Splits "a,b,c" (commas inside @options are kept with their method: "snapkv@window=8,kernel=5"
// is one method when followed by a key=value; methods are separated by ',' before a name).
std::vector<std::string> split_methods(const std::string& list);

}  // namespace ripplekv
