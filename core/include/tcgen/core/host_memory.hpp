#pragma once
// The memory this process may use: the machine's physical memory, or its
// cgroup's limit where that is lower (a container). What tcgen refuses to
// allocate past, rather than leave the process to the OOM killer.
namespace tcgen {

double host_memory_limit_bytes();

}  // namespace tcgen
