#pragma once
// A PTX module of one kernel for the interpreter's tests: k(.u64 param) loads its parameter into
// %rd0 (PTX line 11) and %tid.x into %r0 (line 12), runs `body` from line 13, and returns. Registers
// %p0-3, %r0-7 and %rd0-3 are declared.
#include <string>

inline std::string one_param_kernel(const std::string& body) {
  return R"(.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(
	.param .u64 k_param_0
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<4>;
	ld.param.u64 	%rd0, [k_param_0];
	mov.u32 	%r0, %tid.x;
)" + body + R"(
	ret;
}
)";
}
