// slurm.conf read as Slurm's parser reads it (src/common/parse_config.c of 22.05), for the
// few keys sbudget needs while slurmctld is stopped.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budget/result.hpp"

namespace budget::cli {

// The lines of the slurm.conf at `path` as Slurm's parser takes them, one a line: comments
// cut (from a '#' not escaped by a backslash), a line ending in a backslash joined with the
// next, each backslash escaping the character after it; each "Include FILE" line replaced,
// where it stands, by FILE's own lines, Includes in it too. As Slurm: the keyword in any case and
// followed by a blank; "%c" in FILE is the ClusterName set above the line, in lower case; a
// FILE not starting with '/' is beside the file that names it. An error names the file,
// the line and the reason (a file that cannot be read, %c without a ClusterName, Includes
// nested more than 16 deep, as a file that includes itself).
Result<std::string> ReadSlurmConf(const std::string& path);

// The value of `key` in slurm.conf's lines as ReadSlurmConf returns them: the last line
// "Key=value" (Slurm keeps the last), the key in any case, the value up to a blank, or
// between double quotes.
std::optional<std::string> SlurmConfValue(std::string_view text, std::string_view key);

// The partitions slurm.conf's lines (as ReadSlurmConf returns them) declare: the name of each line
// whose first key is PartitionName, in file order, once each; "DEFAULT" (the defaults of the lines
// after it) is not a partition.
std::vector<std::string> SlurmConfPartitions(std::string_view text);

}  // namespace budget::cli
