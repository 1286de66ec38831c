#!/usr/bin/env python3
"""Independent parameter-count derivations from HF config.json (research aid for kvsize).

Counts trainable parameters as the HF transformers module tree defines them
(no buffers such as rotary inv_freq or causal-mask buffers). Prints a breakdown.
Usage: python3 derive_params.py [config-dir]
"""
import json, math, os, sys

D = sys.argv[1] if len(sys.argv) > 1 else "configs"


def load(name):
    t = open(os.path.join(D, name)).read().replace("Infinity", "1e999")
    return json.loads(t)


def llama_like(c, *, qkv_bias=False, o_bias=False, qk_norm=False, norms_per_layer=2,
               mlp="gated", tie=None, norm_has_bias=False, head_dim=None):
    H = c["hidden_size"]; V = c["vocab_size"]; L = c["num_hidden_layers"]
    nh = c["num_attention_heads"]; nkv = c.get("num_key_value_heads") or nh
    hd = head_dim or c.get("head_dim") or H // nh
    I = c["intermediate_size"]
    if tie is None:
        tie = c.get("tie_word_embeddings", True)
    nw = 2 if norm_has_bias else 1
    attn = H * nh * hd + 2 * H * nkv * hd + nh * hd * H
    if qkv_bias:
        attn += nh * hd + 2 * nkv * hd
    if o_bias:
        attn += H
    if qk_norm:
        attn += 2 * hd
    ffn = 3 * H * I if mlp == "gated" else 2 * H * I
    per_layer = attn + ffn + norms_per_layer * H * nw
    emb = V * H
    total = emb + L * per_layer + H * nw + (0 if tie else V * H)
    return dict(total=total, embed=emb, per_layer=per_layer, attn=attn, ffn=ffn,
                lm_head=0 if tie else V * H, layers=L)


def moe_layer(H, E, I_moe, *, gated=True, router_bias=False, corr_bias=False,
              shared_I=0, shared_gate=False, expert_bias=False):
    experts = E * ((3 if gated else 2) * H * I_moe)
    if expert_bias:
        experts += E * ((2 * I_moe if gated else I_moe) + H)
    router = E * H + (E if router_bias else 0) + (E if corr_bias else 0)
    shared = ((3 if gated else 2) * H * shared_I) if shared_I else 0
    if shared_gate:
        shared += H
    return experts + router + shared


R = {}


def rec(name, total, note=""):
    R[name] = (total, note)


# ---- dense llama-family ----
for f, kw in [
    ("meta-llama__Llama-2-7b-hf", {}),
    ("meta-llama__Llama-2-70b-hf", {}),
    ("meta-llama__Llama-3.1-8B", {}),
    ("meta-llama__Llama-3.1-70B", {}),
    ("meta-llama__Llama-3.1-405B", {}),
    ("meta-llama__Llama-3.2-1B-Instruct", {}),
    ("mistralai__Mistral-7B-v0.1", {}),
    ("microsoft__Phi-3-mini-4k-instruct", {}),
    ("microsoft__phi-4", {}),
    ("Qwen__Qwen2.5-0.5B", dict(qkv_bias=True)),
    ("Qwen__Qwen2.5-1.5B", dict(qkv_bias=True)),
    ("Qwen__Qwen2.5-7B", dict(qkv_bias=True)),
    ("Qwen__Qwen2.5-72B", dict(qkv_bias=True)),
    ("Qwen__Qwen3-0.6B", dict(qk_norm=True)),
    ("Qwen__Qwen3-8B", dict(qk_norm=True)),
    ("Qwen__Qwen3-32B", dict(qk_norm=True)),
    ("google__gemma-2b-it", dict(tie=True)),
    ("google__gemma-2-9b", dict(tie=True, norms_per_layer=4)),
    # Cohere: one LayerNorm (weight only) per layer, parallel block, tied
    ("CohereForAI__c4ai-command-r-v01", dict(norms_per_layer=1)),
]:
    c = load(f + ".config.json")
    r = llama_like(c, **kw)
    rec(f, r["total"], f"per_layer={r['per_layer']:,} embed={r['embed']:,} lm_head={r['lm_head']:,}")

