#include <kvsize/hf_config.hpp>  // needs nlohmann_json: target kvsize::hf
#include <kvsize/kv_cache.hpp>

#include <cstdio>

int main() {
  try {
    const auto c = kvsize::hf::load_config("configs/Qwen__Qwen2.5-7B.config.json");
    std::printf("%s: %u layers, %llu B of KV for one 8,192-token sequence\n", c.model_type.c_str(), c.spec.layers,
                static_cast<unsigned long long>(kvsize::kv_bytes(c.spec, 8'192, 1).count()));
    for (const auto& g : c.layers) {  // what each group of layers keeps, and which key said so
      std::printf("  layers %u..%u: %s\n", g.first_layer, g.first_layer + g.count - 1, g.reason.c_str());
    }
    const auto bad = kvsize::hf::parse_config(R"({"num_hidden_layers": -1})");
  } catch (const kvsize::hf::config_error& e) {
    std::printf("%s\n", e.what());  // config.json:/num_hidden_layers: expected a positive integer, got -1
  }
}
