#include "client/load.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "client/load_stats.h"

namespace rgfx::client {
namespace {

using Clock = std::chrono::steady_clock;

Clock::duration Seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// Backoff of a caller whose calls fail UNAVAILABLE (no connection, or a
// server that says it cannot serve): 10 ms doubling to 1 s, so a refused
// connection costs a few calls per second instead of a busy loop.
constexpr auto kFirstBackoff = std::chrono::milliseconds(10);
constexpr auto kMaxBackoff = std::chrono::milliseconds(1000);

// Everything the callers share. Answers are recorded under one lock: a few
// thousand per second at most, each a handful of vector pushes.
class Run {
 public:
  explicit Run(const LoadOptions& options) : options_(options), start_(Clock::now()) {
    last_success_ = start_;
  }

  Clock::time_point start() const { return start_; }
  bool stopping() const { return stop_.HasBeenNotified(); }
  // Sleeps until `t` or until the run stops; false if it stopped.
  bool SleepUntil(Clock::time_point t) {
    const auto now = Clock::now();
    if (t <= now) return !stopping();
    return !stop_.WaitForNotificationWithTimeout(absl::FromChrono(t - now));
  }

  // The next request to send and when it is due; false when the count or
  // time is used up or the run stopped.
  bool Claim(int64_t& index, Clock::time_point& due) {
    if (stopping()) return false;
    index = next_.fetch_add(1);
    if (options_.requests > 0 && index >= options_.requests) return false;
    due = options_.rps > 0 ? start_ + Seconds(static_cast<double>(index) / options_.rps)
                           : Clock::now();
    if (options_.duration_seconds > 0 && due >= start_ + Seconds(options_.duration_seconds)) {
      return false;
    }
    return true;
  }

  // `answer` is read only for OK answers.
  void Record(Clock::time_point due, Clock::time_point answered, const grpc::Status& status,
              const SerializedRequest& request, const ResponseSummary& answer) {
    absl::MutexLock lock(&mu_);
    ++result_.sent;
    const bool unavailable = status.error_code() == grpc::StatusCode::UNAVAILABLE;
    if (status.ok()) last_success_ = answered;
    if (!status.ok()) ++errors_;
    if (!status.ok() && options_.max_errors > 0 && errors_ >= options_.max_errors && !stopping()) {
      Stop(absl::StrFormat("stopped after %d errors (--max_errors); the last: %s: %s", errors_,
                           StatusCodeName(status.error_code()), status.error_message()));
    }
    if (unavailable && answered - last_success_ >= Seconds(options_.give_up_seconds) &&
        !stopping()) {
      Stop(absl::StrFormat(
          "gave up: no successful answer for %.1f s while calls fail UNAVAILABLE (%s); is the "
          "server running and reachable?",
          options_.give_up_seconds, status.error_message()));
    }
    ++answered_;
    if (answered_ <= options_.warmup_requests ||
        due < start_ + Seconds(options_.warmup_seconds)) {
      ++result_.warmup_skipped;
      return;
    }
    if (result_.latency_ms.empty() || due < first_due_) first_due_ = due;
    last_answer_ = std::max(last_answer_, answered);
    result_.latency_ms.push_back(Ms(answered - due));
    const std::string code = StatusCodeName(status.error_code());
    result_.codes[code]++;
    result_.bytes_sent += request.bytes;
    if (!status.ok()) {
      result_.error_messages[absl::StrCat(code, ": ", status.error_message())]++;
      return;
    }
    result_.bytes_received += answer.message_bytes;
    const v1::ProcessResponse& response = answer.rest;
    const v1::StageTimings& t = response.stages();
    auto add = [&](const char* name, int64_t ns) { result_.stages_ms[name].push_back(ns / 1e6); };
    add("queue", t.queue_ns());
    add("decode", t.decode_ns());
    add("compile", t.compile_ns());
    add("upload", t.upload_ns());
    add("submit", t.submit_ns());
    if (t.has_gpu_ns()) add("gpu", t.gpu_ns());
    add("download", t.download_ns());
    add("encode", t.encode_ns());
    add("total", t.total_ns());
    for (const v1::PassTiming& p : response.passes()) {
      if (p.internal() || !p.has_gpu_ns()) continue;
      result_.pass_gpu_ms[absl::StrCat(p.pass(), " (", p.type(), "/", p.variant(), ")")]
          .push_back(p.gpu_ns() / 1e6);
    }
  }

