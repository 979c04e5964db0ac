// Builds analysed on several threads: each build once, errors carried back, and the same capture
// (layers, figures, findings, diagnostics in the same order) as one thread gives.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/analyze.h"
#include "ingest/grammar.h"
#include "ingest/load.h"
#include "model/parallel.h"
#include "render/json.h"
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

std::string whole_json(const Capture& c) {
  std::vector<const Build*> all;
  for (const auto& b : c.builds) all.push_back(&b);
  return dump_json(capture_json(c, all));
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
    EXPECT_EQ(whole_json(one), whole_json(many)) << paths.front();
    ASSERT_EQ(one.diagnostics.size(), many.diagnostics.size()) << paths.front();
    for (size_t i = 0; i < one.diagnostics.size(); ++i) {
      EXPECT_EQ(one.diagnostics[i].message, many.diagnostics[i].message) << paths.front();
      EXPECT_EQ(one.diagnostics[i].where.line, many.diagnostics[i].where.line) << paths.front();
    }
  }
}

}  // namespace
}  // namespace trtlens
