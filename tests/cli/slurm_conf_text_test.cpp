// Tests of slurm.conf read with its Include lines followed (src/cli/slurm_conf_text.hpp).
#include "slurm_conf_text.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace budget::cli {
namespace {

namespace fs = std::filesystem;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A fresh directory per test for a slurm.conf and the files it includes.
class SlurmConfOnDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "slurm-conf-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes `text` to `name` in the directory (subdirectories made) and returns its path.
  std::string Write(const std::string& name, const std::string& text) const {
    const fs::path path = fs::path(dir_) / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }

  // What ReadSlurmConf reads of `path`; the test fails if it cannot.
  static std::string ReadOk(const std::string& path) {
    const Result<std::string> text = ReadSlurmConf(path);
    EXPECT_TRUE(text) << text.error();
    return text ? text.value() : std::string();
  }

  std::string dir_;
};

TEST_F(SlurmConfOnDisk, ReadsAFileWithoutIncludesAsItIs) {
  const std::string conf = Write("slurm.conf", "ClusterName=gh\nStateSaveLocation=/srv/state\n");
  const std::string text = ReadOk(conf);
  EXPECT_EQ(text, "ClusterName=gh\nStateSaveLocation=/srv/state\n");
}

TEST_F(SlurmConfOnDisk, PutsEachIncludedFileWhereItsLineStands) {
  // Relative names are beside the file that names them: conf.d/more.conf from conf.d/.
  const std::string conf = Write("slurm.conf",
                                 "StateSaveLocation=/first\n"
                                 "include conf.d/state.conf   # any case, a comment after\n"
                                 "PriorityType=priority/budget\n");
  Write("conf.d/state.conf", "StateSaveLocation=/second\nINCLUDE\tmore.conf\n");
  Write("conf.d/more.conf", "PriorityParameters=budget_conf=/srv/b.conf\n");
  const std::string text = ReadOk(conf);
  EXPECT_EQ(text,
            "StateSaveLocation=/first\n"
            "StateSaveLocation=/second\n"
            "PriorityParameters=budget_conf=/srv/b.conf\n"
            "PriorityType=priority/budget\n");
  EXPECT_EQ(SlurmConfValue(text, "StateSaveLocation"), "/second");
}

TEST_F(SlurmConfOnDisk, TakesAbsoluteNamesAsTheyAre) {
  const std::string state = Write("elsewhere/state.conf", "StateSaveLocation=/abs\n");
  const std::string conf = Write("etc/slurm.conf", "Include " + state + "\n");
  const std::string text = ReadOk(conf);
  EXPECT_EQ(SlurmConfValue(text, "StateSaveLocation"), "/abs");
}

TEST_F(SlurmConfOnDisk, ReplacesPercentCWithTheClusterNameInLowerCase) {
  const std::string conf = Write("slurm.conf", "ClusterName=GH200\nInclude %c/%c.conf\n");
  Write("gh200/gh200.conf", "StateSaveLocation=/per/cluster\n");
  const std::string text = ReadOk(conf);
  EXPECT_EQ(SlurmConfValue(text, "StateSaveLocation"), "/per/cluster");
}

TEST_F(SlurmConfOnDisk, LeavesLinesThatOnlyLookLikeIncludes) {
  const std::string conf = Write("slurm.conf", "# Include missing.conf\nIncludeX=1\nInclude=2\n");
  const std::string read = ReadOk(conf);
  EXPECT_EQ(read, "\nIncludeX=1\nInclude=2\n");
}

TEST_F(SlurmConfOnDisk, CutsCommentsButNotAnEscapedHash) {
  const std::string conf = Write("slurm.conf",
                                 "StateSaveLocation=/srv/state # where\n"
                                 "# StateSaveLocation=/commented\n"
                                 "PriorityParameters=budget_conf=/srv/b\\#1.conf\n");
  const std::string text = ReadOk(conf);
  EXPECT_EQ(text,
            "StateSaveLocation=/srv/state \n\nPriorityParameters=budget_conf=/srv/b#1.conf\n");
  EXPECT_EQ(SlurmConfValue(text, "StateSaveLocation"), "/srv/state");
}

TEST_F(SlurmConfOnDisk, JoinsALineEndingInABackslashWithTheNext) {
  // As Slurm: blanks after the backslash do not matter, a backslash in a comment is cut
  // with it, an even number of backslashes is escaped ones, and an error names the joined
  // line's first.
  const std::string conf = Write("slurm.conf",
                                 "PartitionName=normal \\  \n"
                                 "  Nodes=gh[1-4] \\\n"
                                 "  Default=YES # a comment, so no more \\\n"
                                 "PartitionName=low\\\\\n"
                                 "Include \\\n"
                                 "  missing.conf\n");
  const Result<std::string> text = ReadSlurmConf(conf);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error(),
            conf + ":5: Include: cannot read " + dir_ + "/missing.conf: No such file or directory");
  Write("missing.conf", "PartitionName=debug\n");
  const std::string joined = ReadOk(conf);
  EXPECT_EQ(joined,
            "PartitionName=normal   Nodes=gh[1-4]   Default=YES \n"
            "PartitionName=low\\\n"
            "PartitionName=debug\n");
  EXPECT_EQ(SlurmConfPartitions(joined), (std::vector<std::string>{"normal", "low\\", "debug"}));
}

