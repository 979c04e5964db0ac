// Error and warning lines become records of the current run: severity, TensorRT's error code
// and category, the ONNX parser's status, the source position TensorRT names and the node a
// message is about. Lines that show how a process stopped without a trailer (an assertion, a
// signal, a job's time limit) are kept as the run's stop.
#include "ingest/build_log/section.h"
#include "model/values.h"

namespace trtlens {
namespace {

enum Trigger {
  kErrorCode,
  kOnnxFunction,
  kOnnxNode,
  kOnnxWhile,
  kOnnxNodeDump,
  kAssertion,
  kSignal,
  kException,
  kTimeout,
  kOtherErrorLine,  // triggers().size(): any [E] / [W] line no pattern claimed
};

// The ONNX parser's status numbers (nvonnxparser::ErrorCode), as TRT 8.6+ prints them.
std::string onnx_status_name(int code) {
  static const char* const names[] = {"SUCCESS",
                                      "INTERNAL_ERROR",
                                      "MEM_ALLOC_FAILED",
                                      "MODEL_DESERIALIZE_FAILED",
                                      "INVALID_VALUE",
                                      "INVALID_GRAPH",
                                      "INVALID_NODE",
                                      "UNSUPPORTED_GRAPH",
                                      "UNSUPPORTED_NODE",
                                      "UNSUPPORTED_NODE_ATTR",
                                      "UNSUPPORTED_NODE_INPUT",
                                      "UNSUPPORTED_NODE_DATATYPE",
                                      "UNSUPPORTED_NODE_DYNAMIC",
                                      "UNSUPPORTED_NODE_SHAPE",
                                      "REFIT_FAILED"};
  if (code >= 0 && size_t(code) < std::size(names)) return names[code];
  return "status " + std::to_string(code);
}

int onnx_status_code(const std::string& name) {
  for (int i = 0; i < 15; ++i)
    if (onnx_status_name(i) == name) return i;
  return -1;
}

char record_severity(const LogLine& line) { return line.severity == 'W' ? 'W' : 'E'; }

// "Internal Error (Could not find ... node X.)" -> category, message.
void split_category(std::string_view rest, LogRecord& r) {
  rest = trim(rest);
  size_t open = rest.find(" (");
  if (open == std::string_view::npos || rest.back() != ')') {
    r.message = std::string(rest);
    return;
  }
  r.category = std::string(trim(rest.substr(0, open)));
  r.message = std::string(rest.substr(open + 2, rest.size() - open - 3));
}

void name_node(const Grammar& g, LogRecord& r) {
  if (!r.node.empty()) return;
  std::string node;
  if (RE2::PartialMatch(r.message, g.re("error_names_node"), &node)) r.node = node;
}

}  // namespace

bool read_error_line(LogContext& ctx, const LogLine& line) {
  const Grammar& g = ctx.grammar;
  LogRecord r;
  r.severity = record_severity(line);
  r.line = line.number;
  std::string origin, code, rest;
  const std::string_view msg = trim(line.message);
  if (RE2::PartialMatch(msg, g.re("error_code"), &origin, &code, &rest)) {
    r.origin = origin;
    r.code = std::stoi(code.substr(0, 9));
    split_category(rest, r);
  } else if (line.alarm()) {
    if (RE2::PartialMatch(msg, g.re("record_origin"), &origin, &rest)) {
      r.origin = origin;
      r.message = rest;
    } else {
      r.message = std::string(msg);
    }
  } else {
    return false;
  }
  r.tensorrt = r.code || line.text.find("[TRT]") != std::string_view::npos ||
               line.text.find("[TensorRT]") != std::string_view::npos;
  name_node(g, r);
  ctx.out.run_record(std::move(r));
  return true;
}

namespace {

class ErrorsSection : public LogSection {
 public:
  using LogSection::LogSection;

  std::vector<std::string> triggers() const override {
    return {"error_code",       "onnx_error_function",  "onnx_error_node",
            "onnx_error_while", "onnx_error_node_dump", "stop_assertion",
            "stop_signal",      "stop_exception",       "stop_timeout"};
  }
  bool takes_error_lines() const override { return true; }

