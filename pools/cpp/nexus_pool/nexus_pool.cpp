// nexus_pool.cpp: the gRPC side of nexus's C++ pools.
//
// A pool speaks hashicorp/go-plugin's protocol without Go:
//
// * The nexus sets NEXUS_POOL_COOKIE (go-plugin's magic cookie) and
//   PLUGIN_PROTOCOL_VERSIONS; a pool started any other way refuses to run.
// * The pool listens on a Unix socket in PLUGIN_UNIX_SOCKET_DIR, a private
//   folder the nexus made for it.
// * Its first stdout line is the handshake `1|1|unix|<socket>|grpc`.
// * It serves grpc.health.v1.Health/Check ("plugin" is SERVING),
//   plugin.GRPCController/Shutdown (answered at once; the pool exits a
//   moment later) and nexus.pool.Pool's Call, CallWithProgress and Calls
//   (one stream carrying every call of a connection, with ids; see Stream).
//
// Standard output belongs to the nexus: before anything else runs, the pool
// points fd 1 at its stderr, keeping a private copy of the real stdout only
// to write the handshake.
//
// The messages are tiny and encoded by hand (namespace wire), as the Python
// pool does: no protobuf runtime, and a result of megabytes is sent from
// the bytes it was written to.

#include "nexus_pool.hpp"

#include <cxxabi.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include <absl/synchronization/mutex.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

namespace nexus {
namespace {

// Must match the nexus's handshake (proto/handshake.go): go-plugin's
// magic cookie, which only tells "started by the nexus" from "run by hand".
constexpr const char* kCookieKey = "NEXUS_POOL_COOKIE";
constexpr const char* kCookieValue = "9b1d4c1e-nexus-pool";
constexpr int kCoreProtocolVersion = 1;
constexpr int kAppProtocolVersion = 1;

// How long the pool lives after answering Shutdown: long enough for the
// reply to leave the socket, short enough that the nexus need not wait.
constexpr auto kExitDelay = std::chrono::milliseconds(5);

// How often the pool checks that the nexus that started it still runs. On
// Linux the kernel kills a pool whose nexus dies; on macOS and elsewhere
// this check ends it, within this long.
constexpr auto kParentCheck = std::chrono::seconds(1);

// The real stdout, kept only for the handshake line.
int handshake_fd = -1;
// The socket, and the folder the pool made for it when the nexus gave none:
// removed on exit.
std::string socket_file;
std::string own_folder;

// claim_stdout runs before main and before the user's static initializers
// (priority 101 is the first one programs may use), so that nothing the
// user's code prints can reach the nexus's stdout.
__attribute__((constructor(101))) void claim_stdout() {
  std::fflush(stdout);
  handshake_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
  dup2(2, 1);
  // stdout is now a pipe, which stdio would buffer fully; lines should
  // reach the nexus's stderr as they are printed.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
}

[[noreturn]] void exit_now(int status) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  if (!socket_file.empty()) unlink(socket_file.c_str());
  if (!own_folder.empty()) rmdir(own_folder.c_str());
  // No static destructors: gRPC's threads are still running.
  std::_Exit(status);
}

bool started_by_nexus() {
  const char* cookie = std::getenv(kCookieKey);
  if (cookie == nullptr || std::strcmp(cookie, kCookieValue) != 0) {
    std::cerr << "This is a nexus pool. It is started by the program that was built with it (nexus run), "
                 "not by hand.\n";
    return false;
  }
  const char* versions = std::getenv("PLUGIN_PROTOCOL_VERSIONS");
  std::string want = std::to_string(kAppProtocolVersion);
  if (versions != nullptr && *versions != '\0') {
    std::string list = std::string(",") + versions + ",";
    if (list.find("," + want + ",") == std::string::npos) {
      std::cerr << "This pool speaks protocol " << want << ", but the nexus asks for " << versions
                << ": rebuild the program with `nexus make`.\n";
      return false;
    }
  }
  return true;
}

// socket_path is where to listen: in the private folder go-plugin made for
// this pool, or else in a private folder of our own.
std::string socket_path() {
  const char* dir = std::getenv("PLUGIN_UNIX_SOCKET_DIR");
  if (dir != nullptr && *dir != '\0') return std::string(dir) + "/pool.sock";
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/nexus-pool-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return "";
  own_folder = pattern;
  return pattern + "/pool.sock";
}

bool write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string demangle(const char* name) {
  int status = 0;
  char* readable = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && readable != nullptr ? readable : name;
  std::free(readable);
  return out;
}

// CallError is the failure of a function called through a function
// argument (FunctionRef::call), already described, with the function's name.
class CallError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// describe_exception says what the exception being handled is: its type and
// message.
std::string describe_exception() {
  try {
    throw;
  } catch (const CallError& e) {
    return e.what();
  } catch (const ValueError& e) {
    return std::string("the nexus sent a value the function cannot take: ") + e.what();
  } catch (const std::exception& e) {
    return demangle(typeid(e).name()) + ": " + e.what();
  } catch (const std::string& s) {
    return s;
  } catch (const char* s) {
    return s;
  } catch (...) {
    const std::type_info* t = abi::__cxa_current_exception_type();
    return "an exception of type " + (t != nullptr ? demangle(t->name()) : std::string("unknown"));
  }
}

// valid_utf8 replaces what is not UTF-8 in s with U+FFFD: an error crosses
// as a protobuf string, which the nexus refuses unless it is UTF-8.
std::string valid_utf8(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t n = s.size();
  for (std::size_t i = 0; i < n;) {
    unsigned char c = p[i];
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xc0) == 0x80;
    if (ok && len == 2) ok = c >= 0xc2;
    if (ok && len == 3) {
      unsigned cp = ((c & 0x0fu) << 12) | ((p[i + 1] & 0x3fu) << 6) | (p[i + 2] & 0x3fu);
      ok = cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff);
    }
    if (ok && len == 4) {
      unsigned cp = ((c & 0x07u) << 18) | ((p[i + 1] & 0x3fu) << 12) | ((p[i + 2] & 0x3fu) << 6) | (p[i + 3] & 0x3fu);
      ok = cp >= 0x10000 && cp <= 0x10ffff;
    }
    if (ok) {
      out.append(s, i, len);
      i += len;
    } else {
      out += "\xef\xbf\xbd";
      ++i;
    }
  }
  return out;
}

