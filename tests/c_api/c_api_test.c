/* The C ABI from C: error contracts, a ledger round trip, priorities. */
#include <errno.h>
#include <math.h>
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

static char conf_path[512], state_path[512], bad_path[512];
static int logged_errors = 0;

static void count_errors(budget_log_level level, const char *message)
{
	if (level == BUDGET_LOG_ERROR) {
		logged_errors++;
		fprintf(stderr, "  logged: %s\n", message);
	}
}

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

/* 1 January 2026 and 15 January 2026, 00:00 UTC. */
#define JAN_1 1767225600
#define JAN_15 (JAN_1 + 14 * 86400)
#define FEB_1 (JAN_1 + 31 * 86400)

static const char *good_conf =
	"PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
	"PartitionName=low Role=low GpuhPerNodeHour=4\n"
	"Project=alpha Kind=large Credit=120000 Start=2026-01-01 "
	"PIs=a@uni.ch StorageTB=1 StorageInodes=1000\n"
	"Project=beta Kind=large Credit=120000 Start=2026-01-01 "
	"PIs=b@uni.ch StorageTB=1 StorageInodes=1000\n";

static budget_engine *open_engine(const char *conf, budget_status *status)
{
	budget_engine_options options = {
		.config_path = conf,
		.state_path = state_path,
		.half_life_seconds = 0,
		.use_utc = 1,
		.log = count_errors,
	};
	budget_engine *engine = NULL;
	budget_error err;

	*status = budget_engine_open(&options, JAN_15, &engine, &err);
	if (*status != BUDGET_OK)
		fprintf(stderr, "  open: %s\n", err.text);
	return engine;
}

static void test_bad_arguments(void)
{
	budget_error err;
	budget_engine *engine = (budget_engine *) 1;

	CHECK(budget_engine_open(NULL, 0, &engine, &err) == BUDGET_E_INVALID);
	CHECK(strlen(err.text) > 0);
	CHECK(budget_engine_accrue(NULL, NULL, &err) == BUDGET_E_INVALID);
	CHECK(budget_engine_save(NULL, 0, NULL) == BUDGET_E_INVALID);
	CHECK(budget_engine_accounted_until(NULL) == 0);
	CHECK(budget_engine_partition_role(NULL, "normal") ==
	      BUDGET_PARTITION_UNBUDGETED);
	budget_engine_close(NULL);
}

static void test_bad_config_names_file_and_line(void)
{
	budget_status status;
	budget_engine *engine;

	write_file(bad_path, "PartitionName=low Role=low\nProject=x Kind=small "
		   "Credit=-5 Created=2026-01-10 PIs=a@uni.ch\n");
	logged_errors = 0;
	engine = open_engine(bad_path, &status);
	CHECK(engine == NULL);
	CHECK(status == BUDGET_E_CONFIG);
	CHECK(logged_errors >= 1);
}

/* Whether the n bytes at text are whole UTF-8 characters. */
static int whole_utf8(const char *text, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char lead = (unsigned char) text[i];
		size_t len = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 :
			(lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;

		if (!len || i + len > n)
			return 0;
		for (size_t k = 1; k < len; k++)
			if (((unsigned char) text[i + k] & 0xC0) != 0x80)
				return 0;
		i += len;
	}
	return 1;
}

/* A message longer than budget_error's text is cut before a whole character
 * and says so with "...", whichever byte the cut falls on. */
static void test_long_error_is_cut_visibly(void)
{
	for (int pad = 0; pad < 2; pad++) {
		char path[512] = "/nonexistent-";
		budget_status status;
		budget_engine *engine;
		size_t len;

		for (int i = 0; i < pad; i++)
			strcat(path, "x");
		for (int i = 0; i < 100; i++)
			strcat(path, "\xc3\xa9"); /* e acute, two bytes */
		strcat(path, "/budget.conf");
		{
			budget_engine_options options = {
				.config_path = path,
				.use_utc = 1,
			};
			budget_error err;

			engine = NULL;
			status = budget_engine_open(&options, JAN_15, &engine,
						    &err);
			len = strlen(err.text);
			CHECK(status == BUDGET_E_CONFIG);
			CHECK(engine == NULL);
			CHECK(len >= sizeof(err.text) - 2);
			CHECK(len <= sizeof(err.text) - 1);
			CHECK(len > 3 && !strcmp(err.text + len - 3, "..."));
			CHECK(whole_utf8(err.text, len - 3));
			CHECK(strstr(err.text, "/nonexistent-") != NULL);
		}
	}
}

