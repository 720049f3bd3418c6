/*****************************************************************************\
 *  job_submit_budget.c - JobSubmitPlugins=budget: the project lifecycle at
 *  submit and on job update (docs/lifecycle.md). With the other files of
 *  src/slurm/, the only ones that include Slurm headers.
 *
 *  A priority plugin cannot refuse or move a job; this plugin does, with the
 *  verdict the C++ core computes (budget_engine_admit): a job of an ended or
 *  blocked project is refused, one aimed at a budgeted partition after the
 *  credit is used up is moved to the low partition (or refused, as
 *  budget.conf says), an account without a budget is allowed or refused.
 *  The message reaches the user through sbatch, srun and salloc.
 *
 *  It is a separate .so: it cannot see priority/budget's engine. It opens its
 *  own, read-only, from the same budget.conf and the ledger priority/budget
 *  saves in StateSaveLocation every PriorityCalcPeriod, and opens it again
 *  whenever either file changes. Its view of usage therefore lags by at most
 *  one PriorityCalcPeriod; dates (start, end) are exact to the second.
 *
 *  Locking: job_submit() and job_modify() run with the slurmctld config, job,
 *  node and partition read locks held (src/slurmctld/job_submit.c), under
 *  job_submit's own context mutex. This plugin takes only assoc_mgr's user
 *  read lock (after the slurmctld locks, as the lock order wants) and its own
 *  mutex, innermost.
\*****************************************************************************/

#include "config.h"

#include <ctype.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/assoc_mgr.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "budget/budget.h"
#include "budget_paths.h"
#include "controller_globals.h"

const char plugin_name[] = "Job submit BUDGET plugin (GPU-hour project lifecycle)";
const char plugin_type[] = "job_submit/budget";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;


/* What identifies one version of a file: a new save is a new inode. */
typedef struct {
	bool exists;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
} file_sig_t;

static pthread_mutex_t plugin_lock = PTHREAD_MUTEX_INITIALIZER;
static budget_engine *engine = NULL;
static char *conf_path = NULL;
static char *ledger_path = NULL;	/* NULL: StateSaveLocation=/dev/null */
static file_sig_t loaded_conf, loaded_ledger;	/* what `engine` was read from */
static file_sig_t failed_conf, failed_ledger;	/* last versions that failed */
static bool failed_once = false;

static bool _in_controller(void)
{
	return (&default_part_loc != NULL) && (&acct_db_conn != NULL);
}

static void _log_from_core(budget_log_level level, const char *message)
{
	/* The engine is opened again every PriorityCalcPeriod at most: its
	 * "ledger loaded" lines are debug here (priority/budget logs them). */
	switch (level) {
	case BUDGET_LOG_ERROR:
		error("%s: %s", plugin_type, message);
		break;
	case BUDGET_LOG_INFO:
		debug("%s: %s", plugin_type, message);
		break;
	default:
		debug2("%s: %s", plugin_type, message);
		break;
	}
}

static file_sig_t _sig_of(const char *path)
{
	file_sig_t sig;
	struct stat st;

	memset(&sig, 0, sizeof(sig));
	if (!path || stat(path, &st))
		return sig;
	sig.exists = true;
	sig.dev = st.st_dev;
	sig.ino = st.st_ino;
	sig.size = st.st_size;
	sig.mtime = st.st_mtim;
	return sig;
}

static bool _same_sig(const file_sig_t *a, const file_sig_t *b)
{
	return (a->exists == b->exists) && (a->dev == b->dev) &&
		(a->ino == b->ino) && (a->size == b->size) &&
		(a->mtime.tv_sec == b->mtime.tv_sec) &&
		(a->mtime.tv_nsec == b->mtime.tv_nsec);
}

/*
 * Opens the engine again when budget.conf or the ledger changed since it was
 * read, or when `want_conf` (PriorityParameters=budget_conf=, which
 * scontrol reconfigure may change) names another file. A version that fails
 * to open is logged once and not retried until it changes; the last good
 * engine stays in force meanwhile. Caller holds plugin_lock.
 */