TEST_F(SlurmConfOnDisk, NamesTheFileAndLineOfAnIncludeThatCannotBeRead) {
  const std::string conf = Write("slurm.conf", "ClusterName=gh\nInclude nodes.conf\n");
  const Result<std::string> text = ReadSlurmConf(conf);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error(),
            conf + ":2: Include: cannot read " + dir_ + "/nodes.conf: No such file or directory");
}

TEST_F(SlurmConfOnDisk, NamesEachIncludeOnTheWayToAFileThatCannotBeRead) {
  const std::string conf = Write("slurm.conf", "Include a.conf\n");
  const std::string a = Write("a.conf", "\nInclude b.conf\n");
  const Result<std::string> text = ReadSlurmConf(conf);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error(), conf + ":1: Include: " + a + ":2: Include: cannot read " + dir_ +
                              "/b.conf: No such file or directory");
}

TEST_F(SlurmConfOnDisk, RefusesToIncludeADirectory) {
  const std::string conf = Write("slurm.conf", "Include conf.d\n");
  fs::create_directory(fs::path(dir_) / "conf.d");
  const Result<std::string> text = ReadSlurmConf(conf);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error(), conf + ":1: Include: cannot read " + dir_ + "/conf.d: Is a directory");
}

TEST_F(SlurmConfOnDisk, RefusesPercentCWithoutAClusterNameAboveIt) {
  const std::string conf = Write("slurm.conf", "Include %c.conf\nClusterName=gh\n");
  const Result<std::string> text = ReadSlurmConf(conf);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error(), conf + ":1: Include: %c.conf has %c, and no ClusterName is set above it");
}

TEST_F(SlurmConfOnDisk, RefusesTheIncludeLinesSlurmctldRefuses) {
  Write("nodes.conf", "NodeName=gh[1-4]\n");
  const std::pair<std::string, std::string> cases[] = {
      {"  Include nodes.conf\n",
       "blanks before Include (slurmctld refuses the line: a parse error)"},
      {"Include nodes.conf more.conf\n",
       "more than one word after Include (slurmctld refuses the line: a parse error)"},
      {"Include   # a file to come\n", "no file name after Include"},
  };
  for (const auto& [line, why] : cases) {
    const std::string conf = Write("slurm.conf", "ClusterName=gh\n" + line);
    const Result<std::string> text = ReadSlurmConf(conf);
    ASSERT_FALSE(text) << line;
    EXPECT_EQ(text.error(), conf + ":2: Include: " + why);
  }
  // What it accepts: blanks after the file name, and a tab after Include.
  const std::string conf = Write("slurm.conf", "ClusterName=gh\nInclude\tnodes.conf  \n");
  EXPECT_EQ(ReadOk(conf), "ClusterName=gh\nNodeName=gh[1-4]\n");
}

TEST_F(SlurmConfOnDisk, StopsAFileThatIncludesItself) {
  const std::string conf = Write("slurm.conf", "Include slurm.conf\n");
  const Result<std::string> text = ReadSlurmConf(conf);
  ASSERT_FALSE(text);
  EXPECT_TRUE(
      Contains(text.error(), "Include: more than 16 files deep (does a file include itself?)"))
      << text.error();
  EXPECT_TRUE(text.error().rfind(conf + ":1: Include: ", 0) == 0) << text.error();
}

TEST(SlurmConfValue, ReadsTheLastLineOfAKeyInAnyCase) {
  EXPECT_EQ(SlurmConfValue("statesavelocation = /old\nStateSaveLocation=/new  Other=1\n",
                           "StateSaveLocation"),
            "/new");
  EXPECT_EQ(SlurmConfValue("ClusterName=gh\n", "StateSaveLocation"), std::nullopt);
}

TEST(SlurmConfPartitions, ListsEachPartitionOnceInFileOrder) {
  EXPECT_EQ(SlurmConfPartitions("PartitionName=DEFAULT State=UP\n"
                                "PartitionName=normal Nodes=gh[1-4] Default=YES\n"
                                "  partitionname = debug Nodes=gh1\n"
                                "\n"
                                "NodeName=gh[1-4] Partitions=none\n"
                                "PartitionName=Low\r\n"
                                "PartitionName=normal MaxTime=60\n"),
            (std::vector<std::string>{"normal", "debug", "Low"}));
  EXPECT_TRUE(SlurmConfPartitions("ClusterName=gh\n").empty());
}

}  // namespace
}  // namespace budget::cli