/* A pass ranks from each project's factors, resolved once: in every
 * partition and for every account, the priority of
 * budget_job_priority_weighted with the factor of the job's partition role
 * and a copy of the engine's weights equals budget_engine_job_priority's by
 * name. */
static void check_priority_with_fair_share(budget_engine *engine,
					   const budget_weights *engine_weights,
					   budget_job *job)
{
	static const char *const accounts[] = { "alpha", "beta", "nobody" };
	static const char *const partitions[] = { "normal", "low", "gpu-x86" };
	static const double tres_weights[] = { 1.0 };
	const budget_weights missing_tres = { .tres_count = 1 };
	budget_weights with_tres = *engine_weights;
	budget_priority_weights *weights = NULL, *other = NULL;
	budget_project_ranking ranking;
	budget_job_priority by_name = { 0 }, given = { 0 };
	budget_error err;
	size_t a, p;

	CHECK(budget_priority_weights_new(engine_weights, NULL, &err) ==
	      BUDGET_E_INVALID);
	other = (budget_priority_weights *) &ranking; /* the call resets it */
	CHECK(budget_priority_weights_new(&missing_tres, &other, &err) ==
	      BUDGET_E_INVALID);
	CHECK(other == NULL);
	CHECK(strstr(err.text, "weights and out are required") != NULL);
	budget_priority_weights_free(NULL);
	CHECK(budget_priority_weights_new(engine_weights, &weights, &err) ==
	      BUDGET_OK);
	CHECK(weights != NULL);
	CHECK(budget_job_priority_weighted(NULL, job, 0.5, &given, &err) ==
	      BUDGET_E_INVALID);
	CHECK(budget_job_priority_weighted(weights, NULL, 0.5, &given, &err) ==
	      BUDGET_E_INVALID);
	CHECK(budget_job_priority_weighted(weights, job, 0.5, NULL, &err) ==
	      BUDGET_E_INVALID);

	/* The copy is the caller's: other weights give another priority. */
	with_tres.fairshare = 2 * engine_weights->fairshare;
	with_tres.tres_count = 1;
	with_tres.tres = tres_weights;
	CHECK(budget_priority_weights_new(&with_tres, &other, &err) ==
	      BUDGET_OK);
	CHECK(budget_job_priority_weighted(weights, job, 0.5, &by_name, &err) ==
	      BUDGET_OK);
	CHECK(budget_job_priority_weighted(other, job, 0.5, &given, &err) ==
	      BUDGET_OK);
	CHECK(given.fairshare == 2 * by_name.fairshare);
	budget_priority_weights_free(other);
	for (a = 0; a < sizeof(accounts) / sizeof(accounts[0]); a++) {
		CHECK(budget_engine_project_ranking(engine, accounts[a],
						    job->now, &ranking,
						    &err) == BUDGET_OK);
		for (p = 0; p < sizeof(partitions) / sizeof(partitions[0]);
		     p++) {
			budget_partition_role role =
				budget_engine_partition_role(engine,
							     partitions[p]);
			double fs = (role == BUDGET_PARTITION_BUDGETED) ?
				ranking.fair_share_budgeted :
				(role == BUDGET_PARTITION_LOW) ?
				ranking.fair_share_low : 0.0;

			job->account = accounts[a];
			job->partition = partitions[p];
			CHECK(budget_engine_job_priority(engine, job, &by_name,
							 &err) == BUDGET_OK);
			/* account and partition are not read. */
			job->account = "nobody";
			job->partition = NULL;
			CHECK(budget_job_priority_weighted(weights, job, fs,
							   &given, &err) ==
			      BUDGET_OK);
			CHECK(given.priority == by_name.priority);
			CHECK(given.fairshare == by_name.fairshare);
			CHECK(given.age == by_name.age);
		}
	}
	CHECK(budget_engine_project_ranking(engine, "beta", job->now, &ranking,
					    &err) == BUDGET_OK);
	CHECK(ranking.lifecycle.state == BUDGET_PROJECT_ACTIVE);
	CHECK(ranking.fair_share_budgeted > 0.0);

	/* A project's ranking is of the engine's steady generation, which a
	 * submission reads without waiting; an account without a budget has
	 * none, and neither has a NULL engine or the next date. */
	CHECK(ranking.generation != 0);
	CHECK(budget_engine_steady_generation(engine, job->now) ==
	      ranking.generation);
	CHECK(budget_engine_steady_generation(engine, job->now + 86400) == 0);
	CHECK(budget_engine_steady_generation(NULL, job->now) == 0);
	CHECK(budget_engine_project_ranking(engine, "nobody", job->now,
					    &ranking, &err) == BUDGET_OK);
	CHECK(ranking.generation == 0);
	budget_priority_weights_free(weights);
}

