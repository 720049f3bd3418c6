// budget.conf and the ledger where the plugins find them, from slurm.conf's own text.
#include "plugin_paths.hpp"

#include <fmt/core.h>

#include <cstdlib>

#include "cli_error.hpp"
#include "slurm_conf_text.hpp"

namespace budget::cli {

namespace {

constexpr std::string_view kLedgerFile = "budget_ledger";
constexpr std::string_view kBudgetConfKey = "budget_conf=";

}  // namespace

std::string BudgetConfPath(std::string_view priority_parameters, std::string_view slurm_conf_path) {
  if (const std::size_t at = priority_parameters.find(kBudgetConfKey);
      at != std::string_view::npos) {
    const std::string_view rest = priority_parameters.substr(at + kBudgetConfKey.size());
    return std::string(rest.substr(0, rest.find(',')));
  }
  const std::string_view conf = slurm_conf_path.empty() ? "/etc/slurm/slurm.conf" : slurm_conf_path;
  const std::size_t slash = conf.rfind('/');
  return std::string(slash == std::string_view::npos ? std::string_view()
                                                     : conf.substr(0, slash + 1)) +
         "budget.conf";
}

PluginPaths PluginPathsIn(std::string_view slurm_conf_text, const std::string& slurm_conf_path) {
  // Slurm's own default StateSaveLocation is /var/spool; "/dev/null" keeps no state.
  const std::string state =
      SlurmConfValue(slurm_conf_text, "StateSaveLocation").value_or("/var/spool");
  return PluginPaths{
      .slurm_conf = slurm_conf_path,
      .budget_conf = BudgetConfPath(
          SlurmConfValue(slurm_conf_text, "PriorityParameters").value_or(""), slurm_conf_path),
      .ledger = state == "/dev/null" ? std::string() : state + "/" + std::string(kLedgerFile),
  };
}

std::string SlurmConfPath() {
  const char* given = std::getenv("SLURM_CONF");
  return given != nullptr && *given != '\0' ? given : "/etc/slurm/slurm.conf";
}

const Result<std::string>& SlurmConfText() {
  static const Result<std::string> text = ReadSlurmConf(SlurmConfPath());
  return text;
}

Result<PluginPaths> ReadPluginPaths() {
  const Result<std::string>& text = SlurmConfText();
  if (!text) {
    return Error{text.error()};
  }
  return PluginPathsIn(text.value(), SlurmConfPath());
}

std::string BudgetConfOr(const std::string& given, std::string_view how_to_give) {
  if (!given.empty()) {
    return given;
  }
  const Result<PluginPaths> paths = ReadPluginPaths();
  if (!paths) {
    Fail(fmt::format("{} (to find the budget.conf slurmctld reads); give {}", paths.error(),
                     how_to_give));
  }
  return paths.value().budget_conf;
}

std::string LedgerOr(const std::string& given) {
  if (!given.empty()) {
    return given;
  }
  const Result<PluginPaths> paths = ReadPluginPaths();
  if (!paths) {
    Fail(fmt::format("{} (to find StateSaveLocation, where the ledger is); give --ledger",
                     paths.error()));
  }
  if (paths.value().ledger.empty()) {
    Fail(
        fmt::format("{} says StateSaveLocation=/dev/null: priority/budget keeps no ledger "
                    "there; give --ledger",
                    paths.value().slurm_conf));
  }
  return paths.value().ledger;
}

}  // namespace budget::cli
