#include "lexer.hpp"

#include <unordered_map>

#include "tcgen/core/error.hpp"

namespace tcgen::ptx {

namespace {

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '%' || c == '.';
}

}  // namespace

std::vector<Token> lex(std::string_view s, const std::string& file) {
  std::vector<Token> out;
  std::uint32_t line = 1;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/')) line += s[i++] == '\n';
      i += 2;
    } else if (c == '"') {
      const std::size_t start = ++i;
      while (i < s.size() && s[i] != '"') ++i;
      out.push_back({Token::Kind::string, s.substr(start, i - start), line, s.data() + start - 1});
      ++i;
    } else if (word_char(c)) {
      const std::size_t start = i;
      while (i < s.size() && (word_char(s[i]) || (s[i] == ':' && i + 1 < s.size() && s[i + 1] == ':'))) {
        if (s[i] == ':') ++i;
        ++i;
      }
      out.push_back({Token::Kind::word, s.substr(start, i - start), line, s.data() + start});
    } else if (std::strchr(",;{}[]()<>+-=@!|:", c)) {
      out.push_back({Token::Kind::punct, s.substr(i, 1), line, s.data() + i});
      ++i;
    } else {
      fail("PTX text", file + ":" + std::to_string(line) + ": character '" + std::string(1, c) + "'",
           "PTX: words, numbers, strings and the punctuation , ; { } [ ] ( ) < > + - = @ ! | :");
    }
  }
  out.push_back({Token::Kind::end, {}, line, s.data() + s.size()});
  return out;
}

std::optional<Special> special_register(std::string_view n) {
  static const std::unordered_map<std::string_view, Special> table = {
      {"%tid.x", Special::tid_x}, {"%tid.y", Special::tid_y}, {"%tid.z", Special::tid_z},
      {"%ntid.x", Special::ntid_x}, {"%ntid.y", Special::ntid_y}, {"%ntid.z", Special::ntid_z},
      {"%ctaid.x", Special::ctaid_x}, {"%ctaid.y", Special::ctaid_y}, {"%ctaid.z", Special::ctaid_z},
      {"%nctaid.x", Special::nctaid_x}, {"%nctaid.y", Special::nctaid_y}, {"%nctaid.z", Special::nctaid_z},
      {"%laneid", Special::laneid}, {"%warpid", Special::warpid}, {"%nwarpid", Special::nwarpid},
      {"%smid", Special::smid}, {"%nsmid", Special::nsmid}, {"%gridid", Special::gridid},
      {"%clock", Special::clock}, {"%clock64", Special::clock64}, {"%globaltimer", Special::globaltimer},
      {"%lanemask_eq", Special::lanemask_eq}, {"%lanemask_lt", Special::lanemask_lt},
      {"%lanemask_le", Special::lanemask_le}, {"%lanemask_gt", Special::lanemask_gt},
      {"%lanemask_ge", Special::lanemask_ge}, {"%cluster_ctarank", Special::cluster_ctarank},
      {"%cluster_nctarank", Special::cluster_nctarank}, {"%clusterid.x", Special::clusterid_x},
      {"%clusterid.y", Special::clusterid_y}, {"%clusterid.z", Special::clusterid_z},
      {"%nclusterid.x", Special::nclusterid_x}, {"%nclusterid.y", Special::nclusterid_y},
      {"%nclusterid.z", Special::nclusterid_z}, {"%cluster_ctaid.x", Special::cluster_ctaid_x},
      {"%cluster_ctaid.y", Special::cluster_ctaid_y}, {"%cluster_ctaid.z", Special::cluster_ctaid_z},
      {"%cluster_nctaid.x", Special::cluster_nctaid_x}, {"%cluster_nctaid.y", Special::cluster_nctaid_y},
      {"%cluster_nctaid.z", Special::cluster_nctaid_z}, {"%is_explicit_cluster", Special::is_explicit_cluster},
      {"%dynamic_smem_size", Special::dynamic_smem_size}, {"%total_smem_size", Special::total_smem_size},
  };
  const auto it = table.find(n);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

}  // namespace tcgen::ptx
