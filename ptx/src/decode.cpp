#include "decode.hpp"

#include <map>
#include <mutex>

#include "opcode_forms.hpp"
#include "opcode_table_lookup.hpp"
#include "tcgen/core/error.hpp"
#include "thread.hpp"
#include "warp_lockstep.hpp"
#include "warp_recorder.hpp"

namespace tcgen::ptx {

Opcode::Opcode(std::string_view text) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '.') {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
}

bool Opcode::has(std::string_view suffix) const {
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (parts[i] == suffix) return true;
  return false;
}

int Opcode::which(std::initializer_list<std::string_view> suffixes) const {
  int found = -1, i = 0;
  for (std::string_view s : suffixes) {
    if (has(s)) found = i;
    ++i;
  }
  return found;
}

std::string_view Opcode::starting(std::string_view prefix) const {
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (parts[i].substr(0, prefix.size()) == prefix) return parts[i];
  return {};
}

std::vector<Type> Opcode::types() const {
  std::vector<Type> out;
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (auto t = parse_type(parts[i])) out.push_back(*t);
  return out;
}

Type Opcode::type() const {
  const std::vector<Type> t = types();
  return t.empty() ? Type::none : t.back();
}

Space Opcode::space() const {
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string_view p = parts[i];
    if (p == "global") return Space::global;
    if (p == "shared" || p.substr(0, 8) == "shared::") return Space::shared;
    if (p == "local") return Space::local;
    if (p == "param" || p.substr(0, 7) == "param::") return Space::param;
    if (p == "const") return Space::const_;
  }
  return Space::generic;
}

bool decode(Instruction& in, std::string& why) {
  const Opcode op(in.opcode);
  in.type = op.type();
  in.space = op.space();
  const std::optional<OpcodeEntry> entry = find_opcode(op);
  if (!entry) {
    // An unknown member of a dotted family (tcgen05.shift) is named; any other opcode is unknown whole.
    why = op.parts.size() > 1 && names_rows(op.base()) ? std::string(op.base()) + "." + std::string(op.parts[1])
                                                       : "no handler for this opcode";
    return false;
  }
  if (!accepts(entry->row, op, in.ops.size())) {
    // PTX's own refusal (ptxas's) where the row's decoder knows one says more than "not modelled".
    Instruction trial = in;
    if (in.ops.size() >= fewest_operands(entry->row) && !entry->decode(op, trial, why) &&
        why.starts_with("invalid PTX"))
      return false;
    why = "not modelled: " + in.opcode + " with " + std::to_string(in.ops.size()) + " operand" +
          (in.ops.size() == 1 ? "" : "s") + "; the nearest form the interpreter runs is " +
          nearest_form(entry->row, op, in.ops.size());
    return false;
  }
  in.lane_step = lane_step(entry->row.name, entry->row.family, op);  // the row's; its decoder may refine it
  if (entry->decode(op, in, why)) {
    in.timing = timing_op(entry->row.name, entry->row.family, op);
    return true;
  }
  if (why.empty()) why = "no handler for this opcode";
  return false;
}

namespace {

struct WarpForms {
  std::mutex lock;
  std::map<Handler, WarpHandler> of;
};
WarpForms& warp_forms() {
  static WarpForms forms;
  return forms;
}

}  // namespace

void add_warp_form(Handler run, WarpHandler warp) {
  WarpForms& forms = warp_forms();
  const std::lock_guard hold(forms.lock);
  forms.of.emplace(run, warp);
}

void attach_warp_forms(Function& f) {
  WarpForms& forms = warp_forms();
  const std::lock_guard hold(forms.lock);
  for (Instruction& in : f.code) {
    const auto it = forms.of.find(in.run);
    in.warp = it == forms.of.end() ? nullptr : it->second;
  }
}

void run_nothing(Thread&, const Instruction&) {}

void run_unsupported(Thread& t, const Instruction& in) {
  // What decode said when the module loaded: a form not modelled names the nearest one that is.
  for (const Function& f : t.grid().module.functions())
    for (const Unsupported& u : f.unsupported)
      if (u.line == in.line && u.opcode == in.opcode)
        fault("opcode", in.opcode, "an instruction the host model's PTX interpreter runs: " + u.missing);
  fault("opcode", in.opcode,
        "an instruction the host model's PTX interpreter runs (`tcgen ptx FILE.ptx` lists those it does not)");
}

}  // namespace tcgen::ptx