// The few protobuf messages a pool exchanges, encoded by hand as the Python
// pool does (pools/python/nexus_pool/wire.py): field numbers follow
// proto/pool.proto and grpc.health.v1; plugin.Empty is empty.
namespace wire {

constexpr unsigned char kVarint = 0;
constexpr unsigned char kFixed64 = 1;
constexpr unsigned char kBytes = 2;
constexpr unsigned char kFixed32 = 5;

// grpc.health.v1.HealthCheckResponse{status: SERVING}.
const std::string kServing = "\x08\x01";

bool read_varint(const unsigned char*& p, const unsigned char* end, std::uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    unsigned char b = *p++;
    v |= std::uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) return true;
  }
  return false;
}

void put_varint(std::string& out, std::uint64_t v) {
  while (v > 0x7f) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

// Field is one field of a message: a varint, or a byte range inside the
// message.
struct Field {
  std::uint64_t number = 0;
  std::uint64_t varint = 0;
  const char* data = nullptr;
  std::size_t size = 0;
};

// fields calls f with each field of the message in [data, data+size), and
// reports whether the message is well formed.
template <class F>
bool fields(const char* data, std::size_t size, F&& f) {
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  const auto* end = p + size;
  while (p < end) {
    std::uint64_t key = 0;
    if (!read_varint(p, end, key)) return false;
    Field field;
    field.number = key >> 3;
    switch (key & 7) {
      case kVarint:
        if (!read_varint(p, end, field.varint)) return false;
        break;
      case kBytes: {
        std::uint64_t n = 0;
        if (!read_varint(p, end, n) || n > static_cast<std::uint64_t>(end - p)) return false;
        field.data = reinterpret_cast<const char*>(p);
        field.size = static_cast<std::size_t>(n);
        p += n;
        break;
      }
      case kFixed64:
        if (end - p < 8) return false;
        p += 8;
        break;
      case kFixed32:
        if (end - p < 4) return false;
        p += 4;
        break;
      default:
        return false;
    }
    f(field);
  }
  return true;
}

// put_double appends v as a protobuf double: 8 bytes, little-endian.
void put_double(std::string& out, double v) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  for (int i = 0; i < 8; ++i) out += static_cast<char>((bits >> (8 * i)) & 0xff);
}

// progress is nexus.pool.Progress{done, total, message}.
std::string progress(double done, std::optional<double> total, std::string_view message) {
  std::string p(1, '\x09');  // field 1 (done), fixed64
  put_double(p, done);
  if (total) {
    p += '\x11';  // field 2 (total), fixed64
    put_double(p, *total);
  }
  if (!message.empty()) {
    p += '\x1a';  // field 3 (message), length-delimited
    put_varint(p, message.size());
    p += message;
  }
  return p;
}

// progress_event is nexus.pool.CallEvent{progress}, progress an encoded
// Progress.
std::string progress_event(const std::string& progress) {
  std::string event(1, '\x0a');  // field 1 (progress), length-delimited
  put_varint(event, progress.size());
  return event + progress;
}

// answer_header starts a nexus.pool.CallAnswer: its id, then the tag and
// length of its event field (tag: 0x12 progress, 0x1a reply).
std::string answer_header(std::uint64_t id, char tag, std::size_t size) {
  std::string out;
  if (id != 0) {
    out += '\x08';  // field 1 (id), varint
    put_varint(out, id);
  }
  out += tag;
  put_varint(out, size);
  return out;
}

// progress_answer is nexus.pool.CallAnswer{id, progress}.
grpc::ByteBuffer progress_answer(std::uint64_t id, const std::string& progress) {
  grpc::Slice slice(answer_header(id, '\x12', progress.size()) + progress);
  return grpc::ByteBuffer(&slice, 1);
}

// prefixed is header followed by the bytes of message, which it shares
// rather than copies (a result may be megabytes).
grpc::ByteBuffer prefixed(const std::string& header, const grpc::ByteBuffer& message) {
  std::vector<grpc::Slice> slices;
  if (!message.Dump(&slices).ok()) slices.clear();
  slices.insert(slices.begin(), grpc::Slice(header));
  return grpc::ByteBuffer(slices.data(), slices.size());
}

