// The JSON readers (layer, profile, times): any valid JSON layout reads the same, escapes are
// decoded, numbers and types that do not fit are diagnosed by field and layer, and TRT 11's
// inspector layouts each have a fixture. Expected values come from nlohmann's independent parse
// of the same files, or from reading the fixtures by eye.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ingest/json_stream.h"
#include "ingest/json_text.h"
#include "ingest/layer_json.h"
#include "io/input.h"
#include "model/assembler.h"
#include "test_support.h"

namespace trtlens {
namespace {

namespace fs = std::filesystem;
using test::fixture;
using test::load;
using test::read_file;
using Ints = std::vector<int64_t>;

class JsonReaders : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("trtlens_json_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  fs::path dir_;
};

bool has_diagnostic(const Capture& c, const std::string& part) {
  for (const auto& d : c.diagnostics)
    if (d.message.find(part) != std::string::npos) return true;
  return false;
}

std::string diagnostics(const Capture& c) {
  std::string all;
  for (const auto& d : c.diagnostics)
    all += d.where.path + ":" + std::to_string(d.where.line) + ": " + d.message + "\n";
  return all;
}

// --- layer JSON -------------------------------------------------------------------------

TEST_F(JsonReaders, LayerJsonAnyLayoutReadsTheSame) {
  TRTLENS_REQUIRE_SHARED();
  const std::string real =
      test::shared_dir() + "/corpus/trex/tests/inputs/mobilenet.qat.onnx.engine.graph.json";
  const auto doc = nlohmann::ordered_json::parse(read_file(real));
  const auto& layers = doc.at("Layers");
  const std::string compact = write("compact.json", doc.dump());
  const std::string indented = write("indented.json", doc.dump(4));
  for (const std::string& path : {real, compact, indented}) {
    SCOPED_TRACE(path);
    Capture c = load({path});
    ASSERT_EQ(c.builds.size(), 1u);
    const Build& b = c.builds[0];
    ASSERT_EQ(b.layers.size(), layers.size());
    for (size_t i = 0; i < layers.size(); ++i) {
      EXPECT_EQ(b.layers[i].name, layers[i].at("Name").get<std::string>());
      EXPECT_EQ(b.layers[i].inputs.size(), layers[i].at("Inputs").size());
      if (!layers[i].at("Inputs").empty())
        EXPECT_EQ(b.layers[i].inputs[0].dims,
                  layers[i].at("Inputs")[0].at("Dimensions").get<Ints>());
    }
    // Keys the model does not name stay in attributes, in the export's order.
    size_t with_weights = 0;
    for (size_t i = 0; i < layers.size(); ++i)
      if (layers[i].contains("Weights")) {
        ++with_weights;
        EXPECT_EQ(*b.layers[i].attributes.get("Weights"), layers[i].at("Weights"));
      }
    EXPECT_GT(with_weights, 0u);
  }
}

TEST_F(JsonReaders, LayerJsonEscapesAreDecoded) {
  const std::string p = write("escapes.json", R"({"Layers": [
{"Name": "a\"b\\c\td\u001be\u00e9", "LayerType": "Reformat", "Inputs": [], "Outputs": []}]})");
  Capture c = load({p});
  ASSERT_EQ(c.builds.at(0).layers.size(), 1u);
  EXPECT_EQ(c.builds[0].layers[0].name,
            "a\"b\\c\td\x1b"
            "e\xc3\xa9");
}

