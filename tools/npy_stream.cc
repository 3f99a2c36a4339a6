#include "npy_stream.h"

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include "npy/npy.h"
#include "progress.h"
#include "staging/staging.h"

namespace eltwise::cli {
namespace {

// The signal that asked the run to stop (0: none). Set by the handler, read by both threads.
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler stores to it");

extern "C" void RecordStopSignal(int signal) { g_stop_signal.store(signal); }

// Installs RecordStopSignal for SIGINT and SIGTERM (and ignores SIGXFSZ, so that a file size limit
// makes write() fail with EFBIG, reported like a full disk, instead of killing the process) for
// its lifetime.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal.store(0);
    previous_int_ = std::signal(SIGINT, RecordStopSignal);
    previous_term_ = std::signal(SIGTERM, RecordStopSignal);
#if defined(SIGXFSZ)
    previous_xfsz_ = std::signal(SIGXFSZ, SIG_IGN);
#endif
  }
  ~StopSignals() {
    std::signal(SIGINT, previous_int_);
    std::signal(SIGTERM, previous_term_);
#if defined(SIGXFSZ)
    std::signal(SIGXFSZ, previous_xfsz_);
#endif
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  using Handler = void (*)(int);
  Handler previous_int_, previous_term_;
#if defined(SIGXFSZ)
  Handler previous_xfsz_;
#endif
};

uint64_t ChunkBytes() {
  uint64_t bytes = kDefaultChunkBytes;
  if (const char* text = std::getenv("ELTWISE_CHUNK_BYTES"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text, &end, 10);
    if (*end != '\0') {
      Fail(InvalidArgument("ELTWISE_CHUNK_BYTES '" + std::string(text) + "' is not a byte count"));
    }
    bytes = value;
  }
  return std::max<uint64_t>(64, bytes / 64 * 64);  // whole elements of every type, aligned
}

// Whether the writer asks the system to start writing each chunk to disk as soon as it is written
// (so the final fsync overlaps the run); ELTWISE_EARLY_WRITEBACK=0 turns it off, to measure it.
bool EarlyWriteback() {
  const char* text = std::getenv("ELTWISE_EARLY_WRITEBACK");
  return text == nullptr || std::string(text) != "0";
}

struct AlignedFree {
  void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t{4096}); }
};
using AlignedBuffer = std::unique_ptr<std::byte[], AlignedFree>;

// A queue of buffer indices between the two threads, with room for `capacity` indices allocated
// up front: Push never allocates, so it cannot fail on the writer thread (where an exception would
// end the process). At most every buffer and the end marker are ever queued at once.
class IndexQueue {
 public:
  explicit IndexQueue(size_t capacity) : items_(capacity) {}
  void Push(int index) {
    {
      std::lock_guard lock(mutex_);
      items_[(head_ + size_) % items_.size()] = index;
      ++size_;
    }
    ready_.notify_one();
  }
  int Pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return size_ != 0; });
    const int index = items_[head_];
    head_ = (head_ + 1) % items_.size();
    --size_;
    return index;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<int> items_;  // a ring: size_ indices from head_
  size_t head_ = 0;
  size_t size_ = 0;
};

std::string SignalName(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signal);
}

}  // namespace