/* Field by field: padding makes memcmp unreliable. */
static int same_view(const budget_project_view *a,
		     const budget_project_view *b)
{
	return a->state == b->state && a->fair_share == b->fair_share &&
	       a->usage_gpu_seconds == b->usage_gpu_seconds &&
	       a->effective_usage == b->effective_usage &&
	       a->shares_gpu_hours == b->shares_gpu_hours &&
	       a->level == b->level;
}

static int same_ranking(const budget_project_ranking *a,
			const budget_project_ranking *b)
{
	return a->lifecycle.state == b->lifecycle.state &&
	       a->lifecycle.allows_all == b->lifecycle.allows_all &&
	       a->fair_share_budgeted == b->fair_share_budgeted &&
	       a->fair_share_low == b->fair_share_low &&
	       a->generation == b->generation;
}

/* budget_engine_association is budget_engine_project, _project_ranking and
 * _user_usage in one call, for each account and user; and its error
 * contract. */
static void check_association(budget_engine *engine, int64_t now)
{
	static const char *const accounts[] = { "alpha", "beta", "nobody" };
	static const char *const users[] = { NULL, "", "alice", "bob" };
	budget_association row;
	budget_error err;
	size_t a, u;

	CHECK(budget_engine_association(NULL, "alpha", NULL, now, &row,
					&err) == BUDGET_E_INVALID);
	CHECK(budget_engine_association(engine, "alpha", NULL, now, NULL,
					&err) == BUDGET_E_INVALID);
	for (a = 0; a < sizeof(accounts) / sizeof(accounts[0]); a++) {
		budget_project_view view;
		budget_project_ranking ranking;

		if (budget_engine_project(engine, accounts[a], now, &view,
					  &err) != BUDGET_OK)
			memset(&view, 0, sizeof(view));
		CHECK(budget_engine_project_ranking(engine, accounts[a], now,
						    &ranking, &err) ==
		      BUDGET_OK);
		for (u = 0; u < sizeof(users) / sizeof(users[0]); u++) {
			double usage = 0;

			if (users[u] && users[u][0] &&
			    budget_engine_user_usage(engine, accounts[a],
						     users[u], &usage, &err))
				usage = 0;
			memset(&row, 0xff, sizeof(row));
			CHECK(budget_engine_association(engine, accounts[a],
							users[u], now, &row,
							&err) == BUDGET_OK);
			CHECK(same_view(&row.project, &view));
			CHECK(same_ranking(&row.ranking, &ranking));
			CHECK(row.user_usage_gpu_seconds == usage);
		}
	}
	CHECK(budget_engine_association(engine, "alpha", "alice", now, &row,
					&err) == BUDGET_OK);
	CHECK(row.user_usage_gpu_seconds == 48.0 * 3600);
	CHECK(row.project.state == BUDGET_PROJECT_ACTIVE);
	CHECK(budget_engine_association(engine, NULL, NULL, now, &row, &err) ==
	      BUDGET_OK);
	CHECK(row.project.state == BUDGET_PROJECT_NONE);
}

/* budget_engine_associations answers each key as budget_engine_association
 * does, in a batch mixing accounts, users in and out of name order and rows
 * without a budget; and its error contract. */
