// Attributes: a layer's other keys kept as one compact JSON text. Expected values come from
// nlohmann's own dump and parse of the same keys and values (an independent writer and reader),
// and from the corpus files as nlohmann reads them.
#include "model/attributes.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "model/assembler.h"
#include "test_support.h"

namespace trtlens {
namespace {

using ojson = nlohmann::ordered_json;

// The text a Builder writes for `o`'s members, each value through nlohmann's dump.
Attributes built(const ojson& o) {
  Attributes::Builder b;
  for (auto it = o.begin(); it != o.end(); ++it) b.add(it.key(), it.value().dump());
  return b.finish();
}

TEST(Attributes, EmptyHasNoTextAndFindsNothing) {
  Attributes a;
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.text(), "");
  EXPECT_EQ(a.size(), 0u);
  EXPECT_FALSE(a.contains("x"));
  EXPECT_EQ(a.get("x"), std::nullopt);
  EXPECT_EQ(a.string("x"), "");
  EXPECT_EQ(a.integer("x"), std::nullopt);
  EXPECT_EQ(a.to_json(), ojson::object());
  EXPECT_TRUE(a.begin() == a.end());
  Attributes::Builder b;
  EXPECT_TRUE(b.finish().empty());
}

TEST(Attributes, LooksUpPresentAndAbsentKeys) {
  const ojson o = ojson::parse(
      R"({"ParameterType":"Convolution","OutMaps":64,"Kernel":[7,7],"Scale":0.5,
          "HasBias":true,"Nothing":null,"Big":18446744073709551615,"Neg":-3})");
  const Attributes a = built(o);
  EXPECT_EQ(a.text(), o.dump());
  EXPECT_EQ(a.size(), o.size());
  EXPECT_TRUE(a.contains("Kernel"));
  EXPECT_FALSE(a.contains("kernel"));
  EXPECT_FALSE(a.contains("Kern"));
  EXPECT_FALSE(a.contains(""));
  EXPECT_EQ(a.string("ParameterType"), "Convolution");
  EXPECT_EQ(a.string("OutMaps"), "");  // not a string
  EXPECT_EQ(a.integer("OutMaps"), 64);
  EXPECT_EQ(a.integer("Neg"), -3);
  EXPECT_EQ(a.integer("Scale"), std::nullopt);
  EXPECT_EQ(a.integer("ParameterType"), std::nullopt);
  EXPECT_EQ(a.integer("Absent"), std::nullopt);
  for (auto it = o.begin(); it != o.end(); ++it) {
    auto v = a.get(it.key());
    ASSERT_TRUE(v) << it.key();
    EXPECT_EQ(*v, it.value()) << it.key();
    // Integers read as the layer reader stores them (int64, else uint64); nlohmann's parse
    // makes every non-negative one unsigned, so only the kind is compared.
    EXPECT_EQ(v->is_number_float(), it.value().is_number_float()) << it.key();
    EXPECT_EQ(v->is_number_integer(), it.value().is_number_integer()) << it.key();
  }
  EXPECT_EQ(a.get("Absent"), std::nullopt);
}

TEST(Attributes, KeysWithEscapesAndNonAscii) {
  ojson o = ojson::object();
  const std::string quote = "a\"b\\c/d", control = std::string("tab\there\nnul\x01\x1f", 15),
                    cyrillic = "ключ", emoji = "\xF0\x9F\x98\x80 smile";
  o[quote] = 1;
  o[control] = "value\twith\r\"escapes\"\x02";
  o[cyrillic] = "значение";
  o[emoji] = ojson::array({"\xF0\x9F\x98\x80"});
  const Attributes a = built(o);
  EXPECT_EQ(a.text(), o.dump());  // escaped exactly as nlohmann writes it
  for (const std::string& key : {quote, control, cyrillic, emoji}) {
    ASSERT_TRUE(a.contains(key)) << key;
    EXPECT_EQ(*a.get(key), o[key]) << key;
  }
  EXPECT_EQ(a.string(control), o[control].get<std::string>());
  EXPECT_FALSE(a.contains("a\\\"b"));  // the key's escaped text is not the key
  EXPECT_FALSE(a.contains("ключ "));
  // Keys read back unescaped, in order.
  std::vector<std::string> keys;
  for (const auto& m : a) keys.push_back(m.key());
  EXPECT_EQ(keys, (std::vector<std::string>{quote, control, cyrillic, emoji}));
  // \u escapes nlohmann does not write (a surrogate pair, a solidus) still read back.
  const Attributes b = Attributes::from_text(R"({"k":"\ud83d\ude00\/\u00e9"})");
  EXPECT_EQ(b.string("k"), "\xF0\x9F\x98\x80/\xC3\xA9");
}