TEST_F(JsonReaders, LayerJsonDimsThatDoNotFitAreDiagnosedNotDropped) {
  for (const char* dim : {"18446744073709551617", "-9223372036854775809", "1.5", "3e2"}) {
    SCOPED_TRACE(dim);
    const std::string p =
        write("dims.json", std::string(R"({"Layers": [
{"Name": "conv", "LayerType": "CaskConvolution",
 "Inputs": [{"Name": "x", "Dimensions": [1, )") +
                               dim + R"(, 224, 224], "Format/Datatype": "Row major linear FP32"}],
 "Outputs": [{"Name": "y", "Dimensions": [1, 8, 224, 224], "Format/Datatype": "Row major linear FP32"}]}]})");
    Capture c = load({p});
    const Tensor& x = c.builds.at(0).layers.at(0).inputs.at(0);
    EXPECT_FALSE(x.has_dims);  // unknown, not rank 3
    EXPECT_TRUE(x.dims.empty());
    EXPECT_TRUE(has_diagnostic(c, std::string("layer 0 Inputs[0] Dimensions[1] ") + dim))
        << diagnostics(c);
    // Its line is the one the number is on.
    bool on_line_3 = false;
    for (const auto& d : c.diagnostics) on_line_3 |= d.where.line == 3;
    EXPECT_TRUE(on_line_3) << diagnostics(c);
    // The other tensor is untouched.
    EXPECT_EQ(c.builds[0].layers[0].outputs.at(0).dims, (Ints{1, 8, 224, 224}));
  }
}

TEST_F(JsonReaders, LayerJsonWronglyTypedFieldsAreDiagnosed) {
  const std::string p = write("types.json", R"({"Layers": [
{"Name": 7, "LayerType": "Reformat", "Inputs": [{"Name": "x", "Dimensions": "x"}], "Outputs": "y"},
{"Name": "ok", "LayerType": ["x"], "Inputs": [], "Outputs": [], "StreamId": "s"}]})");
  Capture c = load({p});
  const Build& b = c.builds.at(0);
  ASSERT_EQ(b.layers.size(), 2u);
  EXPECT_TRUE(has_diagnostic(c, "layer 0 Name is a number (7), not a string")) << diagnostics(c);
  EXPECT_TRUE(has_diagnostic(c, "layer 0 Inputs[0] Dimensions is a string, not a list"));
  EXPECT_TRUE(has_diagnostic(c, "layer 0 Outputs is a string, not a list"));
  EXPECT_TRUE(has_diagnostic(c, "layer 1 LayerType is an array"));
  EXPECT_TRUE(has_diagnostic(c, "layer 1 StreamId is a string, not an integer"));
  // The value is not lost: it is kept with the other keys.
  EXPECT_EQ(*b.layers[0].attributes.get("Name"), 7);
  EXPECT_FALSE(b.layers[0].inputs.at(0).has_dims);
  EXPECT_EQ(b.layers[1].name, "ok");
}

TEST_F(JsonReaders, LayerJsonOneLayerWithManyKeysKeepsThemAll) {
  std::string text = R"({"Layers": [{"Name": "big", "LayerType": "Reformat")";
  const int keys = 20000;
  for (int i = 0; i < keys; ++i) text += ", \"k" + std::to_string(i) + "\": " + std::to_string(i);
  text += "}]}";
  Capture c = load({write("keys.json", text)});
  const Layer& l = c.builds.at(0).layers.at(0);
  ASSERT_EQ(l.attributes.size(), size_t(keys));
  EXPECT_EQ(l.attributes.integer("k19999"), 19999);
  EXPECT_EQ(l.attributes.begin()->key(), "k0");  // export order
}

