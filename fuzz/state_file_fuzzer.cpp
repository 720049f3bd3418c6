// libFuzzer target: the ledger's state file decoder (DecodeLedger) on arbitrary bytes.
//
// Each input is decoded twice: as it is (mostly refused by the checksum, which
// exercises the envelope checks), and with its last line replaced by the right
// checksum (which lets the fuzzer reach the record parser and
// Ledger::Restore). Whatever decodes must survive a round trip: encoding it
// and decoding that gives the same ledger and time, and the same bytes again.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "budget/state_file.hpp"

namespace {

void Require(bool holds, const char* what) {
  if (!holds) {
    std::fprintf(stderr, "state_file_fuzzer: broken contract: %s\n", what);
    std::abort();
  }
}

std::string Hex16(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

// `bytes` up to its last line (the checksum line if it had one), then a
// checksum line that matches.
std::string Sealed(std::string_view bytes) {
  std::string_view body = bytes;
  if (!body.empty() && body.back() == '\n') {
    body.remove_suffix(1);
  }
  const std::size_t last = body.rfind('\n');
  body = last == std::string_view::npos ? std::string_view() : body.substr(0, last + 1);
  std::string sealed(body);
  return sealed + "checksum fnv1a64 " + Hex16(budget::Fnv1a64(sealed)) + "\n";
}

void CheckOne(std::string_view bytes) {
  budget::Result<budget::DecodedLedger> decoded = budget::DecodeLedger(bytes);
  if (!decoded.ok()) {
    Require(!decoded.error().empty(), "a refusal says why");
    return;
  }
  const budget::DecodedLedger& first = decoded.value();
  const std::string encoded = budget::EncodeLedger(first.ledger, first.saved_at);
  budget::Result<budget::DecodedLedger> again = budget::DecodeLedger(encoded);
  Require(again.ok(), "what EncodeLedger writes decodes");
  Require(again.value().ledger == first.ledger, "round trip keeps the ledger");
  Require(again.value().saved_at == first.saved_at, "round trip keeps saved-at");
  Require(budget::EncodeLedger(again.value().ledger, again.value().saved_at) == encoded,
          "encoding is deterministic");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  CheckOne(bytes);
  CheckOne(Sealed(bytes));
  return 0;
}