// reply_answer is nexus.pool.CallAnswer{id, reply}, reply an encoded
// CallReply.
grpc::ByteBuffer reply_answer(std::uint64_t id, const grpc::ByteBuffer& reply) {
  return prefixed(answer_header(id, '\x1a', reply.Length()), reply);
}

// Message is a nexus.pool.CallMessage, its byte ranges inside the message
// it was read from.
struct Message {
  std::uint64_t id = 0;
  enum class Kind { kNone, kCall, kCancel } kind = Kind::kNone;
  std::string_view request;  // the call's CallRequest
  bool progress = false;     // the call asked for progress
};

// call_message reads a nexus.pool.CallMessage, its call's CallRequest
// included (as a protobuf library decodes every nested message); false
// when it cannot be decoded. A message of neither kind is kNone.
bool call_message(std::string_view data, Message& m) {
  std::string_view call;
  bool ok = fields(data.data(), data.size(), [&](const Field& f) {
    if (f.number == 1) m.id = f.varint;
    if (f.number == 2) {
      m.kind = Message::Kind::kCall;
      call = std::string_view(f.data, f.size);
    }
    if (f.number == 3) m.kind = Message::Kind::kCancel;
  });
  if (!ok || m.kind != Message::Kind::kCall) return ok;
  ok = fields(call.data(), call.size(), [&](const Field& f) {
    if (f.number == 1) m.request = std::string_view(f.data, f.size);
    if (f.number == 2) m.progress = f.varint != 0;
  });
  return ok && fields(m.request.data(), m.request.size(), [](const Field&) {});
}

// reply_event is nexus.pool.CallEvent{reply}, reply an encoded CallReply.
grpc::ByteBuffer reply_event(const grpc::ByteBuffer& reply) {
  std::string header(1, '\x12');  // field 2 (reply), length-delimited
  put_varint(header, reply.Length());
  return prefixed(header, reply);
}

}  // namespace wire

// Reporter takes the progress reports of the call a thread runs, for a
// caller that wants them.
class Reporter {
 public:
  // report takes an encoded nexus.pool.Progress. It never waits for the
  // socket: a function reporting once per item must not slow down.
  virtual void report(std::string progress) = 0;

 protected:
  ~Reporter() = default;
};

// The call the thread runs, as nexus::progress and nexus::cancelled see
// it: where its reports go (null: nobody wants them), and whether it was
// cancelled (null: it cannot be, not being on the Calls stream).
thread_local Reporter* current_reporter = nullptr;
thread_local const std::atomic<bool>* current_cancel = nullptr;

// Outbox holds the progress events of one CallWithProgress call on their
// way out. gRPC takes one message of a stream at a time: the next waits
// for the last to have gone (another thread, handling the completion, calls
// sent), and a newer one replaces it while it waits.
class Outbox final : public Reporter {
 public:
  // write starts writing an event; its completion must reach sent.
  using Write = std::function<void(const grpc::ByteBuffer&)>;

  explicit Outbox(Write write) : write_(std::move(write)) {}

  void report(std::string progress) override { send(wire::progress_event(progress)); }

  void send(std::string event) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    if (busy_) {
      waiting_ = std::move(event);
      return;
    }
    start(event);
  }

  // sent is the completion of the last write: ok false when the call
  // ended (the nexus left).
  void sent(bool ok) {
    std::lock_guard<std::mutex> lock(mu_);
    if (ok && waiting_) {
      std::string event = std::move(*waiting_);
      waiting_.reset();
      start(event);
      return;
    }
    waiting_.reset();
    busy_ = false;
    if (!ok) closed_ = true;
    idle_.notify_all();
  }

  // close takes no more events and returns once those taken have gone, so
  // that the reply comes after them.
  void close() {
    std::unique_lock<std::mutex> lock(mu_);
    closed_ = true;
    idle_.wait(lock, [this] { return !busy_; });
  }

 private:
  void start(const std::string& event) {  // with mu_ held
    busy_ = true;
    grpc::Slice slice(event);
    write_(grpc::ByteBuffer(&slice, 1));
  }

  Write write_;
  std::mutex mu_;
  std::condition_variable idle_;
  bool busy_ = false;    // an event is on its way
  bool closed_ = false;  // the function returned, or the call ended
  std::optional<std::string> waiting_;
};

// bytes_of returns the contents of a message as one contiguous range,
// copying into storage only when gRPC holds it in several slices.
std::string_view bytes_of(const grpc::ByteBuffer& message, grpc::Slice& single, std::string& storage) {
  if (message.TrySingleSlice(&single).ok()) {
    return std::string_view(reinterpret_cast<const char*>(single.begin()), single.size());
  }
  std::vector<grpc::Slice> slices;
  if (!message.Dump(&slices).ok()) return {};
  storage.reserve(message.Length());
  for (const grpc::Slice& s : slices) storage.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return storage;
}

// function_registry finds the functions the pool serves by id, for
// FunctionRef::call. Filled once when the Pool is made, before any call;
// read-only after.
std::unordered_map<std::uint32_t, const Function*> function_registry;