TEST_F(JsonReaders, LayerJsonInvalidJsonNamesTheLine) {
  const std::string p = write("bad.json", "{\"Layers\": [\n{\"Name\": \"a\"},\n{\"Name\": }\n]}\n");
  test::RunResult r = test::run_trtlens("summary " + test::shell_quote(p));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("trtlens: " + p + ":3: invalid JSON: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

// Reads `text` through the layer reader's window in reads of `chunk` bytes.
struct ChunkedRead {
  Capture capture;
  uint64_t lines = 0;
};
ChunkedRead read_in_chunks(const std::string& text, size_t chunk) {
  ChunkedRead r;
  Assembler out(r.capture);
  out.begin_input("chunked.json", "layer-json", false);
  r.lines = ingest_layer_json(std::string_view(text), out, "chunked.json", chunk);
  out.end_input(r.lines);
  out.finish();
  return r;
}

// The build's list of layers is sized once, from the first layers' bytes: it neither grows by
// doubling (3,000 layers would leave room for 4,096) nor is reserved for far more than it holds.
TEST_F(JsonReaders, LayerJsonListIsSizedOnceFromItsFirstLayers) {
  constexpr size_t kLayers = 3000;
  std::string text = "{\"Layers\": [";
  char entry[96];
  for (size_t i = 0; i < kLayers; ++i) {
    std::snprintf(entry, sizeof entry, "%s{\"Name\": \"layer_%05zu\", \"LayerType\": \"Reformat\"}",
                  i ? ", " : "", i);
    text += entry;
  }
  text += "]}\n";
  ChunkedRead r = read_in_chunks(text, JsonStream::kChunk);
  ASSERT_EQ(r.capture.builds.size(), 1u);
  const std::vector<Layer>& layers = r.capture.builds[0].layers;
  ASSERT_EQ(layers.size(), kLayers);
  EXPECT_EQ(layers.back().name, "layer_02999");
  EXPECT_LE(layers.capacity(), kLayers * 5 / 4);
}

TEST_F(JsonReaders, LayerJsonReadThroughASmallWindowReadsTheSame) {
  // The reader holds one layer at a time: reads of 1, 7 and 4096 bytes put a read boundary
  // inside every kind of token (escapes, numbers, keys, nesting) of a real export.
  TRTLENS_REQUIRE_SHARED();
  const std::string text = read_file(
      test::shared_dir() + "/corpus/trex/tests/inputs/mobilenet.qat.onnx.engine.graph.json");
  const auto doc = nlohmann::ordered_json::parse(text);
  const auto& layers = doc.at("Layers");
  const uint64_t lines = uint64_t(std::count(text.begin(), text.end(), '\n')) +
                         (!text.empty() && text.back() != '\n' ? 1 : 0);
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{4096}}) {
    SCOPED_TRACE(chunk);
    ChunkedRead r = read_in_chunks(text, chunk);
    EXPECT_EQ(r.lines, lines);
    ASSERT_EQ(r.capture.builds.size(), 1u);
    const Build& b = r.capture.builds[0];
    ASSERT_EQ(b.layers.size(), layers.size());
    for (size_t i = 0; i < layers.size(); ++i) {
      EXPECT_EQ(b.layers[i].name, layers[i].at("Name").get<std::string>());
      EXPECT_EQ(b.layers[i].type, layers[i].at("LayerType").get<std::string>());
      ASSERT_EQ(b.layers[i].outputs.size(), layers[i].at("Outputs").size());
      if (!layers[i].at("Outputs").empty())
        EXPECT_EQ(b.layers[i].outputs[0].dims,
                  layers[i].at("Outputs")[0].at("Dimensions").get<Ints>());
    }
  }
}

TEST_F(JsonReaders, LayerJsonSkippedKeysEndWhereTheyEndWhateverTheReads) {
  // Keys before and after the list are skipped without being held whole: a number, a string
  // with escaped quotes and brackets, and nested values, each ending at every possible offset
  // of a read (reads of 1 to 16 bytes). Found by fuzz_layer_json: a number that ended exactly
  // at a read took the comma after it.
  const std::string text =
      "\xEF\xBB\xBF"  // a byte order mark longer than the smallest reads
      R"({"a": 16.6644, "b": "x\"]}\\", "c": {"d": [1, {"e": null}], "f": true}, "Layers": [)"
      R"({"Name": "one", "LayerType": "T"}, "two"], "g": -3e2, "h": [[], {}]})";
  for (size_t chunk = 1; chunk <= 16; ++chunk) {
    SCOPED_TRACE(chunk);
    ChunkedRead r = read_in_chunks(text, chunk);
    EXPECT_EQ(r.lines, 1u);
    ASSERT_EQ(r.capture.builds.size(), 1u);
    ASSERT_EQ(r.capture.builds[0].layers.size(), 2u);
    EXPECT_EQ(r.capture.builds[0].layers[0].name, "one");
    EXPECT_EQ(r.capture.builds[0].layers[1].name, "two");
  }
}

TEST_F(JsonReaders, LayerJsonNulAfterTheDocumentIsNotItsEnd) {
  // Found by fuzz_layer_json: a NUL byte read as the end of the input, so what followed it was
  // never read (and the line count depended on the read size).
  const std::string text("{\"Layers\": [{\"Name\": \"a\"}]}\n\n\0\0more\n", 36);
  for (size_t chunk : {size_t{1}, size_t{7}, JsonStream::kChunk}) {
    SCOPED_TRACE(chunk);
    try {
      read_in_chunks(text, chunk);
      ADD_FAILURE() << "read";
    } catch (const InputError& e) {
      EXPECT_EQ(e.path(), "chunked.json:3");
      EXPECT_EQ(e.reason(), "invalid JSON: a NUL byte outside a string");
    }
  }
}

