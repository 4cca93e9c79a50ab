#include "core/compress/observation_share.h"

#include <ATen/core/Tensor.h>

namespace ripplekv {

std::pair<std::shared_ptr<ObservationShare::PerLayer>, bool> ObservationShare::entry(const std::string& key,
                                                                                      int64_t num_layers) {
  auto& slot = entries_[key];
  if (slot) return {slot, false};
  slot = std::make_shared<PerLayer>(static_cast<std::size_t>(num_layers));
  return {slot, true};
}

}  // namespace ripplekv
