#include "service/thread_name.h"

#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace rgfx::service {

void NameThisThread(const char* name) {
  // The kernel refuses names over 15 characters; cut rather than lose it.
  const std::string cut(name, std::min<size_t>(std::strlen(name), 15));
  pthread_setname_np(pthread_self(), cut.c_str());
}

}  // namespace rgfx::service