  // A line for a terminal: elapsed, answers, rate, errors.
  std::string Progress() {
    absl::MutexLock lock(&mu_);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    return absl::StrFormat("%7.1f s  %d answered  %.1f/s  %d errors", elapsed, answered_,
                           elapsed > 0 ? answered_ / elapsed : 0.0, errors_);
  }

  LoadResult Finish() {
    absl::MutexLock lock(&mu_);
    result_.seconds = result_.latency_ms.empty()
                          ? 0
                          : std::chrono::duration<double>(last_answer_ - first_due_).count();
    result_.stopped = stopped_;
    return std::move(result_);
  }

  void Stop(std::string why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    stopped_ = std::move(why);
    stop_.Notify();
  }

 private:
  const LoadOptions& options_;
  const Clock::time_point start_;
  std::atomic<int64_t> next_{0};
  absl::Notification stop_;
  absl::Mutex mu_;
  LoadResult result_ ABSL_GUARDED_BY(mu_);
  int64_t answered_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t errors_ ABSL_GUARDED_BY(mu_) = 0;
  Clock::time_point last_success_ ABSL_GUARDED_BY(mu_);
  Clock::time_point first_due_ ABSL_GUARDED_BY(mu_);
  Clock::time_point last_answer_ ABSL_GUARDED_BY(mu_);
  std::string stopped_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

int64_t LoadResult::ok() const {
  auto it = codes.find("OK");
  return it == codes.end() ? 0 : it->second;
}

LoadResult RunLoad(const ChannelFactory& channels, const std::vector<v1::ProcessRequest>& requests,
                   const LoadOptions& options) {
  std::vector<SerializedRequest> serialized;
  serialized.reserve(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    absl::StatusOr<SerializedRequest> s = SerializeRequest(requests[i]);
    if (!s.ok()) {
      LoadResult result;
      result.stopped = absl::StrCat("request ", i, ": ", s.status().message());
      return result;
    }
    serialized.push_back(*std::move(s));
  }
  return RunLoad(channels, serialized, options);
}

LoadResult RunLoad(const ChannelFactory& channels, const std::vector<SerializedRequest>& requests,
                   const LoadOptions& options) {
  const int connections = std::max(1, options.connections);
  const int concurrency = std::max(1, options.concurrency);
  std::vector<std::shared_ptr<grpc::Channel>> made;
  for (int i = 0; i < connections; ++i) made.push_back(channels(i));
  Run run(options);

  auto caller = [&](int index) {
    ProcessCaller process(made[index % connections]);
    Clock::duration backoff = Clock::duration::zero();
    int64_t k = 0;
    Clock::time_point due;
    while (run.Claim(k, due)) {
      if (!run.SleepUntil(due)) break;  // open loop: wait for the request's time
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::duration_cast<std::chrono::system_clock::duration>(
                               Seconds(options.timeout_seconds)));
      ResponseSummary answer;
      const SerializedRequest& request = requests[static_cast<size_t>(k) % requests.size()];
      const grpc::Status status = process.Call(&context, request, &answer);
      run.Record(due, Clock::now(), status, request, answer);
      if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
        backoff = std::clamp<Clock::duration>(backoff * 2, kFirstBackoff, kMaxBackoff);
        if (!run.SleepUntil(Clock::now() + backoff)) break;
      } else {
        backoff = Clock::duration::zero();
      }
    }
  };
  std::vector<std::thread> callers;
  for (int i = 0; i < concurrency; ++i) callers.emplace_back(caller, i);

  absl::Notification callers_done;
  std::thread progress;
  if (options.progress) {
    progress = std::thread([&] {
      while (!callers_done.WaitForNotificationWithTimeout(absl::Milliseconds(250))) {
        std::fprintf(stderr, "\r%s\033[K", run.Progress().c_str());
        std::fflush(stderr);
      }
      std::fprintf(stderr, "\r\033[K");
    });
  }
  for (std::thread& t : callers) t.join();
  callers_done.Notify();
  if (progress.joinable()) progress.join();

  LoadResult result = run.Finish();
  result.concurrency = concurrency;
  result.rps_target = options.rps;
  result.connections = connections;
  return result;
}

}  // namespace rgfx::client