TEST(Attributes, NestedValuesReadBackAsWritten) {
  const ojson o = ojson::parse(R"({"Weights":{"Type":"Half","Count":9408},
      "Deep":[[1,2,[3]],{"a":null,"b":[{"c":"}]"}]},[],{}],"Empty":{},"After":"x"})");
  const Attributes a = built(o);
  EXPECT_EQ(a.text(), o.dump());
  EXPECT_EQ(*a.get("Weights"), o["Weights"]);
  EXPECT_EQ(a.get("Weights")->at("Count"), 9408);
  EXPECT_EQ(*a.get("Deep"), o["Deep"]);
  EXPECT_EQ(*a.get("Empty"), ojson::object());
  EXPECT_EQ(a.string("After"), "x");  // found past the brackets inside strings
  EXPECT_EQ(a.to_json(), o);
  EXPECT_EQ(a.to_json().dump(), o.dump());
}

TEST(Attributes, OnlyTopLevelKeysMatch) {
  const ojson o = ojson::parse(R"({"outer":{"Origin":"QDQ","Kernel":[3]},
      "s":"\"Origin\":\"QDQ\",\"Kernel\":1","list":["Origin",{"Kernel":2}],
      "Origin\"":1,"t":"Kernel"})");
  const Attributes a = built(o);
  EXPECT_FALSE(a.contains("Origin"));
  EXPECT_FALSE(a.contains("Kernel"));
  EXPECT_EQ(a.string("Origin"), "");
  EXPECT_TRUE(a.contains("Origin\""));
  EXPECT_TRUE(a.contains("t"));
  EXPECT_EQ(a.size(), 5u);
}

TEST(Attributes, IteratesInInsertionOrderWithValueText) {
  ojson o = ojson::object();
  for (const char* k : {"z", "a", "m", "b"}) o[k] = std::string(k) + "!";
  o["n"] = ojson::array({1, 2});
  const Attributes a = built(o);
  std::vector<std::string> keys, values;
  for (const auto& m : a) {
    keys.push_back(m.key());
    values.push_back(std::string(m.value_text));
    EXPECT_EQ(m.value(), o[m.key()]);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"z", "a", "m", "b", "n"}));
  EXPECT_EQ(values,
            (std::vector<std::string>{R"("z!")", R"("a!")", R"("m!")", R"("b!")", "[1,2]"}));
}

TEST(Attributes, RepeatedKeyKeepsFirstPlaceAndLastValue) {
  // As nlohmann reads an object whose key repeats.
  const ojson want = ojson::parse(R"({"a":1,"b":2,"a":[3],"c":4,"b":"five"})");
  Attributes::Builder b;
  b.add("a", "1");
  b.add("b", "2");
  b.add("a", "[3]");
  b.add("c", "4");
  b.add_string("b", "five");
  EXPECT_EQ(b.finish().text(), want.dump());
}

TEST(Attributes, SetReplacesInPlaceOrAppends) {
  Attributes a;
  a.set("Kernel", "[7, 7]");
  EXPECT_EQ(a.text(), R"({"Kernel":"[7, 7]"})");
  a.set("Origin", "QDQ \"x\"");
  a.set("Kernel", "3");  // replaced where it stood
  ojson want = ojson::object();
  want["Kernel"] = "3";
  want["Origin"] = "QDQ \"x\"";
  EXPECT_EQ(a.text(), want.dump());
  EXPECT_EQ(a.string("Origin"), "QDQ \"x\"");
}

// A text log's value that is not UTF-8 keeps its bytes; JSON output replaces them exactly as it
// did when the attribute was an nlohmann string.
TEST(Attributes, InvalidUtf8FromTextKeepsItsBytes) {
  const std::string bad =
      "ab\xff\xfe"
      "c";
  Attributes a;
  a.set("Key\xc3", bad);
  EXPECT_EQ(a.string("Key\xc3"), bad);
  ojson old = ojson::object();
  old["Key\xc3"] = bad;
  const auto replace = nlohmann::json::error_handler_t::replace;
  EXPECT_EQ(a.to_json().dump(-1, ' ', false, replace), old.dump(-1, ' ', false, replace));
}

TEST(Attributes, NumbersKeepTheirTypeAndValue) {
  const ojson o = ojson::parse(
      R"({"i":-9223372036854775808,"u":18446744073709551615,"z":0,"d":0.1,"e":1e300,
          "n":-0.0,"w":100.0,"s":5e-324})");
  const Attributes a = built(o);
  EXPECT_EQ(a.text(), o.dump());
  for (auto it = o.begin(); it != o.end(); ++it) {
    const ojson v = *a.get(it.key());
    EXPECT_EQ(v.dump(), it.value().dump()) << it.key();
    EXPECT_EQ(v.is_number_float(), it.value().is_number_float()) << it.key();
  }
  EXPECT_TRUE(a.get("i")->is_number_integer());
  EXPECT_TRUE(a.get("u")->is_number_unsigned());
  EXPECT_TRUE(std::signbit(a.get("n")->get<double>()));
}