static void check_associations(budget_engine *engine, int64_t now)
{
	static const budget_association_key keys[] = {
		{ "alpha", NULL },  { "alpha", "alice" }, { "alpha", "bob" },
		{ "beta", "" },	    { "beta", "alice" },  { "nobody", "bob" },
		{ NULL, NULL },	    { "alpha", "bob" },	  { "alpha", "alice" },
		{ "alpha", "zed" },
	};
	enum { N = sizeof(keys) / sizeof(keys[0]) };
	budget_association rows[N], row;
	budget_error err;
	size_t i;

	CHECK(budget_engine_associations(NULL, keys, N, now, rows, &err) ==
	      BUDGET_E_INVALID);
	CHECK(budget_engine_associations(engine, NULL, N, now, rows, &err) ==
	      BUDGET_E_INVALID);
	CHECK(budget_engine_associations(engine, keys, N, now, NULL, &err) ==
	      BUDGET_E_INVALID);
	CHECK(strstr(err.text, "budget_engine_associations") != NULL);
	CHECK(budget_engine_associations(engine, NULL, 0, now, NULL, &err) ==
	      BUDGET_OK);

	memset(rows, 0xff, sizeof(rows));
	CHECK(budget_engine_associations(engine, keys, N, now, rows, &err) ==
	      BUDGET_OK);
	for (i = 0; i < N; i++) {
		memset(&row, 0xff, sizeof(row));
		CHECK(budget_engine_association(engine, keys[i].account,
						keys[i].user, now, &row,
						&err) == BUDGET_OK);
		CHECK(same_view(&rows[i].project, &row.project));
		CHECK(same_ranking(&rows[i].ranking, &row.ranking));
		CHECK(rows[i].user_usage_gpu_seconds ==
		      row.user_usage_gpu_seconds);
	}
	CHECK(rows[1].user_usage_gpu_seconds == 48.0 * 3600);
	CHECK(rows[8].user_usage_gpu_seconds == 48.0 * 3600);
	CHECK(rows[9].user_usage_gpu_seconds == 0);
	CHECK(rows[5].project.state == BUDGET_PROJECT_NONE);
	CHECK(rows[6].project.state == BUDGET_PROJECT_NONE);
}

static void test_ledger_round_trip_and_priority(void)
{
	budget_status status;
	budget_engine *engine = open_engine(conf_path, &status);
	budget_project_view alpha, beta;
	budget_usage_sample sample = {
		.account = "alpha", .user = "alice", .partition = "normal",
		.nodes = 4, .from = JAN_1, .to = JAN_1 + 3 * 3600,
	};
	budget_error err;
	double usage = 0;

	CHECK(status == BUDGET_OK);
	if (!engine)
		return;
	CHECK(budget_engine_accounted_until(engine) == 0); /* fresh */
	CHECK(budget_engine_partition_role(engine, "normal") ==
	      BUDGET_PARTITION_BUDGETED);
	CHECK(budget_engine_partition_role(engine, "low") ==
	      BUDGET_PARTITION_LOW);
	CHECK(budget_engine_partition_role(engine, "gpu-x86") ==
	      BUDGET_PARTITION_UNBUDGETED);

	/* 3 hours on 4 nodes = 48 GPUh. */
	CHECK(budget_engine_accrue(engine, &sample, &err) == BUDGET_OK);
	CHECK(budget_engine_user_usage(engine, "alpha", "alice", &usage,
				       &err) == BUDGET_OK);
	CHECK(usage == 48.0 * 3600);
	CHECK(budget_engine_project(engine, "alpha", JAN_15, &alpha, &err) ==
	      BUDGET_OK);
	CHECK(budget_engine_project(engine, "beta", JAN_15, &beta, &err) ==
	      BUDGET_OK);
	CHECK(alpha.state == BUDGET_PROJECT_ACTIVE);
	CHECK(alpha.shares_gpu_hours == 10000.0); /* 120,000 / 12 */
	CHECK(alpha.fair_share < beta.fair_share); /* more usage, lower */
	CHECK(budget_engine_project(engine, "nobody", JAN_15, &alpha, &err) ==
	      BUDGET_E_NOT_FOUND);
	check_association(engine, JAN_15);
	check_associations(engine, JAN_15);

	{
		budget_weights weights = { .fairshare = 10000000,
					   .age = 2000000,
					   .max_age_seconds = 30 * 86400 };
		budget_job job = { .now = JAN_15, .accrue_time = JAN_15 - 5 * 86400,
				   .account = "beta", .partition = "normal" };
		budget_job_priority out = { 0 };

		CHECK(budget_engine_set_weights(engine, &weights, &err) ==
		      BUDGET_OK);
		CHECK(budget_engine_job_priority(engine, &job, &out, &err) ==
		      BUDGET_OK);
		CHECK(fabs(out.fairshare - beta.fair_share * 10000000) < 0.001);
		CHECK(out.priority > 6000000); /* behind its line */
		job.partition = "gpu-x86";
		CHECK(budget_engine_job_priority(engine, &job, &out, &err) ==
		      BUDGET_OK);
		CHECK(out.fairshare == 0.0); /* unbudgeted partition */
		check_priority_with_fair_share(engine, &weights, &job);
	}

	CHECK(budget_engine_save(engine, JAN_15, &err) == BUDGET_OK);
	budget_engine_close(engine);

	engine = open_engine(conf_path, &status);
	CHECK(status == BUDGET_OK);
	if (!engine)
		return;
	CHECK(budget_engine_accounted_until(engine) == JAN_15);
	CHECK(budget_engine_user_usage(engine, "alpha", "alice", &usage,
				       &err) == BUDGET_OK);
	CHECK(usage == 48.0 * 3600);

	/* A broken file on reload keeps the last good one. */
	logged_errors = 0;
	CHECK(budget_engine_reload(engine, bad_path, &err) == BUDGET_E_CONFIG);
	CHECK(strstr(err.text, "budget.conf.bad:2") != NULL);
	CHECK(logged_errors >= 1);
	CHECK(budget_engine_project(engine, "alpha", JAN_15, &alpha, &err) ==
	      BUDGET_OK);

	/* Months close on advance: January of alpha. */
	CHECK(budget_engine_advance(engine, FEB_1 + 60, &err) == BUDGET_OK);
	CHECK(budget_engine_project(engine, "alpha", FEB_1 + 60, &alpha,
				    &err) == BUDGET_OK);
	/* February: expected = 2 x 10,000 - max(48, minimal of January). */
	CHECK(alpha.shares_gpu_hours > 10000.0);
	budget_engine_close(engine);
}

