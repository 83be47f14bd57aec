#pragma once
// Names the calling thread (Linux: /proc/PID/task/TID/comm, at most 15
// characters), so `top -H`, perf and scripts/gpu/thread_cpu.py can tell
// which of the server's stages spends its CPU.

namespace rgfx::service {

void NameThisThread(const char* name);

}  // namespace rgfx::service
