// The .npy byte format in memory: headers parsed and serialized, descr strings, byte order. The
// format: the magic "\x93NUMPY", a major and minor version byte, the header length (2 bytes
// little-endian in version 1, 4 bytes in versions 2 and 3), then a Python dict literal
// {'descr': ..., 'fortran_order': ..., 'shape': ...} padded with spaces and ended by '\n', then the
// raw element bytes. Version 3 only allows UTF-8 in the header, which changes nothing here: every
// token eltwise accepts is ASCII.
#include "npy/npy_format.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

#include "core/out_of_memory.h"
#include "npy/npy.h"

namespace eltwise::npy {

using internal::DataSizeMismatch;
using internal::Invalid;
using internal::ParseHeader;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// NumPy's own limit on the number of dimensions (NPY_MAXDIMS in NumPy 2).
constexpr size_t kMaxDimensions = 64;
constexpr bool kNativeBigEndian = std::endian::native == std::endian::big;

std::string ShapeText(const std::vector<uint64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

// The byte size of a shape's elements, or an error naming the overflow.
Status CountBytes(const std::vector<uint64_t>& shape, DataType type, uint64_t* bytes) {
  uint64_t n = 1;
  bool zero = false;
  bool overflow = false;
  for (uint64_t d : shape) {
    if (d == 0) zero = true;
    if (!overflow && __builtin_mul_overflow(n, d, &n)) overflow = true;
  }
  if (zero) {
    *bytes = 0;
    return Status::Ok();
  }
  if (overflow) {
    return Invalid("shape " + ShapeText(shape) + " has more than 2^64 - 1 elements");
  }
  uint64_t b;
  if (__builtin_mul_overflow(n, static_cast<uint64_t>(ElementSize(type)), &b)) {
    return Invalid("shape " + ShapeText(shape) + " of " + std::string(Name(type)) +
                   " needs more than 2^64 - 1 bytes");
  }
  *bytes = b;
  return Status::Ok();
}

template <class Word, Word (*Swap)(Word)>
void SwapWords(std::byte* data, size_t bytes) {
  for (size_t i = 0; i + sizeof(Word) <= bytes; i += sizeof(Word)) {
    Word w;
    std::memcpy(&w, data + i, sizeof w);
    w = Swap(w);
    std::memcpy(data + i, &w, sizeof w);
  }
}
uint16_t Swap16(uint16_t w) { return __builtin_bswap16(w); }
uint32_t Swap32(uint32_t w) { return __builtin_bswap32(w); }
uint64_t Swap64(uint64_t w) { return __builtin_bswap64(w); }

void SwapBytes(std::byte* data, size_t bytes, size_t element_size) {
  switch (element_size) {  // the element sizes of eltwise's types, as loops compilers vectorize
    case 2:
      return SwapWords<uint16_t, Swap16>(data, bytes);
    case 4:
      return SwapWords<uint32_t, Swap32>(data, bytes);
    case 8:
      return SwapWords<uint64_t, Swap64>(data, bytes);
    default:
      for (size_t i = 0; element_size > 1 && i + element_size <= bytes; i += element_size) {
        std::reverse(data + i, data + i + element_size);
      }
  }
}

// Maps a descr string to a data type and byte order.
Status ParseDescr(std::string_view descr, DataType* type, bool* big_endian) {
  const std::string quoted = "descr '" + std::string(descr) + "'";
  std::string_view code = descr;
  char order = '=';
  if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '|' || code[0] == '=')) {
    order = code[0];
    code.remove_prefix(1);
  }
  struct Known {
    std::string_view code;
    DataType type;
  };
  static constexpr Known kKnown[] = {
      {"f2", DataType::kFloat16}, {"f4", DataType::kFloat32}, {"f8", DataType::kFloat64},
      {"i1", DataType::kInt8},    {"i2", DataType::kInt16},   {"i4", DataType::kInt32},
      {"i8", DataType::kInt64},   {"u1", DataType::kUInt8},   {"u2", DataType::kUInt16},
      {"u4", DataType::kUInt32},  {"u8", DataType::kUInt64},  {"V2", DataType::kBFloat16},
  };
  for (const Known& k : kKnown) {
    if (code != k.code) continue;
    if (k.type == DataType::kBFloat16 && order == '|') {
      return Invalid(quoted +
                     " is raw 2-byte void data (np.void); bfloat16 is read from '<V2' or '>V2', "
                     "what np.save writes for ml_dtypes.bfloat16");
    }
    *type = k.type;
    *big_endian = ElementSize(k.type) > 1 &&
                  (order == '>' || ((order == '|' || order == '=') && kNativeBigEndian));
    return Status::Ok();
  }
  std::string what;
  if (!code.empty()) {
    switch (code[0]) {
      case 'b':
      case '?':
        if (code == "b1" || code == "?") what = " (bool)";
        break;
      case 'O':
        what = " (Python objects)";
        break;
      case 'c':
        what = " (complex)";
        break;
      case 'U':
      case 'S':
      case 'a':
        what = " (strings)";
        break;
      case 'M':
      case 'm':
        what = " (datetime)";
        break;
      case 'V':
        what = " (void)";
        break;
      case 'f':
        if (code != "f2" && code != "f4" && code != "f8") what = " (this float size)";
        break;
      default:
        break;
    }
  }
  return Invalid(quoted + what +
                 " is not supported; eltwise reads f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 (with byte "
                 "order <, >, | or =) and bfloat16 ('<V2' or '>V2')");
}

