// Builds analysed on several threads: each build once, errors carried back, and the same capture
// (layers, figures, findings, diagnostics in the same order) as one thread gives.
#include "model/parallel.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "analysis/analyze.h"
#include "ingest/grammar.h"
#include "ingest/load.h"
#include "test_support.h"

namespace trtlens {
namespace {

TEST(ParallelAnalysis, EveryItemRunsOnceOnAnyThreadCount) {
  for (unsigned threads : {0u, 1u, 2u, 3u, 8u})
    for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(7), size_t(100)}) {
      std::vector<std::atomic<int>> runs(n);
      parallel_for(n, threads, [&](size_t i) { runs[i].fetch_add(1); });
      for (size_t i = 0; i < n; ++i)
        EXPECT_EQ(runs[i].load(), 1) << "item " << i << " of " << n << ", threads " << threads;
    }
}

TEST(ParallelAnalysis, AnItemsErrorReachesTheCaller) {
  for (unsigned threads : {1u, 2u, 4u}) {
    std::atomic<int> ran{0};
    try {
      parallel_for(50, threads, [&](size_t i) {
        ran.fetch_add(1);
        if (i == 3) throw std::runtime_error("item 3");
      });
      ADD_FAILURE() << "no exception with " << threads << " threads";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "item 3");
    }
    EXPECT_GE(ran.load(), 4);  // items 0..3 at least; the rest may stop early
  }
}

// The helpers are kept from one loop to the next, not started anew for each: the kernel's thread
// ids (which, unlike std::thread::id, a new thread does not take over from a finished one) of
// the threads other than the caller that ran items over twenty loops are no more than the pool
// holds. That is one when this test runs alone (as ctest runs it), and at most the seven
// helpers of the 8-thread loops above when the whole binary runs; a thread a loop made twenty.
TEST(ParallelAnalysis, TheHelperThreadsAreKeptAcrossLoops) {
  const pid_t caller = gettid();
  std::mutex lock;
  std::set<pid_t> helpers;
  for (int loop = 0; loop < 20; ++loop)
    parallel_for(16, 2, [&](size_t) {
      std::this_thread::sleep_for(std::chrono::microseconds(500));  // time for the helper to join
      const pid_t me = gettid();
      if (me == caller) return;
      std::lock_guard<std::mutex> hold(lock);
      helpers.insert(me);
    });
  EXPECT_GE(helpers.size(), 1u);
  EXPECT_LE(helpers.size(), 7u);
}

// A loop inside an item (on the caller or on a helper) and loops from two threads at once each
// run every item once.
TEST(ParallelAnalysis, NestedLoopsAndLoopsFromTwoThreadsRunEveryItemOnce) {
  std::vector<std::atomic<int>> runs(6 * 5);
  parallel_for(
      6, 2, [&](size_t i) { parallel_for(5, 2, [&](size_t j) { runs[i * 5 + j].fetch_add(1); }); });
  for (size_t k = 0; k < runs.size(); ++k) EXPECT_EQ(runs[k].load(), 1) << "item " << k;

  std::vector<std::atomic<int>> a(500), b(500);
  auto loops = [](std::vector<std::atomic<int>>& v) {
    for (int round = 0; round < 20; ++round)
      parallel_for(v.size(), 2, [&](size_t i) { v[i].fetch_add(1); });
  };
  std::thread other([&] { loops(b); });
  loops(a);
  other.join();
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].load(), 20) << "item " << i;
    EXPECT_EQ(b[i].load(), 20) << "item " << i;
  }
}

Capture analysed(const std::vector<std::string>& paths, unsigned threads,
                 const std::vector<std::string>& shapes = {}) {
  auto grammar = Grammar::load();
  ReadLimits limits;
  limits.threads = threads;
  Capture c = load_capture(paths, *grammar, limits);
  AnalysisOptions options;
  options.threads = threads;
  options.shapes = shapes;
  analyze(c, options);
  return c;
}

// Counted by hand from the fixture: FLOAT17 is first used by build 0 (line 4), BFLOAT9 by
// build 1 (line 11), WEIRD3 by build 2 (line 18); later uses are not warned again.
TEST(ParallelAnalysis, UnknownDtypesAreWarnedOnceInTheFirstBuildUsingThem) {
  const std::string log = test::fixture("core/three_builds_odd_dtypes.log");
  for (unsigned threads : {1u, 3u}) {
    Capture c = analysed({log}, threads);
    ASSERT_EQ(c.builds.size(), 3u);
    std::vector<std::pair<uint64_t, std::string>> said;
    for (const auto& d : c.diagnostics)
      if (d.message.find("has no known element size") != std::string::npos)
        said.emplace_back(d.where.line, d.message.substr(0, d.message.find(" has")));
    const std::vector<std::pair<uint64_t, std::string>> expected = {
        {4, "dtype 'FLOAT17'"}, {11, "dtype 'BFLOAT9'"}, {18, "dtype 'WEIRD3'"}};
    EXPECT_EQ(said, expected) << threads << " threads";
  }
}

TEST(ParallelAnalysis, ThreadsGiveTheCaptureOneThreadGives) {
  std::vector<std::vector<std::string>> captures = {
      {test::fixture("core/three_builds_odd_dtypes.log")},
      {test::fixture("memory/several_builds.log")},
      {test::fixture("formats/tuner_11_1.log")},
      {test::fixture("core/prefixes.log")},
  };
  if (!test::shared_dir().empty()) {
    const std::string resnet =
        test::shared_dir() + "/corpus/trex/examples/pytorch/resnet/A100/fp16/resnet.onnx.engine";
    captures.push_back({resnet + ".graph.json", resnet + ".profile.json", resnet + ".timing.json"});
  }
  // Two builds of dynamic shapes with the model: the ONNX library's shape inference is shared by
  // the builds, and its diagnostics come from the builds' threads.
  const std::vector<std::string> shapes = {"input=2x3x224x224"};
  captures.push_back({test::fixture("semantics/dynamic_onnx.log"),
                      test::fixture("semantics/dynamic_cut_tensor.log"),
                      test::fixture("semantics/dynamic.onnx")});
  for (const auto& paths : captures) {
    const bool dynamic = paths.back().find("dynamic.onnx") != std::string::npos;
    Capture one = analysed(paths, 1, dynamic ? shapes : std::vector<std::string>{});
    Capture many = analysed(paths, 4, dynamic ? shapes : std::vector<std::string>{});
    if (dynamic) {
      EXPECT_EQ(one.builds.size(), 2u);
      bool inferred = false;
      for (const auto& d : many.diagnostics)
        inferred = inferred || d.message.find("from the ONNX model's shape inference") !=
                                   std::string::npos;
      EXPECT_TRUE(inferred) << "the case should run the ONNX shape inference";
    }
    EXPECT_EQ(test::whole_json(one), test::whole_json(many)) << paths.front();
    ASSERT_EQ(one.diagnostics.size(), many.diagnostics.size()) << paths.front();
    for (size_t i = 0; i < one.diagnostics.size(); ++i) {
      EXPECT_EQ(one.diagnostics[i].message, many.diagnostics[i].message) << paths.front();
      EXPECT_EQ(one.diagnostics[i].where.line, many.diagnostics[i].where.line) << paths.front();
    }
  }
}

}  // namespace
}  // namespace trtlens
