#include "eval/engine/task.h"

#include <stdexcept>

namespace ripplekv::eval {

std::string Task::forced_record(std::size_t, const ForcedComparison&) const {
  throw std::logic_error(name() + ": this task has no forced continuations");
}

}  // namespace ripplekv::eval