// A recursive-descent parser for the header dict: string keys; values that are strings, True or
// False, or tuples of non-negative integers. Anything else is an error naming the position.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  Status Parse(std::string* descr, bool* fortran_order, std::vector<uint64_t>* shape) {
    SkipSpace();
    if (!Consume('{')) return Error("the header does not start with '{'");
    bool have_descr = false, have_order = false, have_shape = false;
    SkipSpace();
    while (!Consume('}')) {
      std::string key;
      if (Status s = ParseString(&key, "a key"); !s.ok()) return s;
      SkipSpace();
      if (!Consume(':')) return Error("expected ':' after the key '" + key + "'");
      SkipSpace();
      if (key == "descr") {
        if (have_descr) return Error("the key 'descr' appears twice");
        have_descr = true;
        if (Peek() == '[') {
          return Invalid("header: 'descr' is a list: structured dtypes are not supported");
        }
        if (Status s = ParseString(descr, "the 'descr' string"); !s.ok()) return s;
      } else if (key == "fortran_order") {
        if (have_order) return Error("the key 'fortran_order' appears twice");
        have_order = true;
        if (ConsumeWord("True")) {
          *fortran_order = true;
        } else if (ConsumeWord("False")) {
          *fortran_order = false;
        } else {
          return Error("'fortran_order' must be True or False");
        }
      } else if (key == "shape") {
        if (have_shape) return Error("the key 'shape' appears twice");
        have_shape = true;
        if (Status s = ParseShape(shape); !s.ok()) return s;
      } else {
        return Error("unexpected key '" + key +
                     "' (the keys are 'descr', 'fortran_order', "
                     "'shape')");
      }
      SkipSpace();
      if (Consume(',')) {
        SkipSpace();
      } else if (Peek() != '}') {
        return Error("expected ',' or '}'");
      }
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the header dict");
    if (!have_descr) return Invalid("header: the key 'descr' is missing");
    if (!have_order) return Invalid("header: the key 'fortran_order' is missing");
    if (!have_shape) return Invalid("header: the key 'shape' is missing");
    return Status::Ok();
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ConsumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    const char next = pos_ + word.size() < text_.size() ? text_[pos_ + word.size()] : '\0';
    if (std::isalnum(static_cast<unsigned char>(next)) || next == '_') return false;
    pos_ += word.size();
    return true;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  Status Error(const std::string& what) const {
    return Invalid("header: " + what + " at offset " + std::to_string(pos_) + " of the header");
  }

  Status ParseString(std::string* out, const char* what) {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return Error(std::string("expected ") + what);
    ++pos_;
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') return Error("escape sequences in strings are not supported");
      if (text_[pos_] == '\n') return Error("a string literal runs past the end of the line");
      ++pos_;
    }
    if (pos_ == text_.size()) return Error("a string literal is not closed");
    *out = std::string(text_.substr(start, pos_ - start));
    ++pos_;
    return Status::Ok();
  }

  Status ParseShape(std::vector<uint64_t>* shape) {
    shape->clear();
    if (!Consume('(')) return Error("'shape' must be a tuple of integers");
    bool trailing_comma = false;
    SkipSpace();
    while (!Consume(')')) {
      if (Peek() == '-') return Error("shape[" + std::to_string(shape->size()) + "] is negative");
      if (!std::isdigit(static_cast<unsigned char>(Peek()))) {
        return Error("'shape' must be a tuple of non-negative integers");
      }
      uint64_t value = 0;
      while (std::isdigit(static_cast<unsigned char>(Peek()))) {
        if (__builtin_mul_overflow(value, uint64_t{10}, &value) ||
            __builtin_add_overflow(value, static_cast<uint64_t>(Peek() - '0'), &value)) {
          return Error("shape[" + std::to_string(shape->size()) + "] does not fit in 64 bits");
        }
        ++pos_;
      }
      Consume('L');  // Python 2 long suffix, found in files written by old NumPy
      if (shape->size() == kMaxDimensions) {
        return Error("'shape' has more than " + std::to_string(kMaxDimensions) + " dimensions");
      }
      shape->push_back(value);
      SkipSpace();
      trailing_comma = Consume(',');
      SkipSpace();
      if (!trailing_comma && Peek() != ')') return Error("expected ',' or ')' in 'shape'");
    }
    if (shape->size() == 1 && !trailing_comma) {
      return Error(
          "'shape' is an integer in parentheses, not a tuple (a 1-d shape is written "
          "(n,))");
    }
    return Status::Ok();
  }

  std::string_view text_;
  size_t pos_ = 0;
};

