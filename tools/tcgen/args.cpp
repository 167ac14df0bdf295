#include "args.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "tcgen/core/error.hpp"

namespace tcgen::cli {

namespace {
std::string names(std::span<const Option> allowed) {
  std::string s;
  for (const Option& o : allowed) s += (s.empty() ? "--" : ", --") + std::string(o.name);
  return s.empty() ? "no options" : s;
}
std::string quoted(std::string_view text) {
  std::string q = "\"";
  q += text;
  q += '"';
  return q;
}
// The option `key` names among `allowed`, by its name or its alias; null when none.
const Option* find_option(std::span<const Option> allowed, std::string_view key) {
  const auto it = std::find_if(allowed.begin(), allowed.end(),
                               [&](const Option& o) { return o.name == key || (!o.alias.empty() && o.alias == key); });
  return it == allowed.end() ? nullptr : &*it;
}

// Edits from a to b, a swap of two neighbouring letters counting as one ("casual" for "causal",
// "fmah" for "fmha"): the optimal string alignment distance.
std::size_t edits(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// The spelling a near miss is compared in: lower case, '_' as '-' (--M is --m, --seq_q is --seq-q).
std::string folded(std::string_view word) {
  std::string s(word);
  for (char& c : s) c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates, std::string_view prefix) {
  std::string_view best;
  std::size_t best_edits = 3;  // a near miss: at most two letters wrong, and fewer than a third of the word
  const std::string w = folded(word);
  for (const std::string_view c : candidates) {
    // Every edit changes the length by at most one: a word this much longer or shorter is no near miss.
    if (std::max(w.size(), c.size()) - std::min(w.size(), c.size()) >= best_edits) continue;
    if (const std::size_t e = edits(w, folded(c)); e < best_edits && (e == 0 || 3 * e < std::max(w.size(), c.size()))) {
      best = c;
      best_edits = e;
    }
  }
  return best.empty() ? std::string() : "; did you mean " + std::string(prefix) + std::string(best) + "?";
}

bool wants_help(std::span<const std::string> args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
}

double parse_positive(std::string_view option, const std::string& text, std::string_view example, double most) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(x) || x <= 0 || x > most)
    fail(("--" + std::string(option)).c_str(), text,
         "expected a positive finite number up to " + std::to_string(most) + ", e.g. " + std::string(example));
  return x;
}

std::int64_t parse_integer(std::string_view option, std::string_view text, std::int64_t lo, std::int64_t hi) {
  const std::string expected = "expected a decimal integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  const std::string field = "--" + std::string(option);
  if (text.empty() || text.size() > 18) fail(field.c_str(), quoted(text), expected);
  std::int64_t v = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') fail(field.c_str(), quoted(text), expected);
    v = v * 10 + (ch - '0');
  }
  if (v < lo || v > hi) fail(field.c_str(), std::string(text), expected);
  return v;
}

Args::Args(std::span<const std::string> args, std::span<const Option> allowed) : allowed_(allowed) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 3 || a.compare(0, 2, "--") != 0)
      fail("argument", quoted(a), "expected one of the options " + names(allowed));
    std::string key = a.substr(2), value;
    bool inline_value = false;
    if (const auto eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key.resize(eq);
      inline_value = true;
    }
    const Option* it = find_option(allowed, key);
    if (!it) {
      std::vector<std::string_view> candidates;
      for (const Option& o : allowed) {
        candidates.push_back(o.name);
        if (!o.alias.empty()) candidates.push_back(o.alias);  // sparse-decode's --seq_q means its --seq-q
      }
      fail("option", "--" + key, "expected one of " + names(allowed) + did_you_mean(key, candidates, "--"));
    }
    const std::string typed = key;
    key = it->name;
    if (const auto before = typed_.find(key); before != typed_.end())
      fail(("--" + typed).c_str(), before->second == typed ? "given twice" : "given with --" + before->second,
           before->second == typed ? "expected each option at most once"
                                   : "expected one of the two, which name one option");
    typed_[key] = typed;
    if (it->takes_value()) {
      if (!inline_value) {
        if (i + 1 == args.size() || args[i + 1].compare(0, 2, "--") == 0)
          fail(("--" + key).c_str(), "(no value)", "expected a value after --" + key);
        value = args[++i];
      }
      if (value.empty()) fail(("--" + key).c_str(), "(empty)", "expected a value after --" + key);
    } else if (inline_value) {
      fail(("--" + key).c_str(), value, "expected no value: --" + key + " is a switch");
    }
    values_[key] = value;
  }
}

std::string Args::text(std::string_view name) const {
  if (const auto it = values_.find(std::string(name)); it != values_.end()) return it->second;
  if (const Option* o = find_option(allowed_, name); o && !o->fallback.empty()) return std::string(o->fallback);
  fail(("--" + std::string(name)).c_str(), "(not given)", "expected the option, which is required (see --help)");
}

std::string Args::text_or(std::string_view name, std::string_view fallback) const {
  const auto it = values_.find(std::string(name));
  return it == values_.end() ? std::string(fallback) : it->second;
}

std::int64_t Args::integer(std::string_view name, std::int64_t lo, std::int64_t hi) const {
  return parse_integer(name, text(name), lo, hi);
}

std::int64_t Args::integer_or(std::string_view name, std::int64_t fallback, std::int64_t lo, std::int64_t hi) const {
  return has(name) ? integer(name, lo, hi) : fallback;
}

}  // namespace tcgen::cli
