#include "models/tokenizer/decoder.h"

#include <fmt/format.h>

#include "models/tokenizer/byte_level.h"
#include "models/tokenizer/utf8.h"

namespace ripplekv::bpe {
namespace {

using nlohmann::json;

std::string join(const std::vector<std::string>& pieces) {
  std::string out;
  for (const auto& p : pieces) out += p;
  return out;
}

class ByteLevel final : public Decoder {
 public:
  std::vector<std::string> decode(std::vector<std::string> pieces) const override {
    std::string bytes;
    // A piece with a character outside the byte alphabet (an added token can have one)
    // contributes its own UTF-8 bytes.
    for (const auto& p : pieces) {
      if (!append_byte_level_bytes(p, bytes)) bytes += p;
    }
    return {utf8_lossy(bytes)};
  }
};

class Metaspace final : public Decoder {
 public:
  Metaspace(std::string replacement, bool strip_first) : replacement_(std::move(replacement)), strip_first_(strip_first) {}
  std::vector<std::string> decode(std::vector<std::string> pieces) const override {
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      std::string out;
      const std::string& p = pieces[i];
      for (std::size_t at = 0; at < p.size();) {
        if (p.compare(at, replacement_.size(), replacement_) == 0) {
          // tokenizers drops every replacement character of the first piece, not only a leading one.
          if (!(i == 0 && strip_first_)) out += ' ';
          at += replacement_.size();
        } else {
          out += p[at++];
        }
      }
      pieces[i] = std::move(out);
    }
    return pieces;
  }

 private:
  std::string replacement_;
  bool strip_first_;
};

class Replace final : public Decoder {
 public:
  Replace(Regex pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  std::vector<std::string> decode(std::vector<std::string> pieces) const override {
    for (auto& p : pieces) p = pattern_.replace_all(p, content_);
    return pieces;
  }

 private:
  Regex pattern_;
  std::string content_;
};

// "<0xAB>" pieces become their bytes; a run of them that is not valid UTF-8 becomes one U+FFFD
// per byte, as tokenizers does.
class ByteFallback final : public Decoder {
 public:
  std::vector<std::string> decode(std::vector<std::string> pieces) const override {
    std::vector<std::string> out;
    std::string run;
    std::size_t run_length = 0;
    const auto flush = [&] {
      if (run_length == 0) return;
      if (is_valid_utf8(run)) {
        out.push_back(run);
      } else {
        for (std::size_t i = 0; i < run_length; ++i) out.push_back("\xEF\xBF\xBD");
      }
      run.clear();
      run_length = 0;
    };
    for (auto& p : pieces) {
      int byte = -1;
      if (p.size() == 6 && p.compare(0, 3, "<0x") == 0 && p[5] == '>') {
        try {
          std::size_t used = 0;
          byte = std::stoi(p.substr(3, 2), &used, 16);
          if (used != 2) byte = -1;
        } catch (const std::exception&) {
          byte = -1;
        }
      }
      if (byte >= 0) {
        run += static_cast<char>(byte);
        ++run_length;
      } else {
        flush();
        out.push_back(std::move(p));
      }
    }
    flush();
    return out;
  }
};

class Fuse final : public Decoder {
 public:
  std::vector<std::string> decode(std::vector<std::string> pieces) const override { return {join(pieces)}; }
};

class Strip final : public Decoder {
 public:
  Strip(std::string content, std::size_t start, std::size_t stop) : content_(std::move(content)), start_(start), stop_(stop) {}
  std::vector<std::string> decode(std::vector<std::string> pieces) const override {
    for (auto& p : pieces) {
      std::size_t begin = 0, end = p.size();
      for (std::size_t n = 0; n < start_ && p.compare(begin, content_.size(), content_) == 0 && begin < end; ++n) {
        begin += content_.size();
      }
      for (std::size_t n = 0; n < stop_ && end >= begin + content_.size() &&
                              p.compare(end - content_.size(), content_.size(), content_) == 0;
           ++n) {
        end -= content_.size();
      }
      p = p.substr(begin, end - begin);
    }
    return pieces;
  }

 private:
  std::string content_;
  std::size_t start_, stop_;
};

class Sequence final : public Decoder {
 public:
  explicit Sequence(std::vector<std::unique_ptr<Decoder>> parts) : parts_(std::move(parts)) {}
  std::vector<std::string> decode(std::vector<std::string> pieces) const override {
    for (const auto& p : parts_) pieces = p->decode(std::move(pieces));
    return pieces;
  }

 private:
  std::vector<std::unique_ptr<Decoder>> parts_;
};

}  // namespace

std::unique_ptr<Decoder> make_decoder(const JsonSite& site, const json& spec) {
  if (spec.is_null()) return nullptr;
  const std::string type = component_type(site, spec);
  if (type == "ByteLevel") return std::make_unique<ByteLevel>();
  if (type == "Metaspace") {
    bool strip_first = get_bool(site, spec, "add_prefix_space", true);
    if (spec.contains("prepend_scheme")) strip_first = get_string(site, spec, "prepend_scheme", "always") != "never";
    return std::make_unique<Metaspace>(get_char(site, spec, "replacement", "\xE2\x96\x81"), strip_first);
  }
  if (type == "Replace") return std::make_unique<Replace>(get_pattern(site, spec), require_string(site, spec, "content"));
  if (type == "ByteFallback") return std::make_unique<ByteFallback>();
  if (type == "Fuse") return std::make_unique<Fuse>();
  if (type == "Strip") {
    return std::make_unique<Strip>(get_char(site, spec, "content", " "), get_count(site, spec, "start", 0),
                                   get_count(site, spec, "stop", 0));
  }
  if (type == "Sequence") return std::make_unique<Sequence>(parse_sequence<Decoder>(site, spec, "decoders", make_decoder));
  fail(site, fmt::format("decoder \"{}\" is not supported (supported: ByteLevel, Metaspace, Replace, ByteFallback, "
                         "Fuse, Strip, Sequence)",
                         type));
}

}  // namespace ripplekv::bpe
