// KL divergence between next-token distributions given as logits (stateless).
#pragma once

#include <ATen/ATen.h>

#include <string>

namespace ripplekv {

// forward: KL(P_clean || P_perturbed) (default: how much the perturbed model loses of the
// clean distribution's mass, the direction llama.cpp's --kl-divergence reports);
// reverse: KL(P_perturbed || P_clean); symmetric: the mean of both.
enum class KlDirection { Forward, Reverse, Symmetric };
KlDirection parse_kl_direction(const std::string& name);
std::string kl_direction_name(KlDirection d);

// Per-row KL for logits [..., V] (any float dtype; computed in float64). Returns [...].
at::Tensor kl_divergence(const at::Tensor& clean_logits, const at::Tensor& other_logits, KlDirection direction);

}  // namespace ripplekv
