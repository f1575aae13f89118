// Parsers for the human-friendly quantities that appear in config files: byte sizes ("4GiB",
// "512MiB", "1.5GB", "4096") and durations ("7d", "1h30m", "500ms").
//
// Internal to src/config. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace strata::config {

// Parses a byte size: a non-negative number followed by an optional unit. Units (case-insensitive,
// optional space before): B; K/KB, M/MB, G/GB, T/TB (powers of 1000); KiB/Ki, MiB/Mi, GiB/Gi,
// TiB/Ti (powers of 1024). No unit means bytes. Fractions are allowed with a unit ("1.5GiB") and
// round down to whole bytes. Errors are InvalidArgument with a message fit to follow a key path.
absl::StatusOr<uint64_t> ParseByteSize(const std::string& text);

// Parses a duration: one or more <number><unit> terms ("1h30m", "2.5s"), units ms, s, m, h, d
// (24h), w (7d). A bare number is an error (the unit is never guessed). Negative durations are
// rejected.
absl::StatusOr<absl::Duration> ParseDurationText(const std::string& text);

// "4GiB", "512MiB", "1000B": the largest binary unit that divides `bytes` exactly.
std::string FormatByteSize(uint64_t bytes);

}  // namespace strata::config
