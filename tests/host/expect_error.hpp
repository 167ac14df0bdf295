#pragma once
// Shared by the host tests: expect a tcgen::Error naming `field`, both in
// field() and in the message a user reads; or the message of an error of type E.
#include <doctest/doctest.h>

#include <string>

#include "tcgen/core/error.hpp"

template <class F>
void expect_error(F&& f, const std::string& field) {
  bool threw = false;
  try {
    f();
  } catch (const tcgen::Error& e) {
    threw = true;
    CHECK(e.field() == field);
    CHECK(std::string(e.what()).find(field) != std::string::npos);
  }
  CHECK_MESSAGE(threw, "expected tcgen::Error naming '" << field << "'");
}

// The message of the E that f() throws; a failed check when it throws none.
template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  FAIL("expected an exception");
  return "";
}
