#pragma once
// A mixture-of-experts layer's inputs drawn at random, for `tcgen moe`'s
// built-in example and the tests: each of `batch` tokens routed to `topk`
// distinct experts (uniformly at random, or every token to expert 0), its activation
// repeated for each, grouped by expert (or balanced: token t's j-th expert
// (t·topk + j) mod experts, so that every expert gets the same count where
// experts divides batch · topk); the experts' weights; both quantised
// by quantise.hpp. Values are uniform in [-1, 1) times 2^e, e uniform in
// -4 .. 4 per 32 elements, so that the blocks' factors differ.
//
// The up projection (gate and up, SwiGLU fused): K = hidden, n = 2 ·
// intermediate, each 128 rows of an expert's W its 64 gate rows then the 64 up
// rows of the same outputs (problem.hpp). The down projection: K =
// intermediate, n = hidden.
#include <cstdint>
#include <string_view>
#include <vector>

#include "tcgen/moe/quantise.hpp"

namespace tcgen::moe {

enum class Routing { random, balanced, one_expert };
enum class Projection { up, down };
Routing parse_routing(std::string_view text);        // "random", "balanced", "one-expert"
Projection parse_projection(std::string_view text);  // "up", "down"
const char* name(Routing r);
const char* name(Projection p);

struct MoeExample {
  int experts = 8, topk = 2, batch = 128, hidden = 512, intermediate = 256;
  Projection projection = Projection::up;
  Routing routing = Routing::random;
  int n() const { return projection == Projection::up ? 2 * intermediate : hidden; }
  int k() const { return projection == Projection::up ? hidden : intermediate; }
  // Throws tcgen::Error naming the field of a layer the kernel cannot run.
  void validate() const;
};

struct MoeInputs {
  std::vector<int> counts;  // tokens an expert
  int n = 0, k = 0;
  Quantised a;  // [Σ counts, k] MXFP8, grouped by expert (quantise_grouped)
  Quantised w;  // [experts · n, k] MXFP4
  int tokens() const { return a.rows; }
};

MoeInputs random_moe_inputs(const MoeExample& e, std::uint64_t seed);

}  // namespace tcgen::moe
