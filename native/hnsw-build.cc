// Parallel HNSW index builder for quiver's vector leg.
//
// hnswlib-node inserts one vector at a time on the JavaScript thread; hnswlib itself supports
// concurrent insertion (per-node link locks), so this program builds the same kind of graph on every
// core and writes the file hnswlib-node's readIndex() loads. It is compiled at install time by
// scripts/build-native.mjs against the hnswlib headers bundled with hnswlib-node, so the graph code
// and the file format are exactly those of the binding that reads the result.
//
//   hnsw-build <space ip|cosine> <dims> <count> <M> <efConstruction> <seed> <threads> <out-file>
//              [<parent-pid> <temp-dir>]
//
// stdin: `count` records of [uint32 label, little-endian][dims × float32]; zero rows must be left
// out by the caller. stdout: `progress <inserted>` after each batch, then `done <inserted> <peak RSS KiB>`.
// The index is written to `<out-file>.partial` and renamed to `<out-file>` once complete.
// With threads = 1 the insertion order and the level generator's draws equal hnswlib-node's
// in-order build with the same seed, so the file is the same graph.
//
// The builder dies with its parent. Given <parent-pid> (0: no parent to watch), it exits when its
// parent is not that process any more: on Linux the kernel sends SIGTERM when the parent dies
// (PR_SET_PDEATHSIG) and a getppid() check at start covers a parent that died before that was set;
// elsewhere a thread polls getppid() every 200 ms. Input that ends before `count` rows (the parent's
// end of the pipe closed) also ends it. On every failure, and on SIGTERM, SIGINT, SIGHUP or SIGPIPE,
// it removes what it wrote (`<out-file>.partial`, or `<out-file>` once renamed) and then the (by then
// empty) <temp-dir>.
//
// Exit status 0 on success; 2 on bad arguments or short input, 3 when the index cannot be written,
// 4 when the parent is gone, 128 + n on signal n.
#include "hnswlib/hnswlib.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <vector>

// QUIVER_NO_PDEATHSIG forces the portable getppid() watcher, to test it on Linux.
#if defined(__linux__) && !defined(QUIVER_NO_PDEATHSIG)
#define QUIVER_PDEATHSIG 1
#include <sys/prctl.h>
#endif

namespace {

constexpr size_t kBatch = 8192;

constexpr int kBadInput = 2;
constexpr int kWriteFailed = 3;
constexpr int kParentGone = 4;

// What a failure or a signal removes. The paths are set once, before the signal handlers are
// installed, and never changed; they point into argv or into `partialPath`. `out-file` itself is
// removed only once this run has written it (a file that was there before is not this run's).
const char* outPath = nullptr;
char partialPath[4096] = {0};
const char* tempDir = nullptr;
volatile std::sig_atomic_t wroteOut = 0;

// Only async-signal-safe calls (unlink, rmdir): it runs from the signal handler and the watcher.
void removeOutput() {
  if (partialPath[0] != '\0') unlink(partialPath);
  if (wroteOut != 0) unlink(outPath);
  if (tempDir != nullptr) rmdir(tempDir);
}

void onSignal(int sig) {
  removeOutput();
  _exit(128 + sig);
}

void installSignalHandlers() {
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGPIPE}) sigaction(sig, &sa, nullptr);
}

// End this process when its parent is no longer `parent` (re-parented to init or a subreaper).
// Linux sends the death signal when the thread that spawned this process ends; Node spawns on its
// event-loop thread, which lives as long as the process (or Worker) that owns the build.
void dieWithParent(pid_t parent) {
#ifdef QUIVER_PDEATHSIG
  prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
  if (parent == 0) return;
  if (getppid() != parent) {  // it died before the death signal was set up
    removeOutput();
    _exit(kParentGone);
  }
#ifndef QUIVER_PDEATHSIG
  std::thread([parent] {
    while (getppid() == parent) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    removeOutput();
    _exit(kParentGone);
  }).detach();
#endif
}

bool parse(const char* s, size_t* out) {
  char* end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (end == s || *end != '\0') return false;
  *out = static_cast<size_t>(v);
  return true;
}