// The assembler's merge: copies what `from` knows and `into` lacks, in `from`'s order.
TEST(Attributes, MergeCopiesWhatIntoLacks) {
  Layer into, from;
  into.attributes = Attributes::from_text(R"({"a":1,"b":{"x":2}})");
  from.attributes = Attributes::from_text(R"({"b":3,"c":[4],"a":5,"d":"x"})");
  enrich_layer(into, from);
  EXPECT_EQ(into.attributes.text(), R"({"a":1,"b":{"x":2},"c":[4],"d":"x"})");
  Layer empty;
  enrich_layer(empty, from);
  EXPECT_EQ(empty.attributes, from.attributes);
  Layer keep;
  keep.attributes = Attributes::from_text(R"({"a":1})");
  enrich_layer(keep, Layer{});
  EXPECT_EQ(keep.attributes.text(), R"({"a":1})");
}

// 100k keys, each repeated once after the index took over from the linear search: all kept,
// in order, with their last values (the linear rule past a few keys; the bench times it).
TEST(Attributes, BuilderHandlesAHundredThousandKeys) {
  const int n = 100000;
  Attributes::Builder b;
  for (int i = 0; i < n; ++i) b.add("k" + std::to_string(i), std::to_string(i));
  for (int i = 0; i < n; i += 1000) b.add("k" + std::to_string(i), "-1");
  const Attributes a = b.finish();
  EXPECT_EQ(a.size(), size_t(n));
  EXPECT_EQ(a.integer("k0"), -1);
  EXPECT_EQ(a.integer("k1"), 1);
  EXPECT_EQ(a.integer("k99000"), -1);
  EXPECT_EQ(a.integer("k99999"), 99999);
  int i = 0;
  for (const auto& m : a) {
    if (m.key() != "k" + std::to_string(i)) {
      ADD_FAILURE() << "member " << i << " is " << m.key();
      break;
    }
    ++i;
  }
  // The builder is reusable: a second layer starts empty.
  b.add("x", "1");
  EXPECT_EQ(b.finish().text(), R"({"x":1})");
}

// Through the layer JSON reader: repeated keys before and after the reader's index takes over,
// escaped and non-ASCII keys, nested values with spaces; the result is nlohmann's reading of the
// same text (an object read key by key: the last value, in the first place).
TEST(Attributes, LayerJsonReaderWritesWhatNlohmannReads) {
  std::string text = R"({"Layers": [{"Name": "l", "LayerType": "Reformat", "k\"q\u00e9": 1)";
  for (int i = 0; i < 300; ++i)
    text += ", \"k" + std::to_string(i) + "\": {\"a\": [1, 2.50, \"x y\"], \"n\": null}";
  text += R"(, "k3": "again", "k250": [true, false], "\u043a\u043b\u044e\u0447": 1E2}]})";
  namespace fs = std::filesystem;
  const fs::path path =
      fs::temp_directory_path() / ("trtlens_attributes_" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  const Capture c = test::load({path.string()});
  fs::remove(path);
  ojson want = ojson::parse(text)["Layers"][0];
  want.erase("Name");
  want.erase("LayerType");
  ASSERT_EQ(c.builds.size(), 1u);
  const Attributes& a = c.builds[0].layers.at(0).attributes;
  EXPECT_EQ(a.text(), want.dump());
  EXPECT_EQ(a.string("k3"), "again");
  EXPECT_EQ(*a.get("k\"q\u00e9"), 1);
  EXPECT_EQ(*a.get("\u043a\u043b\u044e\u0447"), 100.0);
}

// A real detailed export: every layer's attributes are byte for byte nlohmann's dump of the
// layer's object without the keys the model names.
TEST(Attributes, CorpusLayerJsonReadsBackAsNlohmannParsesIt) {
  TRTLENS_REQUIRE_SHARED();
  namespace fs = std::filesystem;
  const fs::path root = fs::path(test::shared_dir()) / "corpus" / "trex";
  size_t files = 0, layers = 0, members = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string path = entry.path().string();
    if (path.size() < 11 || path.compare(path.size() - 11, 11, ".graph.json") != 0) continue;
    SCOPED_TRACE(path);
    const ojson doc = ojson::parse(test::read_file(path));
    const Capture c = test::load({path});
    ASSERT_EQ(c.builds.size(), 1u);
    const auto& want = doc.at("Layers");
    ASSERT_EQ(c.builds[0].layers.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      ojson rest = want[i];
      for (const char* named : {"Name", "LayerType", "Inputs", "Outputs", "TacticValue",
                                "TacticName", "StreamId", "Metadata"})
        rest.erase(named);
      const Attributes& a = c.builds[0].layers[i].attributes;
      EXPECT_EQ(a.text(), rest.empty() ? "" : rest.dump()) << "layer " << i;
      for (auto it = rest.begin(); it != rest.end(); ++it) {
        auto v = a.get(it.key());
        ASSERT_TRUE(v) << "layer " << i << " " << it.key();
        EXPECT_EQ(*v, it.value()) << "layer " << i << " " << it.key();
        ++members;
      }
      ++layers;
    }
    ++files;
  }
  EXPECT_GE(files, 10u);
  EXPECT_GT(members, layers);  // detailed exports: several keys a layer
}

}  // namespace
}  // namespace trtlens