static void _refresh(time_t now, char *want_conf)
{
	file_sig_t conf, ledger;
	budget_engine_options options;
	budget_engine *opened = NULL;
	budget_error err;

	if (want_conf && xstrcmp(want_conf, conf_path)) {
		xfree(conf_path);
		conf_path = xstrdup(want_conf);
		memset(&loaded_conf, 0, sizeof(loaded_conf));
		failed_once = false;
	}
	conf = _sig_of(conf_path);
	ledger = _sig_of(ledger_path);
	if (engine && _same_sig(&conf, &loaded_conf) &&
	    _same_sig(&ledger, &loaded_ledger))
		return;
	if (failed_once && _same_sig(&conf, &failed_conf) &&
	    _same_sig(&ledger, &failed_ledger))
		return;

	options = (budget_engine_options) {
		.config_path = conf_path,
		.state_path = ledger_path,
		.half_life_seconds = 0,	/* fair share plays no part here */
		.use_utc = 0,
		.log = _log_from_core,
	};
	if (budget_engine_open(&options, now, &opened, &err)) {
		/* Without an engine this is init(), which then fails and
		 * Slurm does not load the plugin: fatal at slurmctld's start
		 * (src/slurmctld/controller.c). */
		error("%s: cannot read %s%s%s: %s; %s", plugin_type, conf_path,
		      ledger_path ? " and " : "",
		      ledger_path ? ledger_path : "", err.text,
		      engine ? "keeping the last good budgets" :
		      "refusing to start without budgets");
		failed_conf = conf;
		failed_ledger = ledger;
		failed_once = true;
		return;
	}
	if (engine)
		budget_engine_close(engine);
	engine = opened;
	loaded_conf = conf;
	loaded_ledger = ledger;
	failed_once = false;
	debug("%s: budgets read from %s, usage from %s", plugin_type,
	      conf_path, ledger_path ? ledger_path : "(none)");
}

/* The user's default account, lowercased (xfree it); NULL if none.
 * Takes assoc_mgr's user read lock: the caller must not hold it. */
static char *_default_account(uint32_t uid)
{
	assoc_mgr_lock_t locks = { .user = READ_LOCK };
	slurmdb_user_rec_t user;
	char *account = NULL;

	memset(&user, 0, sizeof(user));
	user.uid = uid;
	assoc_mgr_lock(&locks);
	if (assoc_mgr_user_list &&
	    (assoc_mgr_fill_in_user(acct_db_conn, &user, accounting_enforce,
				    NULL, true) == SLURM_SUCCESS))
		account = xstrdup(user.default_acct);
	assoc_mgr_unlock(&locks);
	return account;
}

/* Slurm stores account names in lower case (validate_job_create_req lowers
 * them after the job_submit plugins ran). */
static char *_lower_dup(const char *s)
{
	char *copy = xstrdup(s);
	char *p;

	for (p = copy; p && *p; p++)
		*p = (char) tolower((unsigned char) *p);
	return copy;
}

/* Adds a line to the message the user sees (another plugin may have set
 * one already; Slurm frees it). */
static void _tell_user(char **err_msg, const char *text)
{
	if (!err_msg || !text || !text[0])
		return;
	if (*err_msg)
		xstrfmtcat(*err_msg, "\n%s", text);
	else
		*err_msg = xstrdup(text);
}

/* The verdict for (account, partitions) now; false when there is none (no
 * budgets could be read, or the core failed: the job is then not checked
 * here, and priority/budget's periodic pass still holds it if it must).
 * Caller holds the slurmctld config read lock (slurm_conf is read). */
static bool _admit(const char *account, const char *partitions,
		   uint32_t job_id, budget_admission *out)
{
	char *want_conf = budget_conf_path();
	budget_admission_request request = {
		.now = time(NULL),
		.account = account,
		.partitions = partitions,
		.job_id = job_id,
	};
	budget_error err;
	bool ok = false;

	slurm_mutex_lock(&plugin_lock);
	_refresh(request.now, want_conf);
	if (engine) {
		if (budget_engine_admit(engine, &request, out, &err))
			error("%s: no verdict for account %s: %s", plugin_type,
			      account ? account : "(none)", err.text);
		else
			ok = true;
	}
	slurm_mutex_unlock(&plugin_lock);
	xfree(want_conf);
	return ok;
}