// Peak resident memory of this program in KiB. Linux's VmHWM belongs to the memory image made by
// exec; getrusage's ru_maxrss also counts the parent's image copied by fork before the exec (a
// multi-gigabyte Node process), so it is only the fallback where /proc is missing.
long peakRssKiB() {
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    long kib = -1;
    while (std::fgets(line, sizeof line, f) != nullptr)
      if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    std::fclose(f);
    if (kib >= 0) return kib;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

bool readExactly(void* buf, size_t bytes) {
  return std::fread(buf, 1, bytes, stdin) == bytes;
}

// Clean up what this run wrote, then exit with `code` (a failure).
[[noreturn]] void fail(int code) {
  removeOutput();
  std::fflush(nullptr);
  _exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything else: where the output goes, the handlers that remove it, the parent watch.
  size_t parent = 0;
  if (argc == 9 || argc == 11) {
    outPath = argv[8];
    if (std::snprintf(partialPath, sizeof partialPath, "%s.partial", argv[8]) >= int(sizeof partialPath))
      partialPath[0] = '\0';
    if (argc == 11) tempDir = argv[10];
  }
  installSignalHandlers();
  const bool parentOk = argc != 11 || parse(argv[9], &parent);
  dieWithParent(static_cast<pid_t>(parent));
  if ((argc != 9 && argc != 11) || partialPath[0] == '\0') {
    std::fprintf(stderr,
                 "usage: hnsw-build <ip|cosine> <dims> <count> <M> <efConstruction> <seed> <threads> <out> "
                 "[<parent-pid> <temp-dir>]\n");
    fail(kBadInput);
  }
  const std::string space_name = argv[1];
  size_t dims = 0, count = 0, m = 0, efc = 0, seed = 0, threads = 0;
  if ((space_name != "ip" && space_name != "cosine") || !parse(argv[2], &dims) || !parse(argv[3], &count) ||
      !parse(argv[4], &m) || !parse(argv[5], &efc) || !parse(argv[6], &seed) || !parse(argv[7], &threads) ||
      dims == 0 || m < 2 || efc == 0 || threads == 0 || !parentOk) {
    std::fprintf(stderr, "hnsw-build: bad arguments\n");
    fail(kBadInput);
  }
  const bool normalize = space_name == "cosine";
  hnswlib::InnerProductSpace space(dims);
  hnswlib::HierarchicalNSW<float> index(&space, count > 0 ? count : 1, m, efc, seed);

  const size_t record = sizeof(uint32_t) + dims * sizeof(float);
  std::vector<char> raw(kBatch * record);
  std::vector<uint32_t> labels(kBatch);
  std::vector<float> rows(kBatch * dims);
  size_t inserted = 0;
  while (inserted < count) {
    const size_t n = std::min(kBatch, count - inserted);
    if (!readExactly(raw.data(), n * record)) {
      std::fprintf(stderr, "hnsw-build: input ended after %zu of %zu rows\n", inserted, count);
      fail(kBadInput);
    }
    for (size_t i = 0; i < n; i++) {
      const char* p = raw.data() + i * record;
      std::memcpy(&labels[i], p, sizeof(uint32_t));
      float* row = rows.data() + i * dims;
      std::memcpy(row, p + sizeof(uint32_t), dims * sizeof(float));
      if (normalize) {
        float sq = 0;
        for (size_t j = 0; j < dims; j++) sq += row[j] * row[j];
        const float inv = 1.0f / (std::sqrt(sq) + 1e-30f);
        for (size_t j = 0; j < dims; j++) row[j] *= inv;
      }
    }
    // Rows of one batch are claimed one at a time by the workers. The entry point is set by the
    // first insert, so the very first row is added alone before the others start.
    std::atomic<size_t> next{0};
    if (inserted == 0 && n > 0) {
      index.addPoint(rows.data(), labels[0]);
      next = 1;
    }
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < n;) index.addPoint(rows.data() + i * dims, labels[i]);
    };
    const size_t t = std::min(threads, n);
    if (t <= 1) {
      work();
    } else {
      std::vector<std::thread> pool;
      for (size_t k = 0; k < t; k++) pool.emplace_back(work);
      for (auto& th : pool) th.join();
    }
    inserted += n;
    std::printf("progress %zu\n", inserted);
    std::fflush(stdout);
  }
  try {
    index.saveIndex(partialPath);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hnsw-build: cannot write %s: %s\n", partialPath, e.what());
    fail(kWriteFailed);
  }
  if (std::rename(partialPath, outPath) != 0) {
    std::fprintf(stderr, "hnsw-build: cannot write %s: %s\n", outPath, std::strerror(errno));
    fail(kWriteFailed);
  }
  wroteOut = 1;
  std::printf("done %zu %ld\n", inserted, peakRssKiB());
  return 0;
}
