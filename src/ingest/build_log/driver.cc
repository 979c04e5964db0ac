// Reads a log in blocks of whole lines: worker threads (and this thread, while it waits for a
// block) strip prefixes and match trigger patterns (the costly, stateless part); this thread
// hands the matched lines, and every line while a section is open, to the sections in input
// order. The result is the same as reading line by line on one thread (tests/driver_test.cc
// compares them).
#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include "ingest/build_log.h"
#include "ingest/build_log/screen.h"

namespace trtlens {
namespace {

constexpr int kNotMatched = -2;  // the screen has not looked at this line yet
constexpr size_t kHitsAhead = 8;

// The stateful half: which section is open, counters, line numbers.
class Dispatcher {
 public:
  Dispatcher(const LogScreen& screen, const std::vector<std::unique_ptr<LogSection>>& sections,
             Assembler& out, const std::string& path, size_t max_line)
      : screen_(screen), sections_(sections), out_(out), path_(path), max_line_(max_line) {}

  void block(const ScreenedBlock& b) {
    for (uint32_t i : b.truncated) truncated(lines_ + i + 1);
    recognized_ += b.recognized;
    const std::string_view bytes = b.bytes;
    std::string scratch;
    size_t pos = 0, h = 0, run = 0, other = 0, unchecked_run = 0;
    uint64_t index = 0, taken = 0;
    BlockLine raw;
    size_t fetched = 0;  // hits whose lines were asked for
    for (;;) {
      while (h < b.hits.size() && b.hits[h].offset < pos) ++h;
      // The lines of the next hits are asked for ahead: a worker read them on another core,
      // and this thread otherwise waited on memory at each one's prefix (a third of its time
      // while reading the large-engine log).
      for (; fetched < std::min(b.hits.size(), h + kHitsAhead); ++fetched) {
        const ScreenedBlock::Hit& f = b.hits[fetched];
        for (uint32_t k = 0; k < f.length; k += kCacheLine)
          __builtin_prefetch(bytes.data() + f.offset + k);
      }
      while (run < b.bodies.size() && b.bodies[run].next <= pos) ++run;
      const ScreenedBlock::Body* r =
          run < b.bodies.size() && b.bodies[run].offset <= pos ? &b.bodies[run] : nullptr;
      bool unchecked = r && !r->checked;  // a body line no trigger was tried on
      if (!active_ && !unchecked) {
        // Nothing open: jump to the next line a trigger matched, or to the next body line no
        // trigger was tried on.
        size_t to = SIZE_MAX;
        if (h < b.hits.size()) {
          to = b.hits[h].offset;
          index = b.hits[h].line;
        }
        auto& u = unchecked_run;
        while (u < b.bodies.size() && (b.bodies[u].next <= pos || b.bodies[u].checked)) ++u;
        if (u < b.bodies.size() && b.bodies[u].offset < to) {
          to = b.bodies[u].offset;
          index = b.bodies[u].line;
          unchecked = true;
        }
        if (to == SIZE_MAX) break;
        pos = to;
      } else if (active_ == screen_.body_section() && r && r->offset == pos) {
        // A whole run of its body lines, read ahead by the screen.
        took_line();
        active_->next_body(b.values.data() + r->values_at, r->value_count);
        if (r->closes) close();
        recognized_ += r->unprefixed;
        taken += r->count;
        pos = r->next;
        index += r->count;
        continue;
      }
      // The line's bounds, as the screen found them where it kept them.
      int hit = unchecked ? kNotMatched : -1;
      const ScreenedBlock::Hit* matched = nullptr;
      auto take = [&](uint32_t length, uint32_t next) {
        raw.text = bytes.substr(pos, std::min<size_t>(length, max_line_));
        raw.truncated = length > max_line_;
        raw.next = next;
      };
      while (other < b.others.size() && b.others[other].offset < pos) ++other;
      if (h < b.hits.size() && b.hits[h].offset == pos) {
        matched = &b.hits[h++];
        hit = int(matched->trigger);
        take(matched->length, matched->next);
      } else if (other < b.others.size() && b.others[other].offset == pos) {
        const ScreenedBlock::Other& o = b.others[other++];
        if (o.refused && active_ && active_ == screen_.body_section()) {
          // The open body section would refuse the line and not hold it, and no trigger
          // matched it: dispatching it would only end the section, so it is not read again.
          close();
          pos = o.next;
          ++index;
          continue;
        }
        take(o.length, o.next);
      } else if (!block_line(bytes, pos, b.has_cr, max_line_, raw)) {
        break;
      }
      LogLine line =
          screen_.line(b.has_esc ? strip_ansi(raw.text, scratch) : raw.text, lines_ + index + 1);
      if (matched) take_captures(*matched, line);
      dispatch(line, hit, true);
      pos = raw.next;
      ++index;
    }
    // When most body lines were not taken whole by an open body section, this thread matched
    // them (or would have) one by one: the workers match them for the next blocks instead.
    uint64_t body_lines = 0;
    for (const ScreenedBlock::Body& r : b.bodies) body_lines += r.count;
    if (body_lines > 0) screen_.check_body_lines(body_lines - taken > taken);
    lines_ += b.lines;
    if (!bytes.empty()) unterminated_ = bytes.back() != '\n' && bytes.back() != '\r';
  }

