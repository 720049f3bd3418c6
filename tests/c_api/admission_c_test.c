/* budget_engine_admit and budget_engine_project_state from C: the verdicts the Slurm plugins act
 * on, the cheap state a pass checks first, and the error contract. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "budget/budget.h"

static int failures = 0;

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                          \
			failures++;                                        \
		}                                                          \
	} while (0)

/* 15 January 2026 00:00 UTC; 1 July 2026 00:00 UTC. */
#define JAN_15 1768435200
#define JUL_1 1782864000

static const char *conf =
	"UnbudgetedAccounts=reject\n"
	"PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
	"PartitionName=low Role=low GpuhPerNodeHour=4\n"
	/* small, created 15 December 2025: 1 January .. 30 June 2026 */
	"NodeHourPrice=2026:2.69\n"
	"Project=alpha Kind=small Credit=6 Created=2025-12-15 Start=2026-01-01 "
	"PIs=a@uni.ch\n"
	/* preparatory until 1 March 2026 */
	"Project=beta Kind=small Credit=6 Created=2025-12-15 Start=2026-03-01 "
	"PIs=b@uni.ch\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

/* budget_engine_project_state must agree with the full verdict: allows_all
 * only where admit allows every partition list, and the same state. */
static void check_state_agrees(budget_engine *engine, int64_t now,
			       const char *account, int allows_all)
{
	static const char *const lists[] = { "normal", "low", "normal,low",
					     "debug", NULL };
	budget_project_lifecycle life = { BUDGET_PROJECT_ENDED, -1 };
	budget_admission_request request = { .now = now, .account = account };
	budget_admission a;
	budget_error err;
	int i, all = 1;

	budget_project_ranking ranking;
	budget_association row;

	CHECK(budget_engine_project_state(engine, account, now, &life, &err) ==
	      BUDGET_OK);
	CHECK(life.allows_all == allows_all);
	/* A pass's ranking carries the same lifecycle. */
	CHECK(budget_engine_project_ranking(engine, account, now, &ranking,
					    &err) == BUDGET_OK);
	CHECK(ranking.lifecycle.state == life.state);
	CHECK(ranking.lifecycle.allows_all == life.allows_all);
	if (life.state == BUDGET_PROJECT_NONE)
		CHECK(ranking.fair_share_budgeted == 0.0 &&
		      ranking.fair_share_low == 0.0);
	/* So does the publish step's row of the association. */
	CHECK(budget_engine_association(engine, account, NULL, now, &row,
					&err) == BUDGET_OK);
	CHECK(row.ranking.lifecycle.state == ranking.lifecycle.state);
	CHECK(row.ranking.lifecycle.allows_all == ranking.lifecycle.allows_all);
	CHECK(row.ranking.fair_share_budgeted == ranking.fair_share_budgeted);
	CHECK(row.ranking.fair_share_low == ranking.fair_share_low);
	CHECK(row.project.state == life.state);
	for (i = 0; lists[i]; i++) {
		request.partitions = lists[i];
		CHECK(budget_engine_admit(engine, &request, &a, &err) ==
		      BUDGET_OK);
		CHECK(a.state == life.state);
		all = all && (a.action == BUDGET_ADMIT_ALLOW);
	}
	CHECK(all == allows_all);
}