extern int init(void)
{
	if (!_in_controller()) {
		debug("%s: loaded outside slurmctld", plugin_type);
		return SLURM_SUCCESS;
	}

	/* Statics may survive a fini()/dlclose() cycle: reset them. */
	slurm_mutex_lock(&plugin_lock);
	xfree(conf_path);
	xfree(ledger_path);
	conf_path = budget_conf_path();
	ledger_path = budget_ledger_path();
	failed_once = false;
	_refresh(time(NULL), NULL);
	if (!engine) {
		/* A broken budget.conf stops slurmctld, as with priority/budget. */
		slurm_mutex_unlock(&plugin_lock);
		return SLURM_ERROR;
	}
	slurm_mutex_unlock(&plugin_lock);
	info("%s: lifecycle checks from %s, usage from %s", plugin_type,
	     conf_path, ledger_path ? ledger_path : "(not kept)");
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	slurm_mutex_lock(&plugin_lock);
	if (engine)
		budget_engine_close(engine);
	engine = NULL;
	xfree(conf_path);
	xfree(ledger_path);
	memset(&loaded_conf, 0, sizeof(loaded_conf));
	memset(&loaded_ledger, 0, sizeof(loaded_ledger));
	failed_once = false;
	slurm_mutex_unlock(&plugin_lock);
	return SLURM_SUCCESS;
}

/* Caller holds the slurmctld config, job, node and partition read locks. */
extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	uint32_t uid = (job_desc->user_id != NO_VAL) ? job_desc->user_id :
		submit_uid;
	char *account, *partitions;
	budget_admission verdict;
	int rc = SLURM_SUCCESS;

	if (!_in_controller())
		return SLURM_SUCCESS;
	account = job_desc->account ? _lower_dup(job_desc->account) :
		_default_account(uid);
	if (job_desc->partition)
		partitions = xstrdup(job_desc->partition);
	else
		partitions = default_part_loc ? xstrdup(default_part_loc->name) :
			NULL;

	if (!_admit(account, partitions, 0, &verdict))
		goto done;

	switch (verdict.action) {
	case BUDGET_ADMIT_ALLOW:
		_tell_user(err_msg, verdict.message);
		break;
	case BUDGET_ADMIT_REDIRECT:
		info("%s: job of user %u, account %s: partition %s -> %s",
		     plugin_type, uid, account, partitions,
		     verdict.partitions);
		xfree(job_desc->partition);
		job_desc->partition = xstrdup(verdict.partitions);
		_tell_user(err_msg, verdict.message);
		break;
	case BUDGET_ADMIT_REJECT:
		info("%s: job of user %u, account %s, partition %s refused: %s",
		     plugin_type, uid, account ? account : "(none)",
		     partitions ? partitions : "(none)", verdict.message);
		_tell_user(err_msg, verdict.message);
		rc = ESLURM_INVALID_ACCOUNT;
		break;
	}
done:
	xfree(account);
	xfree(partitions);
	return rc;
}

/*
 * Slurm 22.05 gives job_modify no message channel (src/slurmctld/job_submit.c):
 * a refused update returns ESLURM_INVALID_ACCOUNT ("Invalid account or
 * account/partition combination specified") to scontrol, and the reason goes
 * to slurmctld's log. Only a pending job's account or partition matter.
 * Caller holds the slurmctld config, job, node and partition read locks.
 */
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		      uint32_t submit_uid)
{
	char *account;
	const char *partitions;
	budget_admission verdict;
	int rc = SLURM_SUCCESS;

	if (!_in_controller() || !job_ptr || !IS_JOB_PENDING(job_ptr) ||
	    (!job_desc->account && !job_desc->partition))
		return SLURM_SUCCESS;
	account = _lower_dup(job_desc->account ? job_desc->account :
			     job_ptr->account);
	partitions = job_desc->partition ? job_desc->partition :
		job_ptr->partition;

	if (_admit(account, partitions, job_ptr->job_id, &verdict) &&
	    (verdict.action != BUDGET_ADMIT_ALLOW)) {
		info("%s: update of %pJ by uid %u to account %s, partition %s refused: %s",
		     plugin_type, job_ptr, submit_uid,
		     account ? account : "(none)",
		     partitions ? partitions : "(none)", verdict.hold_reason);
		rc = ESLURM_INVALID_ACCOUNT;
	}
	xfree(account);
	return rc;
}