/* The accounts budget_engine_projects_without_account reported, joined. */
static void collect_account(const char *account, void *arg)
{
	char *seen = arg;

	strcat(seen, account);
	strcat(seen, ";");
}

static void test_projects_without_account(void)
{
	budget_status status;
	budget_engine *engine = open_engine(conf_path, &status);
	const char *slurm_accounts[] = { "root", "alpha", NULL, "nobudget" };
	const int64_t ended = JAN_1 + 365 * 86400; /* 2027-01-01, both ended */
	budget_error err;
	char seen[64] = "";

	CHECK(status == BUDGET_OK);
	if (!engine)
		return;
	CHECK(budget_engine_projects_without_account(
		      engine, slurm_accounts, 4, JAN_15, collect_account, seen,
		      &err) == BUDGET_OK);
	CHECK(strcmp(seen, "beta;") == 0);
	seen[0] = '\0';
	CHECK(budget_engine_projects_without_account(
		      engine, NULL, 0, JAN_15, collect_account, seen, &err) ==
	      BUDGET_OK);
	CHECK(strcmp(seen, "alpha;beta;") == 0); /* budget.conf's order */
	seen[0] = '\0';
	CHECK(budget_engine_projects_without_account(
		      engine, NULL, 0, ended - 1, collect_account, seen,
		      &err) == BUDGET_OK);
	CHECK(strcmp(seen, "alpha;beta;") == 0); /* their last second */
	seen[0] = '\0';
	CHECK(budget_engine_projects_without_account(
		      engine, NULL, 0, ended, collect_account, seen, &err) ==
	      BUDGET_OK);
	CHECK(strcmp(seen, "") == 0); /* an ended project's account may go */
	CHECK(budget_engine_projects_without_account(
		      engine, NULL, 1, JAN_15, collect_account, seen, &err) ==
	      BUDGET_E_INVALID);
	CHECK(budget_engine_projects_without_account(
		      engine, slurm_accounts, 4, JAN_15, NULL, seen, &err) ==
	      BUDGET_E_INVALID);
	CHECK(budget_engine_projects_without_account(
		      NULL, slurm_accounts, 4, JAN_15, collect_account, seen,
		      &err) == BUDGET_E_INVALID);
	CHECK(strstr(err.text, "projects_without_account") != NULL);
	budget_engine_close(engine);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "c_api_scratch";

	if (mkdir(dir, 0700) && errno != EEXIST) {
		perror(dir);
		return 2;
	}
	snprintf(conf_path, sizeof(conf_path), "%s/budget.conf", dir);
	snprintf(bad_path, sizeof(bad_path), "%s/budget.conf.bad", dir);
	snprintf(state_path, sizeof(state_path), "%s/ledger", dir);
	remove(state_path);
	{
		char old[600];

		snprintf(old, sizeof(old), "%s.old", state_path);
		remove(old);
	}
	write_file(conf_path, good_conf);

	test_bad_arguments();
	test_bad_config_names_file_and_line();
	test_long_error_is_cut_visibly();
	test_projects_without_account();
	test_ledger_round_trip_and_priority();

	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	else
		printf("c_api_test: all checks passed\n");
	return failures ? 1 : 0;
}