TEST_F(JsonReaders, LayerJsonWindowStaysBoundedOnALargeFile) {
  // 20,000 layers (about 2.7 MB) walked with the default 1 MiB read: the window never holds
  // more than two reads, while one value longer than a read (a 3 MB name) still comes whole.
  std::string text = "{\"Layers\": [\n";
  for (int i = 0; i < 20000; ++i)
    text +=
        std::string(i ? ",\n" : "") + R"({"Name": "layer )" + std::to_string(i) +
        R"(", "LayerType": "CaskConvolution", "Inputs": [{"Name": "x", "Dimensions": [1, 64, 56, 56]}], "Outputs": []})";
  const std::string long_name(3 << 20, 'n');
  text += ",\n{\"Name\": \"" + long_name + "\"}\n]}\n";
  ASSERT_GT(text.size(), size_t(5) << 20);
  size_t at = 0, widest = 0, count = 0;
  JsonStream js(
      [&](char* buf, size_t n) {
        const size_t k = std::min(n, text.size() - at);
        std::memcpy(buf, text.data() + at, k);
        at += k;
        return k;
      },
      "big.json", kJsonDepthLimit);
  std::string key, last;
  js.enter();
  ASSERT_TRUE(js.next_member(key));
  EXPECT_EQ(key, "Layers");
  js.enter();
  while (js.next_element()) {
    const simdjson::padded_string_view v = js.take();
    last.assign(v.data(), v.length());
    ++count;
    if (count <= 20000) widest = std::max(widest, js.window_bytes());
  }
  EXPECT_FALSE(js.next_member(key));
  js.finish();
  EXPECT_EQ(count, 20001u);
  EXPECT_LE(widest, 2 * JsonStream::kChunk + simdjson::SIMDJSON_PADDING);
  EXPECT_EQ(last, "{\"Name\": \"" + long_name + "\"}");
  EXPECT_EQ(js.lines(), 20003u);  // the opening line, one per layer, the closing line
}

