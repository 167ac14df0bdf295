#pragma once
// Shared by the host tests: expect a tcgen::Error naming `field`, both in
// field() and in the message a user reads.
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
