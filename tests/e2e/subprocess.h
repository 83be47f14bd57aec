// Runs a command line through /bin/sh for end-to-end tests of the built
// binaries (rgfx-server, rgfx): its exit code, whether a signal killed it,
// and stdout and stderr together.
#pragma once

#include <string>

namespace rgfx::testing {

struct CommandResult {
  bool exited = false;  // false: killed by a signal (`signal` says which)
  int exit_code = -1;
  int signal = 0;
  std::string output;  // stdout and stderr
};

// `command` is run as `exec COMMAND 2>&1` so the status is the program's own.
CommandResult RunCommand(const std::string& command);

// Single-quoted for the shell.
std::string ShellQuote(const std::string& text);

}  // namespace rgfx::testing
