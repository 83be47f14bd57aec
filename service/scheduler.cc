#include "service/scheduler.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace rgfx::service {

Scheduler::Scheduler(const SchedulerOptions& options) : options_(options) {
  for (int i = 0; i < options_.cpu_threads; ++i) threads_.emplace_back([this] { CpuLoop(); });
  for (int i = 0; i < options_.gpu_workers; ++i) threads_.emplace_back([this, i] { GpuLoop(i); });
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

void Scheduler::StartLocked(Job* job) {
  ++in_flight_;
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
  if (status.ok()) status = job->Prepare();
  if (!status.ok()) return Complete(job, status);
  absl::MutexLock lock(&mu_);
  job->enqueued_ = absl::Now();
  to_gpu_.push_back(job);
}

void Scheduler::RunFinish(Job* job) {
  absl::Status status = job->CheckAlive();
  if (status.ok()) status = job->Finish();
  Complete(job, status);
}

void Scheduler::GpuLoop(int worker) {
  while (true) {
    Job* job = nullptr;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](Scheduler* s) ABSL_NO_THREAD_SAFETY_ANALYSIS { return s->stop_ || !s->to_gpu_.empty(); },
          this));
      if (to_gpu_.empty()) return;
      job = to_gpu_.front();
      to_gpu_.pop_front();
    }
    Dequeued(job);
    absl::Status status = job->CheckAlive();
    if (status.ok()) status = job->RunGpu(worker);
    if (!status.ok()) {
      Complete(job, status);
      continue;
    }
    absl::MutexLock lock(&mu_);
    job->enqueued_ = absl::Now();
    to_finish_.push_back(job);
  }
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

int Scheduler::in_flight() const {
  absl::MutexLock lock(&mu_);
  return in_flight_;
}

}  // namespace rgfx::service
