# Sourced by ruler_pooled.sh and samples_needed.sh: Qwen2.5-Coder-1.5B's RULER sample-set folders,
# one list per pool (each set one seed's prompts; see ruler_pooled.sh for what each pool holds).
Q=results/qwen2.5-coder-1.5b-instruct
Q4=($Q/ruler4k $Q/ruler4k_seed43) Q8=($Q/ruler8k $Q/ruler8k_seed43)
Q4_MORE=($Q/ruler4k_seed{44..61})  # six methods, 2 samples per task each (ruler_pooled.sh qwen4k_more)
Q16=($Q/ruler16k $Q/ruler16k_seed{43..56}) Q16_REST=($Q/ruler16k_rest $Q/ruler16k_rest_seed4{3,4,5})
Q32=($Q/ruler32k $Q/ruler32k_seed{43..59}) Q32_REST=($Q/ruler32k_rest $Q/ruler32k_rest_seed43)
