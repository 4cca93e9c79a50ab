# scripts/device/real_model.sh's default plan (sourced there; `job NAME ARGS...` runs one
# `ripplekv ruler` with ARGS): SmolLM2-135M-Instruct on RULER 4k in bfloat16, every baseline and
# RippleKV with the float32 profile at r = 2, 4, 8 and 8 rank, budgets 128-1024. First the
# seed-44 samples that ran on the CPU (ruler4k_seed44: the same prompts, so the devices compare
# per variant), then new sets of 3 samples per task (seeds 100 on) while time is left.
P=results/smollm2-135m-instruct/profiles/layer_mean_eps0.1_seed0_texts0-7_f32.json
M="full,snapkv,pyramidkv,streamingllm,h2o,cake,squeeze"
for r in ratio=2 ratio=4 ratio=8 ratio=8,normalize=rank; do M+=",ripple@profile=$P,$r"; done
job ruler4k_seed44 --lengths 4096 --samples 5 --seed 44 --budgets 128,256,512,1024 --methods "$M"
for s in $(seq 100 139); do
  job "ruler4k_seed$s" --lengths 4096 --samples 3 --seed "$s" --budgets 128,256,512,1024 --methods "$M"
done