void TransformNpyFile(const DeviceOptions& device_options, const MakeOperatorDesc& desc_for,
                      const StreamOptions& options) {
  const StopSignals stop_signals;
  const Device device = MakeDevice(device_options);
  Expected<npy::InputFile> input = npy::InputFile::Open(options.input);
  if (!input.ok()) Fail(input.status());
  const npy::Header& header = input->header();
  if (Status s = Validate(device.feature_level(), desc_for(header.Desc())); !s.ok()) {
    Fail(s, options.input);
  }
  // Chunks run in place through the staging module's runner: on a CPU device on the chunk's host
  // memory itself; on another device through one device buffer, allocated for the first chunk
  // and reused by every later one. Chunks are run on an extended-level device: the whole array
  // was validated at the requested level, and a level changes what is accepted, never a result.
  DeviceOptions chunk_options = device_options;
  chunk_options.feature_level = std::string(Name(FeatureLevel::kExtended));
  staging::InPlaceRunner runner(
      device.feature_level() == FeatureLevel::kExtended ? device : MakeDevice(chunk_options));

  Expected<npy::PendingFile> output = npy::PendingFile::Create(options.output);
  if (!output.ok()) Fail(output.status());
  const std::vector<std::byte> output_header = npy::SerializeHeader(header);
  if (Status s = output->Write(output_header); !s.ok()) Fail(s);

  const uint64_t data_bytes = header.data_bytes();
  const size_t element_size = ElementSize(header.type);
  const bool swap = npy::NeedsSwap(header);
  const uint64_t chunk_bytes = std::min(ChunkBytes(), std::max<uint64_t>(data_bytes, 64));
  const uint64_t capacity = chunk_bytes + 64;
  const int buffer_count = static_cast<int>(
      std::min<uint64_t>(kStreamBuffers, (data_bytes + chunk_bytes - 1) / chunk_bytes));

  Progress progress(options.label + " " + options.output, output_header.size() + data_bytes,
                    Progress::Unit::kBytes, !options.quiet && StderrIsTerminal());
  std::vector<AlignedBuffer> buffers;
  std::vector<uint64_t> filled(static_cast<size_t>(buffer_count), 0);
  IndexQueue free_buffers(static_cast<size_t>(buffer_count) + 1);
  IndexQueue full_buffers(static_cast<size_t>(buffer_count) + 1);
  buffers.reserve(static_cast<size_t>(buffer_count));  // emplace_back below cannot fail then
  for (int i = 0; i < buffer_count; ++i) {
    buffers.emplace_back(new (std::align_val_t{4096}) std::byte[capacity]());
    free_buffers.Push(i);
  }

  // The writer: appends full buffers in order, then hands them back. After an error it only
  // hands them back. It runs on a thread of its own while there is reading to overlap; a file of
  // one chunk has none (starting a thread costs more than a small file's whole run).
  std::mutex status_mutex;
  Status write_status = Status::Ok();
  std::atomic<bool> write_failed{false};
  const bool early_writeback = EarlyWriteback();
  uint64_t written = output_header.size();  // the writer's
  const auto write_one = [&](int index) {
    if (write_failed.load() || g_stop_signal.load() != 0) return;
    const std::span<const std::byte> bytes(buffers[static_cast<size_t>(index)].get(),
                                           filled[static_cast<size_t>(index)]);
    if (Status s = output->Write(bytes); !s.ok()) {
      std::lock_guard lock(status_mutex);
      write_status = s;
      write_failed.store(true);
      return;
    }
    if (early_writeback) output->StartWriteback();
    written += bytes.size();
    progress.Update(written);
  };
  const auto write_loop = [&] {
    for (int index; (index = full_buffers.Pop()) >= 0; free_buffers.Push(index)) write_one(index);
  };
  // Without a writer thread (one chunk, or the system refused the thread or memory for it) this
  // thread writes each chunk as soon as it is computed.
  std::thread writer;
  if (buffer_count > 1) {
    try {
      writer = std::thread(write_loop);
    } catch (const std::system_error&) {
    } catch (const std::bad_alloc&) {
    }
  }
  const bool threaded = writer.joinable();
  // Ends the writer however this thread leaves, an exception (std::bad_alloc) included: the
  // destructor of a std::thread still running would end the process.
  struct JoinWriter {
    std::thread& thread;
    IndexQueue& queue;
    ~JoinWriter() {
      if (thread.joinable()) {
        queue.Push(-1);
        thread.join();
      }
    }
  } join_writer{writer, full_buffers};

  // This thread: reads and computes chunk after chunk into free buffers.
  Status status = Status::Ok();
  for (uint64_t offset = 0; offset < data_bytes && status.ok();) {
    const int index = free_buffers.Pop();
    if (write_failed.load() || g_stop_signal.load() != 0) {
      free_buffers.Push(index);
      break;
    }
    std::byte* chunk = buffers[static_cast<size_t>(index)].get();
    const uint64_t bytes = std::min(chunk_bytes, data_bytes - offset);
    status = input->ReadData(std::span<std::byte>(chunk, bytes));
    if (status.ok()) {
      if (swap) npy::SwapElementBytes(std::span<std::byte>(chunk, bytes), element_size);
      status = runner.Run(desc_for(TensorDesc::Packed(header.type, {bytes / element_size})),
                          std::span<std::byte>(chunk, bytes), capacity);
      if (!status.ok()) status = Status(status.code(), options.input + ": " + status.message());
      if (swap) npy::SwapElementBytes(std::span<std::byte>(chunk, bytes), element_size);
    }
    if (!status.ok()) {
      free_buffers.Push(index);
      break;
    }
    filled[static_cast<size_t>(index)] = bytes;
    if (threaded) {
      full_buffers.Push(index);
    } else {
      write_one(index);
      free_buffers.Push(index);
    }
    offset += bytes;
  }
  if (status.ok() && data_bytes == 0) status = input->ReadData({});  // checks the file ends
  if (threaded) {
    full_buffers.Push(-1);
    writer.join();
  }
  if (status.ok() && write_failed.load()) status = write_status;

  if (status.ok() && g_stop_signal.load() == 0) status = output->Flush();
  progress.Clear();
  if (const int signal = g_stop_signal.load(); signal != 0) {
    output->Discard();
    throw CommandError(128 + signal, "interrupted by " + SignalName(signal) + ": '" +
                                         options.output + "' was not written");
  }
  // Closed before OUT replaces it: OUT may be IN, and Windows refuses to replace an open file.
  input->Close();
  if (status.ok()) status = output->Commit();
  if (!status.ok()) {
    output->Discard();
    Fail(status);
  }
}

}  // namespace eltwise::cli