  bool start(size_t which, const LogLine& line) override {
    const Grammar& g = ctx_.grammar;
    const SourceLoc at = ctx_.at(line);
    switch (which) {
      case kErrorCode:
      case kOtherErrorLine:
        read_error_line(ctx_, line);
        return false;
      case kOnnxFunction: {
        LogRecord r = onnx_record(line);
        std::string status;
        RE2::PartialMatch(line.message, g.re("onnx_error_function"), &r.origin, &function_, &status,
                          &r.message);
        r.code = std::stoi(status.substr(0, 9));
        r.category = onnx_status_name(*r.code);
        r.origin += " (" + function_ + ")";
        finish_onnx(std::move(r));
        return false;
      }
      case kOnnxNode: {
        LogRecord r = onnx_record(line);
        std::string number, name, op, status;
        RE2::PartialMatch(line.message, g.re("onnx_error_node"), &r.origin, &number, &name, &op,
                          &function_, &status, &r.message);
        r.category = status;
        if (int c = onnx_status_code(status); c >= 0) r.code = c;
        r.origin += " (" + function_ + ")";
        if (!name.empty()) r.node = name;
        finish_onnx(std::move(r));
        return false;
      }
      case kOnnxWhile: {
        // Context for the parser's error that follows: the node's op and first output.
        std::string number;
        RE2::PartialMatch(line.message, g.re("onnx_error_while"), &number, &pending_op_,
                          &pending_output_);
        pending_name_.clear();
        return false;
      }
      case kOnnxNodeDump:
        pending_name_.clear();
        return true;
      case kAssertion: {
        std::string program, file, number, function, expression;
        RE2::PartialMatch(line.message, g.re("stop_assertion"), &program, &file, &number, &function,
                          &expression);
        LogRecord r;
        r.severity = 'E';
        r.category = "Assertion";
        r.message = "Assertion `" + expression + "' failed in " + function;
        r.origin = base_name(file) + ":" + number;
        r.tensorrt = true;  // trtexec itself has no assertions; the library's builds do
        r.line = line.number;
        ctx_.out.run_record(std::move(r));
        ctx_.out.run_stop(RunStop{"assertion", line.number, std::string(trim(line.message))}, at);
        return false;
      }
      case kSignal: {
        std::string name;
        RE2::PartialMatch(line.message, g.re("stop_signal"), &name);
        const char* kind = name == "Aborted"              ? "aborted"
                           : name == "Segmentation fault" ? "segfault"
                           : name == "Bus error"          ? "bus-error"
                           : name == "Killed"             ? "killed"
                                                          : "signal";
        ctx_.out.run_stop(RunStop{kind, line.number, std::string(trim(line.message))}, at);
        return false;
      }
      case kException:
        ctx_.out.run_stop(RunStop{"exception", line.number, std::string(trim(line.message))}, at);
        return false;
      case kTimeout:
        ctx_.out.run_stop(RunStop{"timeout", line.number, std::string(trim(line.message))}, at);
        return false;
    }
    return false;
  }

  // Inside "--- Begin node ---": the node as protobuf text; its name is what errors refer to.
  bool next(const LogLine& line) override {
    std::string_view msg = trim(line.message);
    if (msg.find("--- End node ---") != std::string_view::npos) return true;
    if (msg.rfind("name: \"", 0) == 0 && msg.size() > 7 && msg.back() == '"')
      pending_name_ = std::string(msg.substr(7, msg.size() - 8));
    // The dump is over at the parser's next message (which the driver then dispatches).
    return msg.find("ERROR: ") == std::string_view::npos &&
           msg.find("While parsing node number") == std::string_view::npos;
  }

 private:
  static std::string base_name(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  }

  LogRecord onnx_record(const LogLine& line) const {
    LogRecord r;
    r.severity = 'E';
    r.tensorrt = true;
    r.line = line.number;
    return r;
  }

  void finish_onnx(LogRecord r) {
    if (r.node.empty()) r.node = !pending_name_.empty() ? pending_name_ : pending_output_;
    if (r.node.empty()) name_node(ctx_.grammar, r);
    pending_name_.clear();
    pending_output_.clear();
    pending_op_.clear();
    ctx_.out.run_record(std::move(r));
  }

  std::string function_, pending_op_, pending_output_, pending_name_;
};

}  // namespace

std::unique_ptr<LogSection> make_errors_section(LogContext& ctx) {
  return std::make_unique<ErrorsSection>(ctx);
}

}  // namespace trtlens