static budget_status admit(budget_engine *engine, int64_t now,
			   const char *account, const char *partitions,
			   budget_admission *out)
{
	budget_admission_request request = {
		.now = now,
		.account = account,
		.partitions = partitions,
		.job_id = 77,
	};
	budget_error err;
	budget_status status = budget_engine_admit(engine, &request, out,
						   &err);

	if (status != BUDGET_OK)
		fprintf(stderr, "  admit: %s\n", err.text);
	return status;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "admission_c_scratch";
	char conf_path[512];
	budget_engine_options options = { 0 };
	budget_engine *engine = NULL;
	budget_admission a;
	budget_usage_sample sample;
	budget_admission_request request = { 0 };
	budget_project_lifecycle life;
	budget_project_ranking ranking;
	budget_error err;
	char long_list[2000];

	if (mkdir(dir, 0700) && errno != EEXIST) {
		perror(dir);
		return 2;
	}
	snprintf(conf_path, sizeof(conf_path), "%s/budget.conf", dir);
	write_file(conf_path, conf);
	options.config_path = conf_path;
	options.use_utc = 1;
	CHECK(budget_engine_open(&options, JAN_15, &engine, &err) == BUDGET_OK);
	if (!engine) {
		fprintf(stderr, "  open: %s\n", err.text);
		return 1;
	}

	/* Error contract. */
	CHECK(budget_engine_admit(NULL, &request, &a, &err) ==
	      BUDGET_E_INVALID);
	CHECK(budget_engine_admit(engine, NULL, &a, &err) == BUDGET_E_INVALID);
	CHECK(budget_engine_admit(engine, &request, NULL, NULL) ==
	      BUDGET_E_INVALID);
	memset(long_list, 'p', sizeof(long_list) - 1);
	long_list[sizeof(long_list) - 1] = '\0';
	CHECK(admit(engine, JAN_15, "alpha", long_list, &a) ==
	      BUDGET_E_INVALID);

	/* The cheap state: its error contract, then agreement with admit in
	 * every state below. */
	CHECK(budget_engine_project_state(NULL, "alpha", JAN_15, &life, &err) ==
	      BUDGET_E_INVALID);
	CHECK(budget_engine_project_state(engine, "alpha", JAN_15, NULL, NULL) ==
	      BUDGET_E_INVALID);
	CHECK(budget_engine_project_ranking(NULL, "alpha", JAN_15, &ranking,
					    &err) == BUDGET_E_INVALID);
	CHECK(budget_engine_project_ranking(engine, "alpha", JAN_15, NULL,
					    NULL) == BUDGET_E_INVALID);
	CHECK(budget_engine_project_state(engine, "alpha", JAN_15, &life,
					  NULL) == BUDGET_OK);
	CHECK(life.state == BUDGET_PROJECT_ACTIVE && life.allows_all == 1);
	check_state_agrees(engine, JAN_15, "alpha", 1);
	CHECK(budget_engine_project_state(engine, "beta", JAN_15, &life,
					  NULL) == BUDGET_OK);
	CHECK(life.state == BUDGET_PROJECT_PREPARATORY);
	check_state_agrees(engine, JAN_15, "beta", 1);
	/* UnbudgetedAccounts=reject: no account, or one without a budget. */
	check_state_agrees(engine, JAN_15, "ops", 0);
	check_state_agrees(engine, JAN_15, NULL, 0);
	check_state_agrees(engine, JAN_15, "", 0);

	/* Active: allowed as asked, no message. */
	CHECK(admit(engine, JAN_15, "alpha", "normal", &a) == BUDGET_OK);
	CHECK(a.action == BUDGET_ADMIT_ALLOW);
	CHECK(a.state == BUDGET_PROJECT_ACTIVE);
	CHECK(!strcmp(a.partitions, "normal"));
	CHECK(a.message[0] == '\0' && a.hold_reason[0] == '\0');
	CHECK(!strcmp(a.last_day, "2026-06-30"));
	CHECK(!strcmp(a.storage_last_day, "2026-09-28"));
	CHECK(a.low_allowance == 3600);

	/* The whole credit (6 GPUh = 5,400 node-seconds at 4 GPUh/node-hour). */
	sample = (budget_usage_sample) { .account = "alpha", .user = "alice",
					 .partition = "normal", .nodes = 1,
					 .from = JAN_15, .to = JAN_15 + 5400 };
	CHECK(budget_engine_accrue(engine, &sample, &err) == BUDGET_OK);
	CHECK(admit(engine, JAN_15 + 6000, "alpha", "normal,low", &a) ==
	      BUDGET_OK);
	CHECK(a.action == BUDGET_ADMIT_REDIRECT);
	CHECK(a.cause == BUDGET_CAUSE_CREDIT_USED_UP);
	CHECK(a.state == BUDGET_PROJECT_LOW);
	check_state_agrees(engine, JAN_15 + 6000, "alpha", 0);
	CHECK(!strcmp(a.partitions, "low"));
	CHECK(strstr(a.message, "runs in partition low instead of normal"));
	CHECK(!strncmp(a.hold_reason, BUDGET_HOLD_PREFIX,
		       strlen(BUDGET_HOLD_PREFIX)));
	CHECK(strstr(a.hold_reason, "scontrol update JobId=77 Partition=low"));
	CHECK(a.remaining == 0);

	/* The low allowance too (1 GPUh = 900 node-seconds). */
	sample.partition = "low";
	sample.to = JAN_15 + 900;
	CHECK(budget_engine_accrue(engine, &sample, &err) == BUDGET_OK);
	CHECK(admit(engine, JAN_15 + 6000, "alpha", "low", &a) == BUDGET_OK);
	CHECK(a.action == BUDGET_ADMIT_REJECT);
	CHECK(a.cause == BUDGET_CAUSE_LOW_ALLOWANCE_USED);
	CHECK(a.state == BUDGET_PROJECT_BLOCKED);
	check_state_agrees(engine, JAN_15 + 6000, "alpha", 0);
	CHECK(a.low_used == 3600);
	CHECK(strstr(a.message, "(1 of 1 GPUh used)"));

	/* Ended at midnight of 1 July. */
	CHECK(admit(engine, JUL_1, "alpha", "low", &a) == BUDGET_OK);
	CHECK(a.cause == BUDGET_CAUSE_ENDED && a.state == BUDGET_PROJECT_ENDED);
	check_state_agrees(engine, JUL_1, "alpha", 0);
	CHECK(strstr(a.message, "ended on 2026-06-30"));
	CHECK(strstr(a.message, "readable until 2026-09-28"));

	/* No budget, and no account at all. */
	CHECK(admit(engine, JAN_15, "ops", "normal", &a) == BUDGET_OK);
	CHECK(a.action == BUDGET_ADMIT_REJECT);
	CHECK(a.cause == BUDGET_CAUSE_UNBUDGETED_ACCOUNT);
	CHECK(a.state == BUDGET_PROJECT_NONE && a.last_day[0] == '\0');
	CHECK(admit(engine, JAN_15, NULL, NULL, &a) == BUDGET_OK);
	CHECK(a.cause == BUDGET_CAUSE_UNBUDGETED_ACCOUNT);

	/* UnbudgetedAccounts=allow (the default): accounts without a budget
	 * start anything, after a reload as from the start. */
	write_file(conf_path, strchr(conf, '\n') + 1);
	CHECK(budget_engine_reload(engine, conf_path, &err) == BUDGET_OK);
	CHECK(budget_engine_project_state(engine, "ops", JAN_15, &life,
					  NULL) == BUDGET_OK);
	CHECK(life.state == BUDGET_PROJECT_NONE && life.allows_all == 1);
	check_state_agrees(engine, JAN_15, "ops", 1);
	check_state_agrees(engine, JAN_15, NULL, 1);

	budget_engine_close(engine);
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	else
		printf("admission_c_test: all checks passed\n");
	return failures ? 1 : 0;
}
