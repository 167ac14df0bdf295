// A program with a __managed__ variable, which tcgen does not emulate: it stops at the variable's
// registration, before main, naming it (exit 2).
#include <cstdio>

__managed__ int counter;

__global__ void bump() { ++counter; }

int main() {
  std::printf("main reached\n");
  bump<<<1, 1>>>();
  return 0;
}
