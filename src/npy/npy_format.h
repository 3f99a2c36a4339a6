// What the .npy file I/O (npy_files.cc) takes from the byte format (npy_format.cc) beyond npy.h:
// the preamble and header read from the start of a file, and the format's messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "npy/npy.h"

namespace eltwise::npy::internal {

// The longest preamble (magic, version, header length): 12 bytes in versions 2 and 3.
inline constexpr size_t kMaxPreambleBytes = 12;

// What a preamble announces: its own size and the length of the header dict that follows it.
struct Preamble {
  size_t bytes = 0;
  uint64_t header_length = 0;
};

// The preamble at the start of `prefix` when `prefix` holds a whole one with the magic string and
// a supported version (1.0, 2.0 or 3.0); nullopt otherwise (ParseHeader then says what is wrong).
std::optional<Preamble> ReadPreamble(std::span<const std::byte> prefix);

// Parses the header at the start of `file` (all of the file, or a prefix holding at least the
// whole header: the messages about a file too short for its header quote file.size()). Sets
// `data_offset` to where the data starts.
Expected<Header> ParseHeader(std::span<const std::byte> file, uint64_t* data_offset);

// The error for a file whose data is `available` bytes where `header` needs data_bytes().
Status DataSizeMismatch(const Header& header, uint64_t available);

// kInvalidArgument with ".npy " before `message`, as every format error reads.
Status Invalid(std::string message);

}  // namespace eltwise::npy::internal