// Pool holds the functions the pool serves. Its methods may be called
// from any thread.
class Pool {
 public:
  explicit Pool(std::vector<Function> functions) {
    for (Function& f : functions) {
      std::uint32_t id = f.id;
      table_.emplace(id, std::move(f));
    }
    // A map's elements stay where they are: the pointers hold while the
    // pool lives.
    for (const auto& [id, f] : table_) function_registry[id] = &f;
  }

  // call answers a nexus.pool.CallRequest with a nexus.pool.CallReply. A
  // call that fails (a C++ exception, a value that does not fit) answers
  // with the error; it never ends the pool.
  grpc::ByteBuffer call(std::string_view request) const {
    std::uint64_t id = 0;
    std::string_view args;
    bool ok = wire::fields(request.data(), request.size(), [&](const wire::Field& f) {
      if (f.number == 1) id = f.varint;
      if (f.number == 2) args = std::string_view(f.data, f.size);
    });
    if (!ok) return error_reply("the nexus sent a malformed CallRequest");
    auto it = table_.find(static_cast<std::uint32_t>(id));
    if (id > 0xffffffffu || it == table_.end()) {
      return error_reply("this C++ pool has no function with id " + std::to_string(id) +
                         "; rebuild the program with `nexus make`");
    }
    const Function& f = it->second;
    // The result is written after room for the reply's field header, so
    // that the reply is sent from the same bytes, without a copy.
    auto result = std::make_unique<std::string>();
    try {
      run(f, args, *result);
    } catch (...) {
      return error_reply(valid_utf8(describe_exception() + "\n  in the C++ function " + f.origin));
    }
    return result_reply(std::move(result));
  }

  // error_reply is a nexus.pool.CallReply{error: message}.
  static grpc::ByteBuffer error_reply(const std::string& message) {
    std::string reply(1, '\x12');  // field 2 (error), length-delimited
    wire::put_varint(reply, message.size());
    reply += message;
    grpc::Slice slice(reply);
    return grpc::ByteBuffer(&slice, 1);
  }

 private:
  // kHeaderRoom holds a CallReply's field header: a tag byte and a varint
  // length of at most ten bytes.
  static constexpr std::size_t kHeaderRoom = 11;

  static void run(const Function& f, std::string_view args, std::string& result) {
    Reader r(args.data(), args.size());
    std::size_t n = r.read_array();
    if (n != f.arity) {
      throw ValueError("", f.name + " takes " + std::to_string(f.arity) + " arguments, the nexus sent " +
                               std::to_string(n));
    }
    // Where each argument starts; the last one need not be skipped.
    std::vector<Reader> readers;
    readers.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      readers.push_back(r);
      if (i + 1 < n) r.skip();
    }
    Writer out(result, kHeaderRoom);
    f.invoke(readers.data(), out);
    out.finish();
  }

  static grpc::ByteBuffer result_reply(std::unique_ptr<std::string> result) {
    std::size_t size = result->size() - kHeaderRoom;
    std::string header(1, '\x0a');  // field 1 (result), length-delimited
    wire::put_varint(header, size);
    std::size_t start = kHeaderRoom - header.size();
    std::memcpy(result->data() + start, header.data(), header.size());
    std::string* owned = result.release();
    grpc::Slice slice(owned->data() + start, owned->size() - start,
                      [](void* s) { delete static_cast<std::string*>(s); }, owned);
    return grpc::ByteBuffer(&slice, 1);
  }

  std::unordered_map<std::uint32_t, Function> table_;
};

// The methods a pool answers. go-plugin also opens plugin.GRPCBroker and
// plugin.GRPCStdio streams; they are answered UNIMPLEMENTED, which
// go-plugin accepts silently.
constexpr std::string_view kCall = "/nexus.pool.Pool/Call";
constexpr std::string_view kCallWithProgress = "/nexus.pool.Pool/CallWithProgress";
constexpr std::string_view kCalls = "/nexus.pool.Pool/Calls";
constexpr std::string_view kHealthCheck = "/grpc.health.v1.Health/Check";
constexpr std::string_view kShutdown = "/plugin.GRPCController/Shutdown";

// Workers runs the threads that serve requests. One thread at a time, the
// leader, waits for requests and runs calls itself: handing a request from
// one thread to another, or letting several threads wait for requests
// together, costs more than a short call (measured: a trivial call takes
// half again as much CPU time with two threads waiting). When a call runs
// longer than kLongCall, a watcher makes another thread the leader, so
// that long calls run side by side and never hold up other requests.
class Workers {
 public:
  // Step waits for one event and handles it; false when the server stops.
  using Step = std::function<bool()>;

  explicit Workers(Step step) : step_(std::move(step)) {}

  // run serves in the calling thread (and in the threads it starts) until
  // the server stops.
  void run() {
    std::thread([this] { watch(); }).detach();
    work();
  }

  // begin_call tells that the leader starts running a user's function; it
  // returns the token for end_call.
  std::uint64_t begin_call() {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = ++calls_;
    if (watcher_asleep_) watcher_.notify_one();
    return running_;
  }

  void end_call(std::uint64_t token) {
    std::lock_guard<std::mutex> lock(mu_);
    if (running_ == token) running_ = 0;
  }