  // A line nobody screened (the line-by-line fallback).
  void line(const Line& raw) {
    if (raw.truncated) truncated(raw.number);
    dispatch(screen_.line(raw.text, raw.number), kNotMatched, false);
    lines_ = raw.number;
  }

  // `unterminated`: the input's last line had no line end (line-by-line reading knows it).
  LogStats finish(bool unterminated) {
    while (active_) close();
    for (const auto& s : sections_) s->finish();
    if (unterminated || unterminated_) out_.run_ends_mid_line({path_, lines_});
    return LogStats{lines_, recognized_};
  }
  uint64_t lines() const { return lines_; }

 private:
  // `screened`: the screen already counted the line if it was prefixed or matched (a body line
  // of a run is prefixed, or no trigger matched it, so that count holds with kNotMatched too).
  void dispatch(const LogLine& line, int hit, bool screened) {
    if (active_) {
      if (active_->next(line)) {
        took_line();
        if (!screened || !(line.prefixed || hit >= 0)) ++recognized_;
        if (active_->ended()) close();
        return;
      }
      if (held_.size() < kMaxHeld && active_->may_resume_after(line)) {
        held_.push_back(Held{std::string(line.text), line.number, hit, screened});
        return;
      }
      close();
    }
    if (hit == kNotMatched) hit = screen_.match(line);
    if (hit >= 0) {
      const Trigger& t = screen_.trigger(hit);
      if (t.section->start(t.which, line)) active_ = t.section;
    }
    if (!screened && (line.prefixed || hit >= 0)) ++recognized_;
  }

  // What the worker's position reader captured of a hit's line, as views into the message this
  // thread stripped: the same bytes, cut the same way (a line with ESC has none).
  static void take_captures(const ScreenedBlock::Hit& at, LogLine& line) {
    if (!at.captures || size_t(line.message.data() - line.text.data()) != at.message) return;
    for (uint8_t i = 0; i < at.captures; ++i) {
      if (size_t(at.captured_at[i]) + at.captured_size[i] > line.message.size()) return;
      line.captured[i] = line.message.substr(at.captured_at[i], at.captured_size[i]);
    }
    line.captures = at.captures;
  }

  // The open section took a line: the lines held before it were interleaved.
  void took_line() {
    if (held_.empty()) return;
    active_->interleaved(held_.size(), held_.front().number);
    held_.clear();
  }

  // Ends the open section and reads the lines it held as if it had ended before them.
  void close() {
    active_->end();
    active_ = nullptr;
    std::vector<Held> replay = std::move(held_);
    held_.clear();
    for (const Held& h : replay) dispatch(screen_.line(h.text, h.number), h.hit, h.screened);
  }