uint32_t LoadLittleEndian(const std::byte* p, size_t bytes) {
  uint32_t value = 0;
  for (size_t i = 0; i < bytes; ++i) value |= static_cast<uint32_t>(p[i]) << (8 * i);
  return value;
}

}  // namespace

uint64_t Header::element_count() const {
  uint64_t n = 1;
  for (uint64_t d : shape) {
    if (d == 0) return 0;
  }
  for (uint64_t d : shape) {
    if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<uint64_t>::max();
  }
  return n;
}

uint64_t Header::data_bytes() const {
  uint64_t bytes;
  if (__builtin_mul_overflow(element_count(), static_cast<uint64_t>(ElementSize(type)), &bytes)) {
    return std::numeric_limits<uint64_t>::max();
  }
  return bytes;
}

TensorDesc Header::Desc() const {
  TensorDesc desc;
  desc.type = type;
  desc.sizes = shape;
  if (fortran_order && shape.size() > 1) {
    // Column-major: dimension 0 varies fastest. Zero-sized dimensions do not scale the strides
    // (the tensor is empty then), like PackedStrides.
    std::vector<int64_t> strides(shape.size());
    uint64_t stride = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      strides[i] = static_cast<int64_t>(
          std::min<uint64_t>(stride, static_cast<uint64_t>(std::numeric_limits<int64_t>::max())));
      if (shape[i] != 0 && __builtin_mul_overflow(stride, shape[i], &stride)) {
        stride = std::numeric_limits<uint64_t>::max();
      }
    }
    desc.strides = std::move(strides);
  }
  desc.total_tensor_size_in_bytes =
      CalcBufferTensorSize(type, desc.sizes, desc.strides).value_or(0);
  return desc;
}

std::string Descr(DataType type, bool big_endian) {
  const size_t size = ElementSize(type);
  const char order = size == 1 ? '|' : big_endian ? '>' : '<';
  std::string descr(1, order);
  if (type == DataType::kBFloat16) {
    descr += "V2";
  } else {
    descr += IsFloatingPoint(type) ? 'f' : IsSignedInteger(type) ? 'i' : 'u';
    descr += std::to_string(size);
  }
  return descr;
}

Status Check(const Array& array) {
  if (array.version < 1 || array.version > 3) {
    return Invalid("version is " + std::to_string(array.version) + "; it must be 1, 2 or 3");
  }
  if (static_cast<unsigned>(array.type) >= static_cast<unsigned>(kDataTypeCount)) {
    return Invalid("type is " + std::to_string(static_cast<int>(array.type)) +
                   ", which is not a data type");
  }
  if (array.shape.size() > kMaxDimensions) {
    return Invalid("shape has " + std::to_string(array.shape.size()) + " dimensions; at most " +
                   std::to_string(kMaxDimensions) + " are allowed");
  }
  uint64_t bytes;
  if (Status s = CountBytes(array.shape, array.type, &bytes); !s.ok()) return s;
  if (array.data.size() != bytes) {
    return Invalid("data has " + std::to_string(array.data.size()) + " bytes but shape " +
                   ShapeText(array.shape) + " of " + std::string(Name(array.type)) + " needs " +
                   std::to_string(bytes));
  }
  return Status::Ok();
}