TEST_F(JsonReaders, LayerJsonStructuralErrorsNameTheirLine) {
  // Lines counted by hand in each text.
  struct Case {
    const char* text;
    int line;
    const char* reason;
  };
  const Case cases[] = {
      {"{\"Layers\": [\n{\"Name\": \"a\"},\n{\"Name\": \"b\"},\n]}\n", 4,
       "expected a value after ','"},
      {"{\"Layers\": [\n{\"Name\": \"a\"}\n{\"Name\": \"b\"}]}\n", 3, "expected ',' or ']'"},
      {"{\"Layers\": [\n{\"Name\": \"a\"},\n{\"Name\": \"b\"}\n", 4,
       "the input ends inside a list"},
      {"{\"Layers\": [\n{\"Name\": \"a\"}\n]} xx\n", 3, "text after the document"},
      {"{\"Layers\"\n [{\"Name\": \"a\"}]}", 2, "expected ':' after a key"},
      {"{\"Layers\": [{\"Name\": \"a\"},\n\n,{\"Name\": \"b\"}]}", 3, "expected a value"},
      {"{\"Layers\": [{\"Name\": \"a\"}],\n}", 2, "expected a key"},
      {"{\"Layers\": [\n\"a\\", 2, "the input ends inside a value"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string p = write("bad.json", c.text);
    test::RunResult r = test::run_trtlens("summary " + test::shell_quote(p));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err.rfind("trtlens: " + p + ":" + std::to_string(c.line) + ": invalid JSON: ", 0),
              0u)
        << r.err;
    EXPECT_NE(r.err.find(c.reason), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  }
}

TEST_F(JsonReaders, LayerJsonByteOrderMarkAndBadBytesInOneLayer) {
  // A UTF-8 byte order mark is skipped. A byte that is not UTF-8 in the second layer is
  // replaced there only; a type problem two lines later still names its own line (5).
  const std::string p =
      write("bom.json",
            "\xEF\xBB\xBF{\"Layers\": [\n{\"Name\": \"a\"},\n{\"Name\": \"b\xff\"},\n"
            "{\"Name\": \"c\",\n \"StreamId\": \"x\"}\n]}\n");
  Capture c = load({p});
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  ASSERT_EQ(b.layers.size(), 3u);
  EXPECT_EQ(b.layers[0].name, "a");
  EXPECT_EQ(b.layers[1].name, "b\xef\xbf\xbd");
  EXPECT_EQ(b.layers[2].name, "c");
  EXPECT_EQ(b.layers[2].source.line, 4u);
  EXPECT_TRUE(has_diagnostic(c, "1 bytes that are not UTF-8 were replaced")) << diagnostics(c);
  bool at_line_5 = false;
  for (const auto& d : c.diagnostics)
    at_line_5 |= d.message.find("StreamId is a string") != std::string::npos && d.where.line == 5;
  EXPECT_TRUE(at_line_5) << diagnostics(c);
}

TEST_F(JsonReaders, LayerJsonRepeatedFormatsKeepEachTensorsOwn) {
  // The reader parses each distinct format string once; every tensor still gets its own.
  // Expected values read from the format strings by eye (TensorRT's wording).
  const char* int8_32 = "Thirty-two wide channel vectorized row major Int8 format";
  const char* fp32 = "Row major linear FP32";
  const char* hwc8 = "Channel major FP16 format where channel % 8 == 0";
  std::string text = R"({"Layers": [)";
  for (int i = 0; i < 30; ++i) {
    const char* in = i % 3 == 0 ? int8_32 : i % 3 == 1 ? fp32 : hwc8;
    const char* out = i % 2 ? fp32 : int8_32;
    text += std::string(i ? "," : "") + R"({"Name": "l)" + std::to_string(i) +
            R"(", "LayerType": "Reformat", "Inputs": [{"Name": "a", "Dimensions": [1, 64, 8, 8],
            "Format/Datatype": ")" +
            in + R"("}], "Outputs": [{"Name": "b", "Dimensions": [1, 64, 8, 8],
            "Format/Datatype": ")" +
            out + R"("}], "Weights": {"Type": "Int8", "Count": )" + std::to_string(i) + "}}";
  }
  text += "]}";
  Capture c = load({write("formats.json", text)});
  const Build& b = c.builds.at(0);
  ASSERT_EQ(b.layers.size(), 30u);
  for (int i = 0; i < 30; ++i) {
    SCOPED_TRACE(i);
    const Tensor& in = b.layers[size_t(i)].inputs.at(0);
    const Tensor& out = b.layers[size_t(i)].outputs.at(0);
    if (i % 3 == 0) {
      EXPECT_EQ(in.format, int8_32);
      EXPECT_EQ(in.dtype, "INT8");
      EXPECT_EQ(in.vector_width, 32);
      EXPECT_EQ(in.vector_axis, 1);
    } else if (i % 3 == 1) {
      EXPECT_EQ(in.format, fp32);
      EXPECT_EQ(in.dtype, "FP32");
      EXPECT_EQ(in.vector_width, 0);
    } else {
      EXPECT_EQ(in.format, hwc8);
      EXPECT_EQ(in.dtype, "FP16");
    }
    EXPECT_EQ(out.dtype, i % 2 ? "FP32" : "INT8");
    EXPECT_EQ(out.vector_width, i % 2 ? 0 : 32);
    // Other keys: one per layer, its own value.
    EXPECT_EQ(b.layers[size_t(i)].attributes.get("Weights")->at("Count"), i);
  }
}

TEST(JsonText, NewlinesCountedAsStdCountDoes) {
  // Every length and start offset around the 16-byte steps and the 255-step flush.
  std::string s;
  uint32_t x = 12345;
  for (int i = 0; i < 9000; ++i) {
    x = x * 1103515245u + 12345u;
    s.push_back((x >> 16) % 5 == 0 ? '\n' : char('a' + (x >> 20) % 26));
  }
  for (size_t start : {0, 1, 7, 15, 16, 17}) {
    for (size_t n : {0, 1, 15, 16, 17, 31, 33, 255 * 16 - 1, 255 * 16, 255 * 16 + 5, 8000}) {
      const auto want =
          uint64_t(std::count(s.begin() + long(start), s.begin() + long(start + n), '\n'));
      EXPECT_EQ(count_newlines(s.data() + start, n), want) << start << " " << n;
    }
  }
  EXPECT_EQ(count_lines("a\nb"), 2u);
  EXPECT_EQ(count_lines("a\nb\n"), 2u);
}

