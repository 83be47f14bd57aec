#include "service/scheduler.h"

#include <new>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "service/thread_name.h"

namespace rgfx::service {
namespace {

// A host allocation that fails (std::bad_alloc) fails that request with
// RESOURCE_EXHAUSTED; the server and the other requests go on.
template <typename Fn>
absl::Status NoBadAlloc(const char* stage, Fn&& fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the server ran out of host memory during ", stage, "; retry later"));
  }
}

}  // namespace

Scheduler::Scheduler(const SchedulerOptions& options) : options_(options) {
  for (int i = 0; i < options_.cpu_threads; ++i) threads_.emplace_back([this] {
      NameThisThread("rgfx-cpu");
      CpuLoop();
    });
  for (int i = 0; i < options_.gpu_workers; ++i) threads_.emplace_back([this, i] {
      NameThisThread("rgfx-gpu");
      GpuLoop(i);
    });
}

Scheduler::~Scheduler() {
  Drain();
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

absl::Status Scheduler::Submit(std::unique_ptr<Job> job) {
  absl::MutexLock lock(&mu_);
  if (draining_) return absl::UnavailableError("the server is shutting down");
  job->enqueued_ = absl::Now();
  if (in_flight_ < options_.max_in_flight) {
    StartLocked(job.release());
    return absl::OkStatus();
  }
  if (static_cast<int>(waiting_.size()) >= options_.max_queued) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "server busy: ", in_flight_, " requests in flight and ", waiting_.size(),
        " queued (--max_in_flight=", options_.max_in_flight, ", --max_queued=",
        options_.max_queued, "); retry with backoff"));
  }
  waiting_.push_back(job.release());
  return absl::OkStatus();
}

std::vector<absl::Status> Job::RunGpuBatch(int worker, std::span<Job* const> batch) {
  std::vector<absl::Status> statuses;
  for (Job* job : batch) statuses.push_back(job->RunGpu(worker));
  return statuses;
}

void Scheduler::StartLocked(Job* job) {
  ++in_flight_;
  ++preparing_;
  to_prepare_.push_back(job);
}

void Scheduler::Dequeued(Job* job) {
  job->queue_ns_ += absl::ToInt64Nanoseconds(absl::Now() - job->enqueued_);
}

void Scheduler::Complete(Job* job, const absl::Status& status) {
  job->Done(status);
  delete job;
  absl::MutexLock lock(&mu_);
  --in_flight_;
  ++completed_;
  if (!waiting_.empty()) {
    Job* next = waiting_.front();
    waiting_.pop_front();
    StartLocked(next);
  }
}

void Scheduler::CpuLoop() {
  while (true) {
    Job* job = nullptr;
    bool finish = false;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](Scheduler* s) ABSL_NO_THREAD_SAFETY_ANALYSIS {
            return s->stop_ || !s->to_finish_.empty() || !s->to_prepare_.empty();
          },
          this));
      if (!to_finish_.empty()) {
        job = to_finish_.front();
        to_finish_.pop_front();
        finish = true;
      } else if (!to_prepare_.empty()) {
        job = to_prepare_.front();
        to_prepare_.pop_front();
      } else {
        return;  // stop_ and nothing left
      }
    }
    Dequeued(job);
    if (finish) {
      RunFinish(job);
    } else {
      RunPrepare(job);
    }
  }
}

void Scheduler::RunPrepare(Job* job) {
  absl::Status status = job->CheckAlive();
  if (status.ok()) status = NoBadAlloc("decode", [job] { return job->Prepare(); });
  if (!status.ok()) {
    {
      absl::MutexLock lock(&mu_);
      --preparing_;
    }
    return Complete(job, status);
  }
  absl::MutexLock lock(&mu_);
  --preparing_;
  job->enqueued_ = absl::Now();
  to_gpu_.push_back(job);
}