 private:
  // kLongCall is how long the leader may run a call before another thread
  // takes over waiting for requests.
  static constexpr auto kLongCall = std::chrono::milliseconds(1);
  // kLingerChecks is how many checks the watcher makes after the last
  // call before it sleeps until the next one: no wake-up per call in a
  // stream of calls, none at all when the pool is idle.
  static constexpr int kLingerChecks = 200;
  // kMaxThreads bounds the calls that run at the same time; more wait for
  // one to end. (Python's pool runs at most 32.)
  static constexpr int kMaxThreads = 64;

  void work() {
    std::unique_lock<std::mutex> lock(mu_);
    const std::uint64_t me = ++ids_;
    ++threads_;
    for (;;) {
      while (leader_ != 0 && leader_ != me) {
        ++followers_;
        follow_.wait(lock);
        --followers_;
      }
      leader_ = me;
      lock.unlock();
      bool more = step_();
      lock.lock();
      if (!more) {
        if (leader_ == me) leader_ = 0;
        --threads_;
        follow_.notify_all();
        return;
      }
    }
  }

  void watch() {
    std::unique_lock<std::mutex> lock(mu_);
    std::uint64_t last_calls = calls_;
    int quiet = 0;
    for (;;) {
      if (running_ == 0 && quiet >= kLingerChecks) {
        watcher_asleep_ = true;
        watcher_.wait(lock, [this] { return running_ != 0; });
        watcher_asleep_ = false;
      }
      std::uint64_t seen = running_;
      watcher_.wait_for(lock, kLongCall);
      quiet = calls_ == last_calls && running_ == 0 ? quiet + 1 : 0;
      last_calls = calls_;
      if (seen == 0 || running_ != seen) continue;
      // The leader has been running the same call for kLongCall.
      running_ = 0;
      leader_ = 0;
      if (followers_ > 0) {
        follow_.notify_one();
      } else if (threads_ < kMaxThreads) {
        start_thread();
      }
    }
  }

  // start_thread starts another worker. When the system has no thread to
  // give, the next request waits for a running call to end instead.
  void start_thread() {
    try {
      std::thread([this] { work(); }).detach();
    } catch (const std::system_error&) {
    }
  }

  Step step_;
  std::mutex mu_;
  std::condition_variable follow_;   // followers wait here to lead
  std::condition_variable watcher_;  // the watcher sleeps here
  std::uint64_t leader_ = 0;         // the thread waiting for requests, or 0
  std::uint64_t ids_ = 0;
  std::uint64_t calls_ = 0;    // calls begun so far
  std::uint64_t running_ = 0;  // the call the leader runs, or 0
  int threads_ = 0;
  int followers_ = 0;
  bool watcher_asleep_ = false;
};

// Tag is what the completion queue hands back: an operation of a call that
// has completed, ok false when it failed (the call ended, the server stops).
class Tag {
 public:
  virtual void proceed(bool ok) = 0;

 protected:
  ~Tag() = default;
};

// Server serves every method through one generic service on one
// completion queue. (gRPC's own health service would start the callback
// API's polling threads, which compete for every request: they doubled
// the cost of a call.)
class Server {
 public:
  explicit Server(std::vector<Function> functions)
      : pool_(std::move(functions)), workers_([this] { return step(); }) {}

  // start listens on socket; false when it cannot.
  bool start(const std::string& socket) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix:" + socket, grpc::InsecureServerCredentials());
    // A value is one message, and a list of a million numbers is already
    // 9 MB, past gRPC's default limit of 4 MB.
    builder.SetMaxReceiveMessageSize(-1);
    builder.SetMaxSendMessageSize(-1);
    // No bandwidth-delay probing, as on the nexus's side: the probes ping
    // the nexus on most requests, an extra write and wake-up at both ends
    // of a call.
    builder.AddChannelArgument(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    builder.RegisterAsyncGenericService(&service_);
    queue_ = builder.AddCompletionQueue();
    server_ = builder.BuildAndStart();
    if (server_ == nullptr) return false;
    accept();
    return true;
  }

  // run serves requests until the pool exits.
  void run() { workers_.run(); }

 private:
  // Stream serves one Calls stream: every call of a nexus's pool connection
  // and its cancellations, read one message at a time, answered in any
  // order on the same stream.
  //
  // The thread that reads a call first asks for the next message, then
  // runs the call itself, as for Call: while it runs, the next message
  // waits for another worker to lead (Workers), so calls run side by side
  // up to kMaxThreads, and beyond that wait in gRPC, unread, until a
  // thread is free (back-pressure, nothing lost).
  //
  // Answers leave one at a time (gRPC takes one message of a stream at a
  // time), in the order they were made, from a queue that never makes a
  // function wait: a call's progress waits there as one entry holding its
  // latest report, so that a call reporting once per item sends at most
  // one report per write and its last report still precedes its reply.
  //
  // The stream ends when the nexus closes its side (the calls in flight
  // are answered first) or breaks it (their answers are dropped; the
  // functions still run to their end, since no thread can be stopped).
  // Odd messages: one of a kind the pool does not know is skipped (a newer
  // nexus may send more kinds); a call whose id is running is answered
  // with an error reply, the running call left alone; a message that
  // cannot be decoded ends the stream at once with INTERNAL, its calls in
  // flight dropped as for a broken stream.
  // Once the reads have ended, no call runs and no write is on its way,
  // the stream finishes, and its Rpc is deleted.
  class Stream : public std::enable_shared_from_this<Stream> {
   public:
    // finish is called once, when the stream is done; it ends the RPC.
    Stream(Server* server, grpc::GenericServerAsyncReaderWriter* rw, std::function<void(const grpc::Status&)> finish)
        : server_(server), rw_(rw), finish_(std::move(finish)) {}