TEST(JsonText, RawControlBytesAndDepthFoundAtEveryOffset) {
  // The scan skips 16 bytes at a time: a control byte inside a string, an escaped quote, and
  // brackets inside strings are found (or ignored) wherever they fall.
  for (size_t pad = 0; pad < 40; ++pad) {
    SCOPED_TRACE(pad);
    const std::string lead(pad, ' ');
    const std::string name(pad, 'n');
    EXPECT_FALSE(json_needs_sanitizing(lead + R"({"a": ")" + name + R"(\"[[[{{", "b": [1, 2]})"));
    EXPECT_TRUE(json_needs_sanitizing(lead + R"({"a": ")" + name + "\x1e" + R"(x"})"));
    EXPECT_TRUE(json_needs_sanitizing(lead + R"({"a": ")" + name + R"(\")" + "\t" + R"("})"));
    // Line ends outside strings are whitespace, not raw control bytes in a string.
    EXPECT_FALSE(json_needs_sanitizing(lead + "{\n\t\"a\":\r\n \"" + name + "\"\n}\n"));
    // Depth: brackets inside a string do not count; real ones past the limit do.
    const std::string deep(size_t(kJsonDepthLimit) + 1, '[');
    EXPECT_FALSE(json_needs_sanitizing(lead + "[\"" + name + deep + "\"]"));
    EXPECT_TRUE(json_needs_sanitizing(lead + name.substr(0, 0) + deep));
  }
}

TEST(JsonText, SimdjsonRunsTheBestKernelTheCpuHas) {
  // Debian's libsimdjson picks its kernel at run time (stage 1, UTF-8 checks and string
  // unescaping run in it); the portable one would mean the dispatch failed. The CPU's own
  // flags, read by the compiler's builtins, say which kernel it can run.
  const std::string active = simdjson::get_active_implementation()->name();
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
      __builtin_cpu_supports("pclmul"))
    EXPECT_TRUE(active == "haswell" || active == "icelake") << active;
  else if (__builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul"))
    EXPECT_EQ(active, "westmere");
  else
    GTEST_SKIP() << "CPU without SSE4.2: the portable kernel is the right one";
}

// TRT 11 inspector layouts: one fixture per way a tensor states its format and data type.
TEST_F(JsonReaders, Trt11CombinedFormatWithStrides) {
  Capture c = load({fixture("core/trt11_combined_strides.json")});
  const Build& b = c.builds.at(0);
  const Layer& conv = b.layers.at(0);
  EXPECT_EQ(conv.inputs.at(0).dtype, "FP16");
  EXPECT_EQ(conv.inputs[0].vector_width, 8);
  EXPECT_EQ(conv.inputs[0].dims, (Ints{1, 16, 32, 32}));
  EXPECT_EQ(conv.outputs.at(0).dtype, "FP32");
  EXPECT_EQ(conv.tactic, "0x000000000000001f");
  EXPECT_EQ(conv.stream_id, 0);
  EXPECT_EQ(conv.attributes.size(), 0u);  // every key was understood
  ASSERT_EQ(b.bindings.size(), 2u);
  EXPECT_EQ(b.bindings[0].io_mode, "Input");
  EXPECT_EQ(b.bindings[0].tensor.dtype, "FP16");
  EXPECT_EQ(b.bindings[0].tensor.format,
            "Channel major FP16 format where channel % 8 == 0 (kHWC8)");
  EXPECT_EQ(b.bindings[1].tensor.format, "Row major linear FP32 format (kLINEAR)");
  EXPECT_EQ(b.graph.inputs, (std::vector<std::string>{"x"}));
  EXPECT_EQ(b.graph.outputs, (std::vector<std::string>{"y"}));
}