void Scheduler::RunFinish(Job* job) {
  absl::Status status = job->CheckAlive();
  if (status.ok()) status = NoBadAlloc("encode", [job] { return job->Finish(); });
  Complete(job, status);
}

bool Scheduler::HasKeyLocked(const std::string& key) const {
  for (const Job* job : to_gpu_) {
    if (job->BatchKey() == key) return true;
  }
  return false;
}

void Scheduler::TakeSameKeyLocked(const std::string& key, std::vector<Job*>& batch) {
  for (auto it = to_gpu_.begin();
       it != to_gpu_.end() && static_cast<int>(batch.size()) < options_.max_batch;) {
    if ((*it)->BatchKey() == key) {
      batch.push_back(*it);
      it = to_gpu_.erase(it);
    } else {
      ++it;
    }
  }
}

void Scheduler::GpuLoop(int worker) {
  struct Wait {
    Scheduler* self;
    const std::string* key;
  };
  while (true) {
    std::vector<Job*> batch;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](Scheduler* s) ABSL_NO_THREAD_SAFETY_ANALYSIS { return s->stop_ || !s->to_gpu_.empty(); },
          this));
      if (to_gpu_.empty()) return;
      batch.push_back(to_gpu_.front());
      to_gpu_.pop_front();
      const std::string key = batch.front()->BatchKey();
      if (!key.empty() && options_.max_batch > 1) {
        TakeSameKeyLocked(key, batch);
        // Others being prepared may have the same key: wait a bounded time.
        const absl::Time until = absl::Now() + options_.batch_delay;
        Wait wait{this, &key};
        while (static_cast<int>(batch.size()) < options_.max_batch && preparing_ > 0 && !stop_ &&
               absl::Now() < until) {
          mu_.AwaitWithDeadline(absl::Condition(
                                    +[](Wait* w) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                      return w->self->stop_ || w->self->preparing_ == 0 ||
                                             w->self->HasKeyLocked(*w->key);
                                    },
                                    &wait),
                                until);
          TakeSameKeyLocked(key, batch);
        }
      }
    }
    std::vector<Job*> alive;
    for (Job* job : batch) {
      Dequeued(job);
      if (absl::Status status = job->CheckAlive(); !status.ok()) {
        Complete(job, status);
      } else {
        alive.push_back(job);
      }
    }
    if (alive.size() == 1) {
      AfterGpu(alive.front(),
               NoBadAlloc("the GPU stage", [&] { return alive.front()->RunGpu(worker); }));
    } else if (!alive.empty()) {
      std::vector<absl::Status> statuses;
      const absl::Status batch = NoBadAlloc("the GPU stage", [&] {
        statuses = alive.front()->RunGpuBatch(worker, alive);
        return absl::OkStatus();
      });
      statuses.resize(alive.size(), batch.ok() ? absl::InternalError("no status") : batch);
      for (size_t i = 0; i < alive.size(); ++i) AfterGpu(alive[i], statuses[i]);
    }
  }
}

void Scheduler::AfterGpu(Job* job, const absl::Status& status) {
  if (!status.ok()) return Complete(job, status);
  absl::MutexLock lock(&mu_);
  job->enqueued_ = absl::Now();
  to_finish_.push_back(job);
}

void Scheduler::Drain() {
  absl::MutexLock lock(&mu_);
  draining_ = true;
  mu_.Await(absl::Condition(
      +[](Scheduler* s) ABSL_NO_THREAD_SAFETY_ANALYSIS {
        return s->in_flight_ == 0 && s->waiting_.empty();
      },
      this));
}

int Scheduler::queued() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(waiting_.size());
}

int64_t Scheduler::completed() const {
  absl::MutexLock lock(&mu_);
  return completed_;
}

int Scheduler::gpu_queued() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(to_gpu_.size());
}

int Scheduler::in_flight() const {
  absl::MutexLock lock(&mu_);
  return in_flight_;
}

}  // namespace rgfx::service
