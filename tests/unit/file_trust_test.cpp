// Tests of the check that refuses budget.conf and ledger files other users could write
// (file_trust.hpp).
#include "budget/file_trust.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace budget {
namespace {

class CheckTrustedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("budget-trust-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "budget.conf").string();
    std::ofstream(path_) << "# empty\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Status WithMode(mode_t mode) {
    EXPECT_EQ(::chmod(path_.c_str(), mode), 0);
    return CheckTrustedFile(path_, "budget.conf");
  }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(CheckTrustedFileTest, AcceptsFilesOnlyTheOwnerCanWrite) {
  for (const mode_t mode : {0644, 0640, 0600, 0400, 0444}) {
    EXPECT_TRUE(WithMode(mode).ok()) << std::oct << mode;
  }
}

TEST_F(CheckTrustedFileTest, RefusesAGroupWritableFileNamingItAndItsMode) {
  const Status status = WithMode(0664);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error(), "refusing budget.conf " + path_ +
                                ": mode 0664 lets group members write it; run: chmod go-w " +
                                path_);
}

TEST_F(CheckTrustedFileTest, RefusesAFileOtherUsersCanWrite) {
  const Status others = WithMode(0602);
  ASSERT_FALSE(others.ok());
  EXPECT_NE(others.error().find("mode 0602 lets other users write it"), std::string::npos)
      << others.error();
  const Status both = WithMode(0666);
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.error().find("mode 0666 lets group members and other users write it"),
            std::string::npos)
      << both.error();
}

TEST_F(CheckTrustedFileTest, FollowsASymbolicLinkToTheFileRead) {
  const std::string link = (dir_ / "link.conf").string();
  std::filesystem::create_symlink(path_, link);
  ASSERT_EQ(::chmod(path_.c_str(), 0666), 0);
  EXPECT_FALSE(CheckTrustedFile(link, "budget.conf").ok());
  ASSERT_EQ(::chmod(path_.c_str(), 0644), 0);
  EXPECT_TRUE(CheckTrustedFile(link, "budget.conf").ok());
}

TEST_F(CheckTrustedFileTest, AMissingFileIsLeftToTheLoader) {
  EXPECT_TRUE(CheckTrustedFile((dir_ / "absent").string(), "ledger").ok());
}

TEST_F(CheckTrustedFileTest, RefusesAFileOwnedByAnotherUser) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give the file away";
  }
  ASSERT_EQ(::chmod(path_.c_str(), 0644), 0);
  ASSERT_EQ(::chown(path_.c_str(), 12345, 0), 0);
  const Status status = CheckTrustedFile(path_, "ledger");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().find("refusing ledger " + path_ + ": owned by uid 12345"),
            std::string::npos)
      << status.error();
}

}  // namespace
}  // namespace budget