TEST_F(JsonReaders, Trt11FormatWithSeparateDatatype) {
  Capture c = load({fixture("core/trt11_format_datatype_split.json")});
  const Build& b = c.builds.at(0);
  const Layer& fc = b.layers.at(0);
  EXPECT_EQ(fc.inputs.at(0).dtype, "INT8");
  EXPECT_EQ(fc.inputs[0].format, "Row major linear INT8 format (kLINEAR)");
  EXPECT_EQ(fc.outputs.at(0).dtype, "FP16");
  EXPECT_EQ(fc.outputs[0].dims, (Ints{4, 128}));
  EXPECT_EQ(fc.stream_id, 1);
  EXPECT_EQ(fc.tactic_name, "sm89_xmma_gemm_i8f16_tn");
  ASSERT_EQ(b.bindings.size(), 2u);
  EXPECT_EQ(b.bindings[0].tensor.dtype, "INT8");
  EXPECT_EQ(b.bindings[0].tensor.dims, (Ints{4, 256}));
  EXPECT_EQ(b.bindings[1].io_mode, "Output");
}

TEST_F(JsonReaders, Trt11BareDtypeWord) {
  Capture c = load({fixture("core/trt11_bare_dtype.json")});
  const Layer& relu = c.builds.at(0).layers.at(0);
  EXPECT_EQ(relu.inputs.at(0).dtype, "FP16");
  EXPECT_TRUE(relu.inputs[0].dtype_known);
  EXPECT_EQ(relu.outputs.at(0).dtype, "BF16");
  EXPECT_EQ(c.builds[0].bindings.at(1).tensor.dtype, "BF16");
}

// --- profile JSON -----------------------------------------------------------------------

TEST_F(JsonReaders, ProfileJsonAnyLayoutReadsTheSame) {
  TRTLENS_REQUIRE_SHARED();
  const std::string real =
      test::shared_dir() + "/corpus/trex/tests/inputs/mobilenet.qat.onnx.engine.profile.json";
  const auto doc = nlohmann::ordered_json::parse(read_file(real));
  std::string crlf = doc.dump(2);
  for (size_t at = crlf.find('\n'); at != std::string::npos; at = crlf.find('\n', at + 2))
    crlf.replace(at, 1, "\r\n");
  for (const std::string& path : {real, write("compact.json", doc.dump()),
                                  write("indented.json", doc.dump(4)), write("crlf.json", crlf)}) {
    SCOPED_TRACE(path);
    Capture c = load({path});
    ASSERT_EQ(c.builds.size(), 1u);
    const BuildProfile& p = c.builds[0].profile;
    ASSERT_EQ(p.rows.size() + 1, doc.size());  // the first entry is the count
    EXPECT_EQ(p.count, doc[0].at("count").get<int64_t>());
    for (size_t i = 0; i < p.rows.size(); ++i) {
      EXPECT_EQ(p.rows[i].name, doc[i + 1].at("name").get<std::string>());
      EXPECT_DOUBLE_EQ(*p.rows[i].average_ms, doc[i + 1].at("averageMs").get<double>());
    }
  }
}

TEST_F(JsonReaders, ProfileJsonEscapedNamesJoinTheirLayers) {
  const std::string layers = write("layers.json", R"({"Layers": [
{"Name": "say \"hi\"", "LayerType": "Reformat", "Inputs": [], "Outputs": []},
{"Name": "back\\slash\ttab\u001b", "LayerType": "Reformat", "Inputs": [], "Outputs": []}]})");
  const std::string profile = write("profile.json", R"([{"count": 10},
{"name": "say \"hi\"", "timeMs": 1.0, "averageMs": 0.1, "medianMs": 0.1, "percentage": 25},
{"name": "back\\slash\ttab\u001b", "timeMs": 3.0, "averageMs": 0.3, "medianMs": 0.3, "percentage": 75}])");
  Capture c = load({layers, profile});
  ASSERT_EQ(c.builds.size(), 1u);
  const BuildProfile& p = c.builds[0].profile;
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.rows[0].name, "say \"hi\"");
  EXPECT_EQ(p.rows[1].name, "back\\slash\ttab\x1b");
  EXPECT_EQ(p.rows[1].line, 3u);
  EXPECT_EQ(p.count, 10);
}

TEST_F(JsonReaders, ProfileJsonTrtexecUnescapedNamesStillRead) {
  // trtexec's own output (unescaped quote, nan): not JSON, read by the tolerant scanner.
  Capture c = load({fixture("time/profile_quote_nan.json")});
  ASSERT_EQ(c.builds.size(), 1u);
  EXPECT_FALSE(c.builds[0].profile.rows.empty());
}