    void start() { rw_->Read(&incoming_, static_cast<Tag*>(&read_done_)); }

   private:
    // Call is a call in flight.
    struct Call final : Reporter {
      Call(Stream* stream, std::uint64_t id) : stream(stream), id(id) {}
      void report(std::string progress) override { stream->queue_progress(this, std::move(progress)); }

      Stream* stream;
      const std::uint64_t id;
      std::atomic<bool> cancel{false};
      // The latest report not yet written, and whether it is queued: both
      // guarded by the stream's mu_.
      std::string progress;
      bool progress_queued = false;
    };

    // Outgoing is an answer waiting to be written: a reply, or the latest
    // progress of call when it is set.
    struct Outgoing {
      grpc::ByteBuffer message;
      std::shared_ptr<Call> call;
    };

    // Done forwards a completed read or write to the stream.
    class Done final : public Tag {
     public:
      Done(Stream* stream, void (Stream::*method)(bool)) : stream_(stream), method_(method) {}
      void proceed(bool ok) override { (stream_->*method_)(ok); }

     private:
      Stream* stream_;
      void (Stream::*method_)(bool);
    };

    void read(bool ok) {
      if (!ok) {  // the nexus closed its side, or the stream broke
        std::unique_lock<std::mutex> lock(mu_);
        reading_ = false;
        finish_if_done(lock);
        return;
      }
      grpc::ByteBuffer message;
      message.Swap(&incoming_);
      grpc::Slice single;
      std::string storage;
      wire::Message m;
      if (!wire::call_message(bytes_of(message, single, storage), m)) {
        fail(grpc::Status(grpc::StatusCode::INTERNAL, "the nexus sent a CallMessage that cannot be decoded (" +
                                                          std::to_string(message.Length()) +
                                                          " bytes that are not protobuf's encoding of one)"));
        return;
      }
      std::shared_ptr<Call> call;
      std::string refused;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (m.kind == wire::Message::Kind::kNone) {
          // A kind this pool does not know: a newer nexus may send more.
        } else if (m.kind == wire::Message::Kind::kCancel) {
          auto it = calls_.find(m.id);  // a call already answered is not there
          if (it != calls_.end()) it->second->cancel.store(true, std::memory_order_relaxed);
        } else if (calls_.count(m.id) != 0) {
          refused = "the nexus sent call " + std::to_string(m.id) + " while a call with that id was running";
        } else {
          call = std::make_shared<Call>(this, m.id);
          calls_.emplace(m.id, call);
        }
        if (!refused.empty()) send(Outgoing{wire::reply_answer(m.id, Pool::error_reply(refused)), nullptr});
      }
      // The message's bytes stay in message; incoming_ takes the next.
      // The call holds the stream: a stream that failed may finish, and
      // its RPC go, while calls still run.
      auto self = call != nullptr ? shared_from_this() : nullptr;
      rw_->Read(&incoming_, static_cast<Tag*>(&read_done_));
      if (call != nullptr) run(call, m);
    }

    // fail ends the stream with status, at once: no more reads, the
    // answers waiting dropped as for a broken stream, and the calls in
    // flight left to run to their end (no thread can be stopped) with
    // nowhere to send their replies.
    void fail(grpc::Status status) {
      std::unique_lock<std::mutex> lock(mu_);
      reading_ = false;
      broken_ = true;
      queue_.clear();
      status_ = std::move(status);
      finish_if_done(lock);
    }

    void run(const std::shared_ptr<Call>& call, const wire::Message& m) {
      std::uint64_t token = server_->workers_.begin_call();
      current_reporter = m.progress ? call.get() : nullptr;
      current_cancel = &call->cancel;
      grpc::ByteBuffer reply = server_->pool_.call(m.request);
      current_reporter = nullptr;
      current_cancel = nullptr;
      server_->workers_.end_call(token);
      if (call->cancel.load(std::memory_order_relaxed)) {
        reply = Pool::error_reply("the call was cancelled (by the nexus, before the function returned)");
      }
      std::unique_lock<std::mutex> lock(mu_);
      calls_.erase(call->id);
      send(Outgoing{wire::reply_answer(call->id, reply), nullptr});
      finish_if_done(lock);
    }

    void queue_progress(Call* call, std::string progress) {
      std::lock_guard<std::mutex> lock(mu_);
      call->progress = std::move(progress);
      if (call->progress_queued) return;
      auto it = calls_.find(call->id);
      if (it == calls_.end()) return;
      call->progress_queued = true;
      send(Outgoing{grpc::ByteBuffer(), it->second});
    }

    // send queues an answer and writes it when no write is on its way.
    // With mu_ held.
    void send(Outgoing out) {
      if (broken_) return;
      queue_.push_back(std::move(out));
      if (!writing_) write_next();
    }