  void truncated(uint64_t number) {
    out_.diagnostic(Severity::Warning, {path_, number},
                    "line longer than the line limit; its end was skipped");
  }

  const LogScreen& screen_;
  const std::vector<std::unique_ptr<LogSection>>& sections_;
  Assembler& out_;
  const std::string& path_;
  size_t max_line_;
  LogSection* active_ = nullptr;
  // Lines held while the open section may resume after them (copies: blocks are reused).
  struct Held {
    std::string text;
    uint64_t number;
    int hit;
    bool screened;
  };
  static constexpr size_t kMaxHeld = 32;
  std::vector<Held> held_;
  uint64_t lines_ = 0;
  uint64_t recognized_ = 0;
  bool unterminated_ = false;
};

// Reads block `b.index` of a file into its storage (its bytes and where they end), when there
// is a file.
void cut_block(const FileBlocks* file, ScreenedBlock& b) {
  if (!file) return;
  const FileBlocks::Block got = file->block(b.index, b.storage);
  b.bytes = got.bytes;
  b.stopped = got.stopped;
  b.end_offset = got.end;
}

// Worker threads, and the dispatching thread while it waits (wait()), reading (from a file) and
// screening blocks in the order they were submitted.
class ScreenPool {
 public:
  // `file`: the blocks' file, read by the screening threads; null when the blocks arrive already
  // read (from a stream).
  ScreenPool(const LogScreen& screen, size_t max_line, unsigned threads, const FileBlocks* file)
      : screen_(screen), max_line_(max_line), file_(file) {
    for (unsigned i = 0; i < threads; ++i)
      threads_.emplace_back([this] {
        pthread_setname_np(pthread_self(), "trtlens-screen");
        work();
      });
  }
  ~ScreenPool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

  void submit(ScreenedBlock* b) {
    {
      std::lock_guard lock(mutex_);
      b->screened = false;
      queue_.push_back(b);
    }
    wake_.notify_one();
  }
  // Returns once `b` is screened, screening blocks not yet taken (`b` first) meanwhile: the
  // calling thread is one of the screening threads, so that there are no more threads than
  // cores (a third thread on two cores cost an eighth of the CPU in switches and lost caches).
  // Rethrows what screening threw.
  void wait(ScreenedBlock* b) {
    std::unique_lock lock(mutex_);
    while (!b->screened) {
      if (queue_.empty()) {
        done_.wait(lock);
        continue;
      }
      ScreenedBlock* next = queue_.front();
      queue_.pop_front();
      lock.unlock();
      run(next);
      lock.lock();
    }
    if (b->error) std::rethrow_exception(std::exchange(b->error, nullptr));
  }

 private:
  void work() {
    for (;;) {
      ScreenedBlock* b;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        b = queue_.front();
        queue_.pop_front();
      }
      run(b);
    }
  }

  void run(ScreenedBlock* b) {
    std::exception_ptr error;
    try {
      cut_block(file_, *b);
      screen_.screen(*b, max_line_);
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      b->error = error;
      b->screened = true;
    }
    done_.notify_all();
  }

  const LogScreen& screen_;
  size_t max_line_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::deque<ScreenedBlock*> queue_;
  bool stop_ = false;
  const FileBlocks* file_;
  std::vector<std::thread> threads_;
};

}  // namespace