// --- times JSON -------------------------------------------------------------------------

TEST_F(JsonReaders, TimesJsonAnyLayoutAndLineEnds) {
  const std::string text = read_file(fixture("time/times_84.json"));
  const auto doc = nlohmann::json::parse(text);
  std::string cr_only = text;
  for (char& ch : cr_only)
    if (ch == '\n') ch = '\r';
  for (const std::string& path : {fixture("time/times_84.json"), write("compact.json", doc.dump()),
                                  write("indented.json", doc.dump(4)), write("cr.json", cr_only)}) {
    SCOPED_TRACE(path);
    Capture c = load({path});
    ASSERT_EQ(c.runs.size(), 1u);
    ASSERT_TRUE(c.runs[0].times) << diagnostics(c);
    const TimingTrace& t = *c.runs[0].times;
    ASSERT_EQ(t.records.size(), doc.size());
    EXPECT_EQ(t.key_set, "8.4+");
    for (size_t i = 0; i < doc.size(); ++i) {
      EXPECT_DOUBLE_EQ(t.records[i].latency_ms, doc[i].at("latencyMs").get<double>());
      EXPECT_DOUBLE_EQ(t.records[i].start_enq, doc[i].at("startEnqMs").get<double>());
    }
    if (path.find("compact") == std::string::npos && path.find("indented") == std::string::npos)
      EXPECT_EQ(c.inputs.at(0).lines, uint64_t(std::count(text.begin(), text.end(), '\n')));
    EXPECT_FALSE(has_diagnostic(c, "truncated")) << diagnostics(c);
  }
}

// --- source locations -------------------------------------------------------------------

// Every layer names the file it was read from and the line it starts on: what a diagnostic, a
// JSON export and the store print. The lines expected are found in the text by the layer's name.
size_t line_of(const std::string& text, const std::string& needle, size_t& from) {
  const size_t at = text.find(needle, from);
  if (at == std::string::npos) return 0;
  from = at + needle.size();
  return size_t(std::count(text.begin(), text.begin() + ptrdiff_t(at), '\n')) + 1;
}

TEST_F(JsonReaders, LayerJsonLayersKeepTheirFileAndLine) {
  TRTLENS_REQUIRE_SHARED();
  const std::string path =
      test::shared_dir() + "/corpus/trex/tests/inputs/mobilenet.qat.onnx.engine.graph.json";
  const std::string text = read_file(path);
  const auto doc = nlohmann::ordered_json::parse(text);
  Capture c = load({path});
  ASSERT_EQ(c.builds.size(), 1u);
  const auto& layers = c.builds[0].layers;
  ASSERT_EQ(layers.size(), doc.at("Layers").size());
  // The export writes each layer's "{" on the line above its "Name", and "LayerType" next.
  size_t from = 0;
  for (const Layer& l : layers) {
    EXPECT_EQ(l.source.path.str(), path) << l.name;
    const size_t name_line = line_of(text, "\"Name\": \"" + l.name + "\",\n  \"LayerType\"", from);
    ASSERT_GT(name_line, 1u) << l.name;
    EXPECT_EQ(l.source.line, name_line - 1) << l.name;
  }
}

TEST_F(JsonReaders, ProfileGivenAloneRowsKeepTheirFileAndLine) {
  TRTLENS_REQUIRE_SHARED();
  const std::string path =
      test::shared_dir() + "/corpus/trex/tests/inputs/mobilenet.qat.onnx.engine.profile.json";
  const std::string text = read_file(path);
  const auto doc = nlohmann::ordered_json::parse(text);
  Capture c = load({path});
  ASSERT_EQ(c.builds.size(), 1u);
  const Build& b = c.builds[0];
  EXPECT_EQ(b.source.path.str(), path);
  ASSERT_EQ(b.layers.size() + 1, doc.size());  // the first entry is the count
  size_t from = 0;
  for (size_t i = 0; i < b.layers.size(); ++i) {
    const std::string name = doc[i + 1].at("name").get<std::string>();
    EXPECT_EQ(b.layers[i].source.path.str(), path) << name;
    EXPECT_EQ(b.layers[i].source.line, line_of(text, "\"name\" : \"" + name + "\"", from)) << name;
  }
}

}  // namespace
}  // namespace trtlens