    // write_next writes the first answer queued, if any. With mu_ held.
    void write_next() {
      writing_ = !queue_.empty();
      if (!writing_) return;
      Outgoing out = std::move(queue_.front());
      queue_.pop_front();
      if (out.call != nullptr) {
        out.message = wire::progress_answer(out.call->id, out.call->progress);
        out.call->progress_queued = false;
      }
      rw_->Write(out.message, static_cast<Tag*>(&write_done_));
    }

    void written(bool ok) {
      std::unique_lock<std::mutex> lock(mu_);
      if (ok) {
        write_next();
      } else {  // the stream broke: nobody reads the answers any more
        writing_ = false;
        broken_ = true;
        queue_.clear();
      }
      finish_if_done(lock);
    }

    // finish_if_done ends the stream once nothing is left to do (a failed
    // stream does not wait for its calls). It must be the last use of the
    // stream's RPC, which may be deleted at once.
    void finish_if_done(std::unique_lock<std::mutex>& lock) {
      if (reading_ || writing_ || (!calls_.empty() && status_.ok()) || finished_) return;
      finished_ = true;
      std::function<void(const grpc::Status&)> finish = finish_;  // this goes with the RPC
      grpc::Status status = status_;
      lock.unlock();
      finish(status);
    }

    Server* server_;
    grpc::GenericServerAsyncReaderWriter* rw_;
    std::function<void(const grpc::Status&)> finish_;
    grpc::ByteBuffer incoming_;  // the message being read
    Done read_done_{this, &Stream::read};
    Done write_done_{this, &Stream::written};

    std::mutex mu_;
    std::unordered_map<std::uint64_t, std::shared_ptr<Call>> calls_;  // in flight, by id
    std::deque<Outgoing> queue_;
    bool reading_ = true;   // a read is on its way
    bool writing_ = false;  // a write is on its way
    bool broken_ = false;   // a write failed, or the stream failed
    bool finished_ = false;
    grpc::Status status_;   // the stream's status: not OK once it failed
  };

  // Rpc is one call of any method, from its arrival to its answer.
  class Rpc final : public Tag {
   public:
    explicit Rpc(Server* server) : server_(server), stream_(&context_) {
      server_->service_.RequestCall(&context_, &stream_, server_->queue_.get(), server_->queue_.get(), tag());
    }

    // tag is the Rpc as the completion queue hands it back.
    Tag* tag() { return this; }

    void proceed(bool ok) override {
      switch (state_) {
        case State::kArriving:
          if (!ok) {  // the server is stopping
            delete this;
            return;
          }
          server_->accept();
          arrived();
          return;
        case State::kReading:
          if (!ok) {
            finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request message"));
            return;
          }
          answer();
          return;
        case State::kStreaming:  // a progress event has gone
          outbox_->sent(ok);
          return;
        case State::kCalls:  // Stream's operations have tags of their own
          return;
        case State::kFinishing:
          delete this;
          return;
      }
    }

   private:
    // kStreaming: a CallWithProgress call runs, and its events go out.
    // kCalls: calls_ serves a Calls stream.
    enum class State { kArriving, kReading, kStreaming, kCalls, kFinishing };

    void arrived() {
      const std::string& method = context_.method();
      if (method == kCalls) {
        state_ = State::kCalls;
        calls_ = std::make_shared<Stream>(server_, &stream_, [this](const grpc::Status& status) { finish(status); });
        calls_->start();
        return;
      }
      if (method == kCall || method == kCallWithProgress || method == kHealthCheck || method == kShutdown) {
        state_ = State::kReading;
        stream_.Read(&request_, tag());
        return;
      }
      finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "a nexus pool does not serve " + method));
    }

    void answer() {
      const std::string& method = context_.method();
      grpc::Slice single;
      std::string storage;
      std::string_view request = bytes_of(request_, single, storage);
      if (method == kCall) {
        std::uint64_t token = server_->workers_.begin_call();
        grpc::ByteBuffer result = server_->pool_.call(request);
        server_->workers_.end_call(token);
        reply(result);
      } else if (method == kCallWithProgress) {
        outbox_ = std::make_unique<Outbox>([this](const grpc::ByteBuffer& event) { stream_.Write(event, tag()); });
        state_ = State::kStreaming;
        std::uint64_t token = server_->workers_.begin_call();
        current_reporter = outbox_.get();
        grpc::ByteBuffer result = server_->pool_.call(request);
        current_reporter = nullptr;
        // Waiting here for the last event's completion is waiting for
        // another thread to lead: the call still counts as running, so
        // the watcher hands the queue over.
        outbox_->close();
        server_->workers_.end_call(token);
        reply(wire::reply_event(result));
      } else if (method == kHealthCheck) {
        std::string service;
        wire::fields(request.data(), request.size(), [&](const wire::Field& f) {
          if (f.number == 1) service.assign(f.data, f.size);
        });
        if (service.empty() || service == "plugin") {
          grpc::Slice serving(wire::kServing);
          reply(grpc::ByteBuffer(&serving, 1));
        } else {
          finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown service " + service));
        }
      } else {  // kShutdown
        std::thread([] {
          std::this_thread::sleep_for(kExitDelay);
          exit_now(0);
        }).detach();
        reply(grpc::ByteBuffer());  // plugin.Empty
      }
    }

    void reply(const grpc::ByteBuffer& message) {
      state_ = State::kFinishing;
      stream_.WriteAndFinish(message, grpc::WriteOptions(), grpc::Status::OK, tag());
    }

    void finish(const grpc::Status& status) {
      state_ = State::kFinishing;
      stream_.Finish(status, tag());
    }

    Server* server_;
    grpc::GenericServerContext context_;
    grpc::GenericServerAsyncReaderWriter stream_;
    grpc::ByteBuffer request_;
    State state_ = State::kArriving;
    std::unique_ptr<Outbox> outbox_;  // of a CallWithProgress call
    std::shared_ptr<Stream> calls_;   // of a Calls stream
  };

  // accept waits for the next call.
  void accept() { new Rpc(this); }

  // step handles one event of the completion queue.
  bool step() {
    void* tag = nullptr;
    bool ok = false;
    if (!queue_->Next(&tag, &ok)) return false;
    static_cast<Tag*>(tag)->proceed(ok);
    return true;
  }

  Pool pool_;
  Workers workers_;
  grpc::AsyncGenericService service_;
  std::unique_ptr<grpc::ServerCompletionQueue> queue_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace

void progress(double done, std::optional<double> total, std::string_view message) {
  if (current_reporter == nullptr) return;
  current_reporter->report(wire::progress(done, total, valid_utf8(std::string(message))));
}

bool cancelled() { return current_cancel != nullptr && current_cancel->load(std::memory_order_relaxed); }

FunctionRef read_function_ref(Reader& r) {
  if (std::size_t n = r.read_array(); n != 3) {
    throw ValueError("", "expected a function reference [id, slots, captured], got a list of " + std::to_string(n));
  }
  FunctionRef ref;
  ref.id = r.read_integer<std::uint32_t>();
  std::size_t n = r.read_array();
  ref.slots.reserve(std::min(n, r.remaining()));
  for (std::size_t i = 0; i < n; ++i) ref.slots.push_back(r.read_integer<int>());
  std::size_t m = r.read_array();
  ref.captured.reserve(std::min(m, r.remaining()));
  for (std::size_t i = 0; i < m; ++i) {
    const char* start = r.position();
    r.skip();
    ref.captured.emplace_back(start, static_cast<std::size_t>(r.position() - start));
  }
  return ref;
}

void FunctionRef::call(const std::string* args, std::size_t n, std::string& out) const {
  auto it = function_registry.find(id);
  if (it == function_registry.end()) {
    throw CallError("the nexus passed function " + std::to_string(id) +
                    ", which this C++ pool does not have; rebuild the program with `nexus make`");
  }
  const Function& f = *it->second;
  if (slots.size() != f.arity) {
    throw CallError(f.name + " takes " + std::to_string(f.arity) + " arguments, the function reference gives " +
                    std::to_string(slots.size()));
  }
  std::vector<Reader> readers;
  readers.reserve(slots.size());
  std::size_t next = 0;
  for (int s : slots) {
    if (s < 0 && next < captured.size()) {
      readers.emplace_back(captured[next].data(), captured[next].size());
      ++next;
    } else if (s >= 0 && static_cast<std::size_t>(s) < n) {
      readers.emplace_back(args[s].data(), args[s].size());
    } else {
      throw CallError("a malformed reference to " + f.name + ": slot " + std::to_string(s) + " of " +
                      std::to_string(n) + " arguments and " + std::to_string(captured.size()) + " captured");
    }
  }
  Writer w(out);
  try {
    f.invoke(readers.data(), w);
  } catch (...) {
    throw CallError(describe_exception() + "\n  in the C++ function " + f.origin);
  }
  w.finish();
}

int serve(std::vector<Function> functions) {
  if (!started_by_nexus()) return 1;
  if (handshake_fd < 0) {
    std::cerr << "nexus C++ pool: standard output is closed; cannot answer the nexus\n";
    return 1;
  }
  // Abseil, which gRPC locks with, checks every lock for deadlocks in
  // Debian's build; that is a fifth of the cost of a call.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  socket_file = socket_path();
  if (socket_file.empty()) {
    std::cerr << "nexus C++ pool: cannot make a folder for its socket: " << std::strerror(errno) << "\n";
    return 1;
  }
  // Never destroyed: the pool ends with _Exit while gRPC still runs.
  auto* server = new Server(std::move(functions));
  if (!server->start(socket_file)) {
    std::cerr << "nexus C++ pool: cannot listen on " << socket_file << "\n";
    if (!own_folder.empty()) rmdir(own_folder.c_str());
    return 1;
  }
  // The nexus is gone once the pool's parent changes (to init, launchd or
  // a subreaper). Had it died before this, the handshake's write fails.
  std::thread([parent = getppid()] {
    while (getppid() == parent) std::this_thread::sleep_for(kParentCheck);
    exit_now(1);
  }).detach();
  std::string line = std::to_string(kCoreProtocolVersion) + "|" + std::to_string(kAppProtocolVersion) + "|unix|" +
                     socket_file + "|grpc\n";
  bool ok = write_all(handshake_fd, line);
  close(handshake_fd);
  handshake_fd = -1;
  if (!ok) {
    std::cerr << "nexus C++ pool: cannot write the handshake: " << std::strerror(errno) << "\n";
    exit_now(1);
  }
  server->run();
  exit_now(0);
}

}  // namespace nexus
