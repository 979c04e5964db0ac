// Commands that show some builds have only those and the final build analysed (memory, counts,
// findings); the fixture's three builds (final: build 2) each use an unknown dtype of their own,
// so which were analysed shows in the diagnostics.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/analyze.h"
#include "ingest/grammar.h"
#include "ingest/load.h"
#include "render/json.h"
#include "test_support.h"

namespace trtlens {
namespace {

// An empty `shown`: every build, as commands that compare builds ask.
Capture analysed_showing(const std::string& log, std::vector<int> shown) {
  auto grammar = Grammar::load();
  Capture c = load_capture({log}, *grammar, ReadLimits{});
  AnalysisOptions options;
  options.shown_builds = std::move(shown);
  analyze(c, options);
  return c;
}

std::vector<uint64_t> dtype_warning_lines(const Capture& c) {
  std::vector<uint64_t> lines;
  for (const auto& d : c.diagnostics)
    if (d.message.find("has no known element size") != std::string::npos)
      lines.push_back(d.where.line);
  return lines;
}

TEST(ShownBuilds, OnlyTheShownBuildsAndTheFinalOneAreAnalysed) {
  const std::string log = test::fixture("core/three_builds_odd_dtypes.log");
  Capture every = analysed_showing(log, {});
  Capture final_only = analysed_showing(log, {2});
  ASSERT_EQ(final_only.builds.size(), 3u);
  ASSERT_TRUE(final_only.builds[2].final);
  // Build 2 (lines 18-20): a CaskConvolution and a PointWiseV2, BFLOAT9 at line 18 and WEIRD3.
  EXPECT_EQ(dtype_warning_lines(final_only), (std::vector<uint64_t>{18, 18}));
  const BuildCounts& counts = final_only.builds[2].counts;
  const std::vector<std::pair<std::string, size_t>> types = {{"CaskConvolution", 1},
                                                             {"PointWiseV2", 1}};
  EXPECT_EQ(counts.types, types);
  EXPECT_EQ(dump_json(build_json(final_only.builds[2])), dump_json(build_json(every.builds[2])));
  for (int unshown : {0, 1}) {
    const Build& b = final_only.builds[unshown];
    EXPECT_TRUE(b.counts.types.empty()) << "build " << unshown;
    EXPECT_FALSE(b.layers[0].memory.input_bytes) << "build " << unshown;
    for (const auto& f : final_only.findings) EXPECT_NE(f.build, unshown) << f.id;
  }
  // A shown build beside the final one; the final one's figures are the same either way.
  Capture first_and_final = analysed_showing(log, {0});
  EXPECT_EQ(dtype_warning_lines(first_and_final), (std::vector<uint64_t>{4, 18, 18}));
  EXPECT_EQ(dump_json(build_json(first_and_final.builds[0])),
            dump_json(build_json(every.builds[0])));
  // Every build shown: what an analysis of all builds gives.
  EXPECT_EQ(dtype_warning_lines(analysed_showing(log, {0, 1, 2})),
            (std::vector<uint64_t>{4, 11, 18}));
}

TEST(ShownBuilds, TunerIterationsAreAllAnalysedWhateverIsShown) {
  // The tuner's iterations are compared with each other, so each needs its figures.
  const std::string log = test::fixture("formats/tuner_11_1.log");
  Capture every = analysed_showing(log, {});
  ASSERT_GT(every.builds.size(), 1u);
  ASSERT_FALSE(every.tuning.empty());
  int final_id = -1;
  for (const auto& b : every.builds)
    if (b.final) final_id = b.id;
  EXPECT_EQ(test::whole_json(analysed_showing(log, {final_id})), test::whole_json(every));
}

TEST(ShownBuilds, CommandsWarnOfTheBuildsTheyShow) {
  const std::string log = test::fixture("core/three_builds_odd_dtypes.log");
  using test::count;
  auto final_only = test::run_trtlens("summary " + test::shell_quote(log));
  EXPECT_EQ(final_only.exit_code, 0);
  const std::string shown = final_only.out + final_only.err;
  EXPECT_EQ(count(shown, "has no known element size"), 2u) << shown;
  EXPECT_EQ(count(shown, "FLOAT17"), 0u) << shown;
  auto all = test::run_trtlens("summary --build all " + test::shell_quote(log));
  EXPECT_EQ(all.exit_code, 0);
  const std::string every = all.out + all.err;
  EXPECT_EQ(count(every, "has no known element size"), 3u) << every;
  EXPECT_EQ(count(every, "'FLOAT17'"), 1u) << every;
}

}  // namespace
}  // namespace trtlens
