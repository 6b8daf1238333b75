// Writing result files so that a reader never sees half of one.
//
//   std::string error;
//   if (!trickbench::WriteFileAtomically("out/report.json", text, &error))
//     std::cerr << error << "\n";
//
// The text goes to a temporary file in the same folder, is flushed to disk, and is
// renamed over the target: the target is either the old file or the whole new one.
#pragma once

#include <string>

namespace trickbench {

// False with a message naming the path and the reason when the folder is missing or
// not writable or the disk is full; no temporary file is left behind.
bool WriteFileAtomically(const std::string& path, const std::string& content, std::string* error);

// True when a file can be created in the folder that would hold `path`; otherwise
// false with a message (used to reject a bad --out before spending minutes measuring).
bool CheckWritable(const std::string& path, std::string* error);

std::string ReadFile(const std::string& path, std::string* error);

}  // namespace trickbench