namespace internal {

Status Invalid(std::string message) { return InvalidArgument(".npy " + message); }

std::optional<Preamble> ReadPreamble(std::span<const std::byte> prefix) {
  if (prefix.size() < kMagicSize + 2 || std::memcmp(prefix.data(), kMagic, kMagicSize) != 0 ||
      prefix[6] < std::byte{1} || prefix[6] > std::byte{3} || prefix[7] != std::byte{0}) {
    return std::nullopt;
  }
  const size_t length_bytes = prefix[6] == std::byte{1} ? 2 : 4;
  const size_t preamble = kMagicSize + 2 + length_bytes;
  if (prefix.size() < preamble) return std::nullopt;
  return Preamble{preamble, LoadLittleEndian(prefix.data() + kMagicSize + 2, length_bytes)};
}

Expected<Header> ParseHeader(std::span<const std::byte> file, uint64_t* data_offset) {
  if (file.size() < kMagicSize + 2) {
    return Invalid("file is truncated: it has " + std::to_string(file.size()) +
                   " bytes, fewer than the magic string and version");
  }
  if (std::memcmp(file.data(), kMagic, kMagicSize) != 0) {
    return Invalid("magic string is missing: the file does not start with \\x93NUMPY");
  }
  const int major = static_cast<int>(file[6]);
  const int minor = static_cast<int>(file[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return Invalid("format version " + std::to_string(major) + "." + std::to_string(minor) +
                   " is not supported (1.0, 2.0 and 3.0 are)");
  }
  const size_t length_bytes = major == 1 ? 2 : 4;
  const size_t preamble = kMagicSize + 2 + length_bytes;
  if (file.size() < preamble) {
    return Invalid("file is truncated: it ends inside the header length field");
  }
  const uint64_t header_length = LoadLittleEndian(file.data() + kMagicSize + 2, length_bytes);
  if (header_length > file.size() - preamble) {
    return Invalid("file is truncated: the header length is " + std::to_string(header_length) +
                   " bytes but only " + std::to_string(file.size() - preamble) +
                   " bytes follow the preamble");
  }
  const std::string_view text(reinterpret_cast<const char*>(file.data() + preamble), header_length);

  Header header;
  header.version = major;
  std::string descr;
  if (Status s = HeaderParser(text).Parse(&descr, &header.fortran_order, &header.shape); !s.ok()) {
    return s;
  }
  if (Status s = ParseDescr(descr, &header.type, &header.big_endian); !s.ok()) return s;
  uint64_t bytes;
  if (Status s = CountBytes(header.shape, header.type, &bytes); !s.ok()) return s;
  *data_offset = preamble + header_length;
  return header;
}

Status DataSizeMismatch(const Header& header, uint64_t available) {
  const uint64_t needed = header.data_bytes();
  return Invalid("data has " + std::to_string(available) + " bytes but shape " +
                 ShapeText(header.shape) + " of " + std::string(Name(header.type)) + " needs " +
                 std::to_string(needed) +
                 (available < needed ? " (the file is truncated)" : " (trailing bytes)"));
}

}  // namespace internal

bool NeedsSwap(const Header& header) {
  return header.big_endian != kNativeBigEndian && ElementSize(header.type) > 1;
}

void SwapElementBytes(std::span<std::byte> bytes, size_t element_size) {
  SwapBytes(bytes.data(), bytes.size(), element_size);
}

Expected<Array> Parse(std::span<const std::byte> file) {
  return GuardAllocation("npy::Parse", [&]() -> Expected<Array> {
    uint64_t data_offset = 0;
    Expected<Header> header = ParseHeader(file, &data_offset);
    if (!header.ok()) return header.status();
    Array array;
    static_cast<Header&>(array) = std::move(*header);
    const uint64_t available = file.size() - data_offset;
    if (available != array.data_bytes()) return DataSizeMismatch(array, available);
    const std::byte* data = file.data() + data_offset;
    array.data.assign(data, data + available);
    if (NeedsSwap(array)) SwapBytes(array.data.data(), array.data.size(), ElementSize(array.type));
    return array;
  });
}

std::vector<std::byte> SerializeHeader(const Header& array) {
  std::string header = "{'descr': '" + Descr(array.type, array.big_endian) +
                       "', 'fortran_order': " + (array.fortran_order ? "True" : "False") +
                       ", 'shape': " + ShapeText(array.shape) + ", }";
  const int version = array.version >= 1 && array.version <= 3 ? array.version : 1;
  const size_t preamble = version == 1 ? 10 : 12;
  // Pad so that the data starts 64-byte aligned; the header ends with '\n'.
  const size_t unpadded = preamble + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';

  std::vector<std::byte> file;
  file.reserve(preamble + header.size());
  for (size_t i = 0; i < kMagicSize; ++i) file.push_back(static_cast<std::byte>(kMagic[i]));
  file.push_back(static_cast<std::byte>(version));
  file.push_back(std::byte{0});
  const size_t length_bytes = preamble - kMagicSize - 2;
  for (size_t i = 0; i < length_bytes; ++i) {
    file.push_back(static_cast<std::byte>((header.size() >> (8 * i)) & 0xFF));
  }
  for (char c : header) file.push_back(static_cast<std::byte>(c));
  return file;
}

std::vector<std::byte> Serialize(const Array& array) {
  std::vector<std::byte> file = SerializeHeader(array);
  const size_t data_start = file.size();
  file.reserve(data_start + array.data.size());
  file.insert(file.end(), array.data.begin(), array.data.end());
  if (NeedsSwap(array)) {
    SwapBytes(file.data() + data_start, array.data.size(), ElementSize(array.type));
  }
  return file;
}

}  // namespace eltwise::npy
