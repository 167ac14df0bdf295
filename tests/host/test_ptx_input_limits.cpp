// The PTX reader on hostile input: 200,000 nested braces in an initializer overflowed the stack of
// the recursive parser (SIGSEGV in tcgen ptx); now it reads them with a loop and refuses a depth past
// its limit with an error naming the line, the depth and the limit. Huge .global arrays cost memory
// only where written.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tcgen/core/error.hpp"
#include "tcgen/ptx/module.hpp"

using namespace tcgen;

namespace {

constexpr const char* kHeader = ".version 8.7\n.target sm_100a\n.address_size 64\n";

std::string nested(int depth, const std::string& inside) {
  return std::string(static_cast<std::size_t>(depth), '{') + inside + std::string(static_cast<std::size_t>(depth), '}');
}

std::string error_of(const std::string& text) {
  try {
    (void)ptx::Module::parse(text, "deep.ptx");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("an initializer 200,000 braces deep is an error naming its depth and the limit, not a stack overflow") {
  const std::string text = std::string(kHeader) + ".global .b32 g[1] = " + nested(200000, "1") + ";\n";
  CHECK(error_of(text) ==
        "PTX = deep.ptx:4: the initializer nests braces 1001 deep is invalid: at most 1000 levels of '{'");
}

// libFuzzer's timeouts (fuzz_ptx_module): the return parameters' loop waited for ')' at the end of the
// file forever. Each input ends inside that list.
TEST_CASE("a .file index past the limit is an error, not a file table of that size") {
  // 2^64 - 1 wrapped the table's size to 0 and wrote past it (UBSan, fuzz_ptx_module); 10^8 asked for 3 GiB.
  CHECK(error_of(std::string(kHeader) + ".file 18446744073709551615 \"k.cu\"\n") ==
        "PTX = deep.ptx:4: .file 18446744073709551615 is invalid: a file index of at most 65535");
  CHECK(error_of(std::string(kHeader) + ".file 100000000 \"k.cu\"\n") ==
        "PTX = deep.ptx:4: .file 100000000 is invalid: a file index of at most 65535");
  CHECK(error_of(std::string(kHeader) + ".file 65535 \"k.cu\"\n") == "(no error)");
}

TEST_CASE("a .func whose return parameters never close is an error at the end of the file, not a hang") {
  const std::string tails[] = {"(", "( I8.5\n", std::string(81, '('), "(G;\n\t.param .u64 ._t%f<11>"};
  for (const std::string& tail : tails) {
    CAPTURE(tail);
    CHECK(error_of(std::string(kHeader) + ".func " + tail) ==
          "PTX = deep.ptx:" + std::to_string(4 + std::count(tail.begin(), tail.end(), '\n')) +
              ": the end of the file is invalid: ')' closing the return parameters of a .func");
  }
}

TEST_CASE("nested initializers within the limit still give their values in order") {
  const ptx::Module m = ptx::Module::parse(
      std::string(kHeader) + ".global .b32 g[2][2] = {{1, 2}, {3, -4}};\n.global .b8 h[3] = " + nested(1000, "7, 8, 9") +
          ";\n",
      "ok.ptx");
  const ptx::Variable* g = nullptr;
  const ptx::Variable* h = nullptr;
  for (const ptx::Variable& v : m.variables()) (v.name == "g" ? g : h) = &v;
  REQUIRE(g);
  REQUIRE(h);
  const auto* words = reinterpret_cast<const std::int32_t*>(g->address);
  CHECK(words[0] == 1);
  CHECK(words[1] == 2);
  CHECK(words[2] == 3);
  CHECK(words[3] == -4);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(h->address);
  CHECK(bytes[0] == 7);
  CHECK(bytes[2] == 9);
  CHECK(error_of(std::string(kHeader) + ".global .b32 g[2] = {1, 2;\n").find("';' is invalid: '}'") != std::string::npos);
}

TEST_CASE("a .b128 variable's initializer: the 64-bit literal, then its sign in the upper half") {
  // The upper 8 bytes were bits >> 64 and more, undefined (UBSan, fuzz_ptx_module).
  const ptx::Module m = ptx::Module::parse(std::string(kHeader) + ".global .b128 q[2] = {-2, 5};\n", "ok.ptx");
  REQUIRE(m.variables().size() == 1);
  const auto* words = reinterpret_cast<const std::uint64_t*>(m.variables()[0].address);
  CHECK(words[0] == 0xFFFFFFFFFFFFFFFEull);
  CHECK(words[1] == 0xFFFFFFFFFFFFFFFFull);
  CHECK(words[2] == 5);
  CHECK(words[3] == 0);
}

TEST_CASE("blocks 200,000 deep in a kernel are refused at the limit: each name lookup walks the enclosing blocks") {
  const std::string text = std::string(kHeader) + ".visible .entry k()\n{\n" + nested(200000, "ret;") + "\n}\n";
  CHECK(error_of(text) ==
        "PTX = deep.ptx:6: a block in k nests braces 1001 deep is invalid: at most 1000 levels of '{'");
  // 999 blocks inside the function's own: still a kernel.
  const ptx::Module m = ptx::Module::parse(std::string(kHeader) + ".visible .entry k()\n{\n" + nested(999, "ret;") + "\n}\n", "ok.ptx");
  CHECK(m.functions().size() == 1);
}

TEST_CASE("a module's large .global arrays cost memory only where they are written") {
  // Four arrays of 3 GiB (fuzz_ptx_module's out-of-memory report was of this kind): zero-filled on
  // the host, they would take 12 GiB before any kernel runs. They must read as zero, and the peak
  // resident size must grow by under a sixteenth of that (AddressSanitizer's shadow of the blocks
  // takes 3% of them; writing a third of each made it 4 GiB, checked).
  const auto peak_kib = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
  };
  const long before = peak_kib();
  std::string text = kHeader;
  for (int i = 0; i < 4; ++i) text += ".global .align 4 .b8 big" + std::to_string(i) + "[3221225472];\n";
  const ptx::Module m = ptx::Module::parse(text, "big.ptx");
  const std::vector<ptx::Module::Storage> storage = m.storage();
  REQUIRE(storage.size() == 4);
  for (const ptx::Module::Storage& s : storage) {
    CHECK(s.end - s.begin == 3221225472u);
    CHECK(*reinterpret_cast<const std::uint8_t*>(s.begin + 1234567) == 0);
  }
  CHECK(peak_kib() - before < 4 * 3221225472L / 1024 / 16);
}

TEST_CASE("a register count past the limit is an error naming it, not a wrapped count") {
  // %p<33333333333333333333333333333335> (2^64 - 1 once read) wrapped the function's 32-bit slot
  // total below its first slot, and the predicate map's fill got a negative size (AddressSanitizer,
  // fuzz_ptx_module).
  const auto kernel = [](const std::string& regs) {
    return std::string(kHeader) + ".visible .entry k()\n{\n" + regs + "\n\tret;\n}\n";
  };
  CHECK(error_of(kernel("\t.reg .pred \t%p<33333333333333333333333333333335>;")) ==
        "PTX = deep.ptx:6: .reg %p<18446744073709551615> is invalid: at most 1048576 register slots in a function "
        "(a .b128 takes two)");
  CHECK(error_of(kernel("\t.reg .b32 \t%r<1048000>;\n\t.reg .b128 \t%q<300>;")) ==
        "PTX = deep.ptx:7: .reg %q<300> is invalid: at most 1048576 register slots in a function (a .b128 takes two)");
  CHECK(error_of(kernel("\t.reg .b32 \t%r<1048576>;")) == "(no error)");
}
