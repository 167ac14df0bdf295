#pragma once
// The rule-table idiom, written once. A rule table is an X-macro that lists
// each rule once, in the order the rules are checked:
//
//   #define TCGEN_FOO_RULES(X) X(code, "field", "sentence") ...
//
// `field` names what the rule is about (the model's tables keep the PTX
// anchor there); `sentence` says what is allowed. From one table:
//
//   TCGEN_RULE_ENUM(FooRule, TCGEN_FOO_RULES);     enum class FooRule { ok, code, ... }
//   TCGEN_RULE_LOOKUPS(FooRule, TCGEN_FOO_RULES)   rule_code(), rule_field(), rule_sentence() of a FooRule
//   TCGEN_RULE_ASSERTS(FooRule, TCGEN_FOO_RULES, verdict);         in a function: one static_assert per
//   TCGEN_RULE_MEMBER_ASSERTS(FooRule, TCGEN_FOO_RULES, verdict);  in a class:    rule, with its sentence
//
// so a broken rule stops the compile with its own sentence, and a run-time
// check throws fail(rule_field(r), value, rule_sentence(r)). A table may add
// columns after the sentence (the host model's severity); these ignore them.

#define TCGEN_RULE_CODE_(code, field, sentence, ...) code,
#define TCGEN_RULE_CASE_CODE_(code, field, sentence, ...) \
  case tcgen_rule_::code: return #code;
#define TCGEN_RULE_CASE_FIELD_(code, field, sentence, ...) \
  case tcgen_rule_::code: return field;
#define TCGEN_RULE_CASE_SENTENCE_(code, field, sentence, ...) \
  case tcgen_rule_::code: return sentence;
#define TCGEN_RULE_ASSERT_(code, field, sentence, ...) static_assert(tcgen_verdict_ != tcgen_rule_::code, sentence);

#define TCGEN_RULE_ENUM(NAME, RULES) enum class NAME { ok, RULES(TCGEN_RULE_CODE_) }

// One lookup: FN(NAME) returns CASE's column of the rule, OK for NAME::ok.
#define TCGEN_RULE_LOOKUP_(NAME, RULES, FN, CASE, OK) \
  constexpr const char* FN(NAME r) {                   \
    using tcgen_rule_ = NAME;                          \
    switch (r) {                                       \
      case NAME::ok: return OK;                        \
        RULES(CASE)                                    \
    }                                                  \
    return "?";                                        \
  }

#define TCGEN_RULE_LOOKUPS(NAME, RULES)                                         \
  TCGEN_RULE_LOOKUP_(NAME, RULES, rule_code, TCGEN_RULE_CASE_CODE_, "ok")       \
  TCGEN_RULE_LOOKUP_(NAME, RULES, rule_field, TCGEN_RULE_CASE_FIELD_, "")       \
  TCGEN_RULE_LOOKUP_(NAME, RULES, rule_sentence, TCGEN_RULE_CASE_SENTENCE_, "")

#define TCGEN_RULE_ASSERTS(NAME, RULES, VERDICT) \
  using tcgen_rule_ = NAME;                      \
  constexpr NAME tcgen_verdict_ = (VERDICT);     \
  RULES(TCGEN_RULE_ASSERT_) static_assert(true)

#define TCGEN_RULE_MEMBER_ASSERTS(NAME, RULES, VERDICT) \
  using tcgen_rule_ = NAME;                             \
  static constexpr NAME tcgen_verdict_ = (VERDICT);     \
  RULES(TCGEN_RULE_ASSERT_) static_assert(true)