# Llama-2 7B tie default: Llama config default tie_word_embeddings False -> fine (key present)

# ---- Gemma 3 text (+ vision) ----
def gemma3(f, defaults):
    c = load(f + ".config.json")
    t = dict(defaults); t.update(c["text_config"])
    H = t["hidden_size"]; L = t["num_hidden_layers"]; nh = t["num_attention_heads"]
    nkv = t["num_key_value_heads"]; hd = t["head_dim"]; I = t["intermediate_size"]; V = t["vocab_size"]
    attn = H * nh * hd + 2 * H * nkv * hd + nh * hd * H + 2 * hd  # q_norm,k_norm
    per_layer = attn + 3 * H * I + 4 * H
    text = V * H + L * per_layer + H
    v = c["vision_config"]
    vh = v["hidden_size"]; vi = v["intermediate_size"]; vl = v["num_hidden_layers"]; p = v["patch_size"]
    npatch = (v["image_size"] // p) ** 2
    vis = (3 * p * p * vh + vh) + npatch * vh  # patch conv + bias, position embedding
    vis += vl * (4 * (vh * vh + vh) + 2 * 2 * vh + vh * vi + vi + vi * vh + vh)
    vis += 2 * vh  # post_layernorm
    proj = vh * H + vh  # mm_input_projection_weight + mm_soft_emb_norm
    return text, vis, proj

g3def4 = dict(num_attention_heads=8, num_key_value_heads=4, head_dim=256, vocab_size=262208)
g3def27 = dict(num_attention_heads=8, num_key_value_heads=4, head_dim=256, vocab_size=262208)
for f, dd in [("google__gemma-3-4b-it", g3def4), ("google__gemma-3-27b-it", g3def27)]:
    text, vis, proj = gemma3(f, dd)
    rec(f, text + vis + proj, f"text={text:,} vision={vis:,} projector={proj:,}")
    rec(f + " [text only]", text, "")

# ---- Qwen3 MoE ----
for f in ["Qwen__Qwen3-30B-A3B", "Qwen__Qwen3-235B-A22B"]:
    c = load(f + ".config.json")
    H = c["hidden_size"]; L = c["num_hidden_layers"]; nh = c["num_attention_heads"]
    nkv = c["num_key_value_heads"]; hd = c["head_dim"]; V = c["vocab_size"]
    attn = H * nh * hd + 2 * H * nkv * hd + nh * hd * H + 2 * hd
    moe = moe_layer(H, c["num_experts"], c["moe_intermediate_size"])
    per_layer = attn + moe + 2 * H
    total = 2 * V * H + L * per_layer + H
    rec(f, total, f"per_layer={per_layer:,}")

# ---- Mixtral ----
for f in ["mistralai__Mixtral-8x7B-v0.1", "mistralai__Mixtral-8x22B-v0.1"]:
    c = load(f + ".config.json")
    H = c["hidden_size"]; L = c["num_hidden_layers"]; nh = c["num_attention_heads"]
    nkv = c["num_key_value_heads"]; hd = H // nh; V = c["vocab_size"]
    attn = H * nh * hd + 2 * H * nkv * hd + nh * hd * H
    moe = moe_layer(H, c["num_local_experts"], c["intermediate_size"])
    per_layer = attn + moe + 2 * H
    rec(f, 2 * V * H + L * per_layer + H, f"per_layer={per_layer:,}")

# ---- GPT-2 ----
c = load("openai-community__gpt2-xl.config.json")
H = c["n_embd"]; L = c["n_layer"]; V = c["vocab_size"]; P = c["n_positions"]
per_layer = 2 * H + (H * 3 * H + 3 * H) + (H * H + H) + 2 * H + (H * 4 * H + 4 * H) + (4 * H * H + H)
gpt2 = V * H + P * H + L * per_layer + 2 * H
rec("openai-community__gpt2-xl", gpt2, f"per_layer={per_layer:,}; +attn.bias buffers 48*1024*1024 (+masked_bias) in .bin")

# ---- Falcon (RW) ----
c = load("tiiuae__falcon-7b.config.json")
H = c["hidden_size"]; L = c["n_layer"]; V = c["vocab_size"]; nh = c["n_head"]; hd = H // nh
qkv = H * (nh * hd + 2 * hd)
per_layer = 2 * H + qkv + H * H + 8 * H * H
rec("tiiuae__falcon-7b", V * H + L * per_layer + 2 * H, f"per_layer={per_layer:,}, tied")
c = load("tiiuae__falcon-40b.config.json")
H = c["hidden_size"]; L = c["n_layer"]; V = c["vocab_size"]; nh = c["n_head"]; nkv = c["n_head_kv"]; hd = H // nh
qkv = H * (nh + 2 * nkv) * hd
per_layer = 4 * H + qkv + H * H + 8 * H * H  # ln_attn + ln_mlp (weight+bias)
rec("tiiuae__falcon-40b", V * H + L * per_layer + 2 * H, f"per_layer={per_layer:,}, tied")

# ---- MPT ----
c = load("mosaicml__mpt-7b-instruct.config.json")
H = c["d_model"]; L = c["n_layers"]; V = c["vocab_size"]; e = c["expansion_ratio"]
per_layer = H + 3 * H * H + H * H + H + 2 * e * H * H  # norms weight only (no_bias)
rec("mosaicml__mpt-7b-instruct", V * H + L * per_layer + H, f"per_layer={per_layer:,}, tied, alibi (no pos emb)")

# ---- GPT-NeoX ----
c = load("togethercomputer__RedPajama-INCITE-7B-Base.config.json")
H = c["hidden_size"]; L = c["num_hidden_layers"]; V = c["vocab_size"]; I = c["intermediate_size"]
per_layer = 4 * H + (3 * H * H + 3 * H) + (H * H + H) + (H * I + I) + (I * H + H)
rec("togethercomputer__RedPajama-INCITE-7B-Base", 2 * V * H + L * per_layer + 2 * H, f"per_layer={per_layer:,}")

# ---- ChatGLM3 ----
c = load("THUDM__chatglm3-6b.config.json")
H = c["hidden_size"]; L = c["num_layers"]; V = c["padded_vocab_size"]; nh = c["num_attention_heads"]
kv = c["kv_channels"]; g = c["multi_query_group_num"]; F = c["ffn_hidden_size"]
qkv_out = nh * kv + 2 * g * kv
per_layer = H + (H * qkv_out + qkv_out) + nh * kv * H + H + H * 2 * F + F * H
tot = V * H + L * per_layer + H + V * H
rec("THUDM__chatglm3-6b", tot, f"per_layer={per_layer:,}; +rotary inv_freq buffer {kv//4} elems in checkpoint")

# ---- DeepSeek V3 / Kimi K2 (MLA + MoE) ----
def dsv3(c):
    H = c["hidden_size"]; L = c["num_hidden_layers"]; V = c["vocab_size"]; nh = c["num_attention_heads"]
    ql = c["q_lora_rank"]; kvl = c["kv_lora_rank"]; nope = c["qk_nope_head_dim"]; rope = c["qk_rope_head_dim"]; vd = c["v_head_dim"]
    attn = H * ql + ql + ql * nh * (nope + rope) + H * (kvl + rope) + kvl + kvl * nh * (nope + vd) + nh * vd * H
    dense = 3 * H * c["intermediate_size"]
    moe = moe_layer(H, c["n_routed_experts"], c["moe_intermediate_size"], corr_bias=(c.get("topk_method") == "noaux_tc"),
                    shared_I=c["moe_intermediate_size"] * c["n_shared_experts"])
    k = c["first_k_dense_replace"]
    main = V * H + k * (attn + dense + 2 * H) + (L - k) * (attn + moe + 2 * H) + H + V * H
    mtp_layer = attn + moe + 2 * H + 2 * H + 2 * H * H + H  # + enorm,hnorm,eh_proj, shared_head.norm
    n_mtp = c.get("num_nextn_predict_layers", 0)
    return main, n_mtp, mtp_layer, V * H, attn, moe, dense

c = load("deepseek-ai__DeepSeek-R1.config.json")
main, n_mtp, mtpl, VH, attn, moe, dense = dsv3(c)
rec("deepseek-ai__DeepSeek-R1", main, f"main model; attn/layer={attn:,} moe/layer={moe:,} dense mlp={dense:,}")
rec("deepseek-ai__DeepSeek-R1 [+MTP, no dup emb/head]", main + n_mtp * mtpl, "")
rec("deepseek-ai__DeepSeek-R1 [+MTP incl. its embed+head copies]", main + n_mtp * (mtpl + 2 * VH), "")
c = load("moonshotai__Kimi-K2-Instruct.config.json")
main, n_mtp, mtpl, VH, attn, moe, dense = dsv3(c)
rec("moonshotai__Kimi-K2-Instruct", main, f"attn/layer={attn:,} moe/layer={moe:,}")

# ---- GLM-4.5 ----
c = load("zai-org__GLM-4.5.config.json")
H = c["hidden_size"]; L = c["num_hidden_layers"]; V = c["vocab_size"]; nh = c["num_attention_heads"]; nkv = c["num_key_value_heads"]; hd = c["head_dim"]
attn = H * nh * hd + 2 * H * nkv * hd + nh * hd * H + nh * hd + 2 * nkv * hd + (2 * hd if c.get("use_qk_norm") else 0)
dense = 3 * H * c["intermediate_size"]
moe = moe_layer(H, c["n_routed_experts"], c["moe_intermediate_size"], corr_bias=True, shared_I=c["moe_intermediate_size"] * c["n_shared_experts"])
k = c["first_k_dense_replace"]
main = V * H + k * (attn + dense + 2 * H) + (L - k) * (attn + moe + 2 * H) + H + V * H
mtp = attn + moe + 2 * H + 2 * H + 2 * H * H + H
rec("zai-org__GLM-4.5", main, f"main; attn/layer={attn:,} moe/layer={moe:,}")
rec("zai-org__GLM-4.5 [+MTP layer, no dup emb/head]", main + mtp, "")
rec("zai-org__GLM-4.5 [+MTP incl. embed+head copies]", main + mtp + 2 * V * H, "")

# ---- gpt-oss ----
for f in ["openai__gpt-oss-20b", "openai__gpt-oss-120b"]:
    c = load(f + ".config.json")
    H = c["hidden_size"]; L = c["num_hidden_layers"]; V = c["vocab_size"]; nh = c["num_attention_heads"]; nkv = c["num_key_value_heads"]; hd = c["head_dim"]
    E = c["num_local_experts"]; I = c["intermediate_size"]
    attn = H * nh * hd + 2 * H * nkv * hd + nh * hd * H + nh * hd + 2 * nkv * hd + H + nh  # biases + sinks
    moe = E * (H * 2 * I + 2 * I + I * H + H) + E * H + E
    per_layer = attn + moe + 2 * H
    tot = 2 * V * H + L * per_layer + H
    rec(f, tot, f"attn/layer={attn:,} moe/layer={moe:,} embed={V*H:,}")

# ---- Nemotron NAS (DeciLM) ----
c = load("nvidia__Llama-3_3-Nemotron-Super-49B-v1.config.json")
H = c["hidden_size"]; V = c["vocab_size"]; nh = c["num_attention_heads"]; hd = H // nh
def ffn_I(mult, n):
    i = int(2 * mult * n / 3)
    return i if i % 256 == 0 else i + 256 - (i % 256)
tot = 2 * V * H + H
for b in c["block_configs"]:
    a = b["attention"]; f_ = b["ffn"]
    if not a["no_op"]:
        nkv = nh // a["n_heads_in_group"]
        tot += H + H * nh * hd + 2 * H * nkv * hd + nh * hd * H
    if not f_["no_op"]:
        tot += H + 3 * H * ffn_I(f_["ffn_mult"], H)
rec("nvidia__Llama-3_3-Nemotron-Super-49B-v1", tot, "DeciLM block_configs; ffn I = ceil256(int(2*mult*H/3))")

# ---- Nemotron-H ----
def nemotron_h(c):
    H = c["hidden_size"]; V = c["vocab_size"]; pat = c["hybrid_override_pattern"]
    nh = c["num_attention_heads"]; nkv = c["num_key_value_heads"]; hd = c.get("head_dim") or c.get("attention_head_dim")
    mh = c["mamba_num_heads"]; mhd = c["mamba_head_dim"]; ng = c["n_groups"]; ds = c["ssm_state_size"]; K = c["conv_kernel"]
    din = mh * mhd
    conv_dim = din + 2 * ng * ds
    mamba = H * (2 * din + 2 * ng * ds + mh) + conv_dim * K + conv_dim + 3 * mh + din + din * H
    att = H * nh * hd + 2 * H * nkv * hd + nh * hd * H
    mlp = 2 * H * c["intermediate_size"]
    moe = 0
    if "n_routed_experts" in c:
        moe = c["n_routed_experts"] * 2 * H * c["moe_intermediate_size"] + c["n_routed_experts"] * H + c["n_routed_experts"] + 2 * H * c["moe_shared_expert_intermediate_size"]
    tot = V * H + H + (0 if c.get("tie_word_embeddings") else V * H)
    for ch in pat:
        tot += H + {"M": mamba, "*": att, "-": mlp, "E": moe}[ch]
    return tot, dict(mamba=mamba, att=att, mlp=mlp, moe=moe)
for f in ["nvidia__Nemotron-H-56B-Base-8K", "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"]:
    t, parts = nemotron_h(load(f + ".config.json"))
    rec(f, t, str({k: f"{v:,}" for k, v in parts.items()}))

# ---- llava-1.5-7b ----
c = load("llava-hf__llava-1.5-7b-hf.config.json")
lm = dict(hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32, vocab_size=c["text_config"]["vocab_size"], tie_word_embeddings=False)
text = llama_like(lm)["total"]
v = c["vision_config"]; vh = v["hidden_size"]; vi = v["intermediate_size"]; vl = v["num_hidden_layers"]; p = v["patch_size"]
npos = (v["image_size"] // p) ** 2 + 1
vis = vh + 3 * p * p * vh + npos * vh + 2 * vh  # class_embedding, patch conv (no bias), pos emb, pre_layrnorm
vis += vl * (4 * (vh * vh + vh) + 4 * vh + vh * vi + vi + vi * vh + vh) + 2 * vh  # layers + post_layernorm
proj = vh * 4096 + 4096 + 4096 * 4096 + 4096
rec("llava-hf__llava-1.5-7b-hf", text + vis + proj, f"text={text:,} vision={vis:,} projector={proj:,}")

# ---- Llama-4 Scout ----
c = load("meta-llama__Llama-4-Scout-17B-16E-Instruct.config.json")
t = c["text_config"]
H = t["hidden_size"]; L = t["num_hidden_layers"]; V = t["vocab_size"]; nh = t["num_attention_heads"]; nkv = t["num_key_value_heads"]; hd = t["head_dim"]
E = t["num_local_experts"]; I = t["intermediate_size"]
attn = H * nh * hd + 2 * H * nkv * hd + nh * hd * H
moe = E * 3 * H * I + E * H + 3 * H * I
text = 2 * V * H + L * (attn + moe + 2 * H) + H
rec("meta-llama__Llama-4-Scout-17B-16E-Instruct [text only]", text, f"attn={attn:,} moe={moe:,}")



# ---- Qwen3-Next (hybrid Gated DeltaNet + gated full attention, MoE every layer) ----
def qwen3_next(c, with_mtp=True):
    H = c["hidden_size"]; V = c["vocab_size"]; L = c["num_hidden_layers"]
    nh = c["num_attention_heads"]; nkv = c["num_key_value_heads"]; hd = c["head_dim"]
    full = H * nh * hd * 2 + 2 * H * nkv * hd + nh * hd * H + 2 * hd  # q_proj doubled (output gate), q/k norm
    kd = c["linear_num_key_heads"] * c["linear_key_head_dim"]; vd = c["linear_num_value_heads"] * c["linear_value_head_dim"]
    nv = c["linear_num_value_heads"]; K = c["linear_conv_kernel_dim"]
    lin = H * (2 * kd + 2 * vd) + H * 2 * nv + (2 * kd + vd) * K + 2 * nv + c["linear_value_head_dim"] + vd * H
    E = c["num_experts"]; Im = c["moe_intermediate_size"]; Is = c["shared_expert_intermediate_size"]
    moe = E * 3 * H * Im + E * H + 3 * H * Is + H  # experts, router, shared expert, shared_expert_gate
    n_full = L // c["full_attention_interval"]; n_lin = L - n_full
    main = 2 * V * H + n_full * full + n_lin * lin + L * (moe + 2 * H) + H
    mtp = full + moe + 2 * H + 2 * H * H + 3 * H  # mtp.layers.0 + fc + pre_fc_norm_embedding/hidden + norm
    return main, mtp
main, mtp = qwen3_next(load("Qwen__Qwen3-Next-80B-A3B-Thinking.config.json"))
rec("Qwen__Qwen3-Next-80B-A3B-Thinking", main, "main model (no MTP)")
rec("Qwen__Qwen3-Next-80B-A3B-Thinking [+MTP module]", main + mtp, "MTP not described by config.json")

# ---- Llama-4 Scout vision tower + projector ----
c = load("meta-llama__Llama-4-Scout-17B-16E-Instruct.config.json"); v = c["vision_config"]; t = c["text_config"]
vh = v["hidden_size"]; vi = v["intermediate_size"]; p = v["patch_size"]; npatch = (v["image_size"] // p) ** 2
vis = v["num_channels"] * p * p * vh + vh + (npatch + 1) * vh + 2 * 2 * vh   # unfold-conv linear, class emb, pos emb, ln_pre/post
vis += v["num_hidden_layers"] * (4 * (vh * vh + vh) + (vh * vi + vi) + (vi * vh + vh) + 4 * vh)
vis += vi * v["projector_input_dim"] + v["projector_output_dim"] ** 2     # pixel-shuffle MLP fc1, fc2 (no bias)
proj = v["vision_output_dim"] * t["hidden_size"]                           # multi_modal_projector.linear_1
scout_text = R["meta-llama__Llama-4-Scout-17B-16E-Instruct [text only]"][0]
rec("meta-llama__Llama-4-Scout-17B-16E-Instruct", scout_text + vis + proj, f"vision={vis:,} projector={proj:,}")

# ---- Qwen2.5-VL-7B ----
c = load("Qwen__Qwen2.5-VL-7B-Instruct.config.json"); v = c["vision_config"]
text = llama_like(c, qkv_bias=True)["total"]
d = v["hidden_size"]; vi = v["intermediate_size"]; p = v["patch_size"]; tp = v["temporal_patch_size"]; m = v["spatial_merge_size"]
vis = v["in_chans"] * tp * p * p * d
vis += v["depth"] * (2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 3 * d * vi + 2 * vi + d)
mh = d * m * m
vis += d + (mh * mh + mh) + (mh * v["out_hidden_size"] + v["out_hidden_size"])
rec("Qwen__Qwen2.5-VL-7B-Instruct", text + vis, f"text={text:,} vision(+merger)={vis:,}")

if __name__ == "__main__":
    w = max(len(k) for k in R)
    for k, (t, n) in R.items():
        print(f"{k:<{w}}  {t:>20,}  {n}")