LogStats ingest_build_log(InputStream& in, const Grammar& grammar, Assembler& out,
                          const std::string& path, const ReadLimits& limits) {
  LogContext ctx{grammar, out, path};
  std::vector<std::unique_ptr<LogSection>> sections = make_log_sections(ctx);
  LogScreen screen(grammar, sections);
  const size_t max_line = limits.max_line_bytes;
  Dispatcher dispatch(screen, sections, out, path, max_line);

  if (limits.log_block_bytes == 0) {
    LineReader lines(in, max_line);
    Line raw;
    while (lines.next(raw)) dispatch.line(raw);
    return dispatch.finish(lines.unterminated());
  }
  // Large plain files are read block by block by the thread that screens the block, which finds
  // its bounds alone: this thread touches only the lines it dispatches.
  std::unique_ptr<FileBlocks> file =
      in.blocks(limits.file_blocks_min_bytes, limits.log_block_bytes, max_line);
  if (file && limits.on_large_log) limits.on_large_log();
  // This thread screens too while it waits for a block (ScreenPool::wait): one worker fewer.
  const unsigned threads = limits.threads ? limits.threads : std::thread::hardware_concurrency();
  const unsigned workers = threads > 1 ? threads - 1 : 0;
  using Owned = std::unique_ptr<ScreenedBlock>;
  std::vector<Owned> spare;
  std::deque<Owned> pending;
  // Declared after the blocks it screens and the screen: its destructor joins the workers
  // first, also when an exception leaves this function.
  std::unique_ptr<ScreenPool> pool;
  bool stopped = false;      // a line too long for a block: the rest is read line by line
  uint64_t stop_offset = 0;  // from here (with a file)
  auto dispatch_block = [&](Owned b) {
    if (!stopped) {
      dispatch.block(*b);
      if (b->stopped) {
        stopped = true;
        stop_offset = b->end_offset;
      }
    }
    // A block stretched by a long line gives its buffer back: a log of long lines would keep
    // one such buffer for every block in flight.
    if (b->storage.capacity() > 2 * limits.log_block_bytes) b->storage = ByteBlock();
    spare.push_back(std::move(b));
  };
  auto finish_oldest = [&] {
    Owned done = std::move(pending.front());
    pending.pop_front();
    pool->wait(done.get());
    dispatch_block(std::move(done));
  };

  BlockReader blocks(in, limits.log_block_bytes, max_line);
  const size_t scan_min = limits.literal_scan_min_bytes;
  // With one thread the compile would only take turns with the reading.
  if (file ? file->size() >= scan_min : in.peek(scan_min).size() >= scan_min)
    threads > 1 ? screen.start_literal_scan() : screen.enable_literal_scan();
  const size_t count = file ? file->count() : SIZE_MAX;
  for (size_t k = 0; k < count && !stopped; ++k) {
    Owned b;
    if (spare.empty()) {
      b = std::make_unique<ScreenedBlock>();
    } else {
      b = std::move(spare.back());
      spare.pop_back();
    }
    b->index = k;
    if (!file && !blocks.next(b->storage, b->bytes)) break;
    // A log that fits one block is screened here: threads would cost more than they save.
    if (workers == 0 || (k == 0 && (file ? count == 1 : blocks.at_end()))) {
      cut_block(file.get(), *b);
      screen.screen(*b, max_line);
      dispatch_block(std::move(b));
      continue;
    }
    if (!pool) pool = std::make_unique<ScreenPool>(screen, max_line, workers, file.get());
    pool->submit(b.get());
    pending.push_back(std::move(b));
    // Two blocks a screening thread in flight: deeper queues of these small blocks kept more
    // buffers than the caches hold (four: 1.03-1.06 of the CPU, eight: 1.06), and one left the
    // threads waiting on each other (1.05 of the CPU, 1.18 of the wall time).
    if (pending.size() >= 2 * size_t(threads)) finish_oldest();
  }
  while (!pending.empty()) finish_oldest();

  if (stopped || blocks.stopped()) {  // a line too long for a block: line by line from it
    LineReader lines(in, max_line);
    if (stopped) {
      in.seek(stop_offset);
      lines.resume("", dispatch.lines());
    } else {
      blocks.resume_lines(lines, dispatch.lines());
    }
    Line raw;
    while (lines.next(raw)) dispatch.line(raw);
    return dispatch.finish(lines.unterminated());
  }
  return dispatch.finish(false);
}

}  // namespace trtlens
